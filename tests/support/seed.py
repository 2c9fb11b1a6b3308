"""Seed a migrated database with catalog rows, users, clients and tokens, straight through the ORM.

The catalog has no write port (the catalog loader owns that path), so tests build domain objects
and insert their rows here::

    engine = make_engine(url)
    with Session(engine) as session:
        insert_resource(session, demo_resource())
        insert_client(session, demo_client(), token_hash=sha256_hex("client-token"))
        session.commit()

Ids of the domain objects are kept (schedules, slots and periods with ``id=None`` get one from the
database); on PostgreSQL the id sequences are moved past them so later inserts do not collide.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from sqlalchemy import Engine, select, text
from sqlalchemy.orm import Session

from adapters.sqla.models import (
    ActivityTypeRow,
    ClientRow,
    ResourceRow,
    ScheduleRow,
    TimeSlotRow,
    TokenRow,
    UnavailablePeriodRow,
    UserRow,
    VenueRow,
)
from booking_core.accounts import Client, Language, User
from booking_core.catalog import ActivityType, DynamicPricing, Resource, Schedule, TimeSlot, Venue
from booking_core.usecases.auth import hash_token

SEEDED_AT = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
_SERIAL_TABLES = (
    "activity_types",
    "venues",
    "resources",
    "schedules",
    "time_slots",
    "unavailable_periods",
    "clients",
    "tokens",
)


def sha256_hex(token: str) -> str:
    """How tokens are stored: the auth use case's own hash."""
    return hash_token(token)


def demo_venue(**fields: Any) -> Venue:
    """A Berlin venue."""
    defaults: dict[str, Any] = {
        "id": 1,
        "slug": "center-court",
        "name": "Center Court Club",
        "street_address": "Hauptstrasse 1",
        "city": "Berlin",
        "postal_code": "10115",
        "country": "DE",
        "timezone": "Europe/Berlin",
        "operator_email": "ops@center-court.example",
        "latitude": Decimal("52.520008"),
        "longitude": Decimal("13.404954"),
    }
    return Venue(**(defaults | fields))


def weekly_schedules() -> tuple[Schedule, ...]:
    """Open every day 08:00-22:00: 20.00 until 17:00, then 30.00 ("Peak")."""
    slots = (
        TimeSlot(
            start_time=dt.time(8),
            end_time=dt.time(17),
            price_per_unit=Decimal("20.00"),
            slot_duration_minutes=30,
        ),
        TimeSlot(
            start_time=dt.time(17),
            end_time=dt.time(22),
            price_per_unit=Decimal("30.00"),
            label="Peak",
            slot_duration_minutes=30,
        ),
    )
    return tuple(Schedule(day_of_week=day, time_slots=slots) for day in range(1, 8))


def demo_resource(**fields: Any) -> Resource:
    """Court 1 of :func:`demo_venue` with :func:`weekly_schedules`."""
    defaults: dict[str, Any] = {
        "id": 1,
        "venue": demo_venue(),
        "name": "Court 1",
        "capacity": 4,
        "base_price": Decimal("20.00"),
        "booking_interval_minutes": 30,
        "min_booking_duration_minutes": 60,
        "max_booking_duration_minutes": 180,
        "activity_types": (ActivityType(id=1, name="tennis"),),
        "attributes": {"surface": "clay"},
        "schedules": weekly_schedules(),
        "created_at": SEEDED_AT,
        "updated_at": SEEDED_AT,
    }
    return Resource(**(defaults | fields))


def demo_client(**fields: Any) -> Client:
    """A partner app earning 10 %."""
    defaults: dict[str, Any] = {
        "id": 1,
        "name": "PartnerApp",
        "commission_percent": Decimal("10.00"),
        "contact_email": "finance@partner.example",
        "created_at": SEEDED_AT,
    }
    return Client(**(defaults | fields))


def insert_venue(session: Session, venue: Venue) -> None:
    """The venue's row, unless one with its id exists."""
    if session.get(VenueRow, venue.id) is not None:
        return
    columns = {f: getattr(venue, f) for f in (c.key for c in VenueRow.__table__.columns) if hasattr(venue, f)}
    session.add(VenueRow(**columns, created_at=SEEDED_AT, updated_at=SEEDED_AT))
    session.flush()


def insert_resource(session: Session, resource: Resource) -> None:
    """The resource with its venue, activity types, schedules, time slots and closures."""
    insert_venue(session, resource.venue)
    pricing: DynamicPricing = resource.dynamic_pricing
    skip = {"venue", "activity_types", "schedules", "unavailable_periods", "dynamic_pricing", "attributes"}
    columns = {
        f: getattr(resource, f)
        for f in (c.key for c in ResourceRow.__table__.columns)
        if hasattr(resource, f) and f not in skip
    }
    row = ResourceRow(
        **columns,
        venue_id=resource.venue.id,
        attributes=dict(resource.attributes),
        dynamic_pricing_enabled=pricing.enabled,
        min_price=pricing.min_price,
        max_price=pricing.max_price,
    )
    row.created_at = resource.created_at or SEEDED_AT
    row.updated_at = resource.updated_at or SEEDED_AT
    row.activity_types = [_activity_type(session, a) for a in resource.activity_types]
    row.schedules = [_schedule(s) for s in resource.schedules]
    row.unavailable_periods = [
        UnavailablePeriodRow(
            id=p.id,
            start_at=p.start,
            end_at=p.end,
            reason=p.reason.value,
            note=p.note,
            source=p.source.value,
            created_by=p.created_by,
            created_at=p.created_at,
        )
        for p in resource.unavailable_periods
    ]
    session.add(row)
    session.flush()
    sync_sequences(session)


def insert_user(session: Session, user: User, *, token_hash: str | None = None) -> None:
    """A user and, optionally, a token."""
    session.add(
        UserRow(
            id=user.id,
            email=user.email,
            first_name=user.first_name,
            last_name=user.last_name,
            language=Language(user.language).value,
            password_hash=user.password_hash,
            is_active=user.is_active,
            created_at=user.created_at,
        )
    )
    if token_hash:
        session.add(TokenRow(token_hash=token_hash, user_id=user.id, created_at=user.created_at))
    session.flush()


def insert_client(session: Session, client: Client, *, token_hash: str | None = None) -> None:
    """A client and, optionally, its service-account token."""
    session.add(
        ClientRow(
            id=client.id,
            name=client.name,
            commission_percent=client.commission_percent,
            contact_email=client.contact_email,
            iban=client.iban,
            is_active=client.is_active,
            created_at=client.created_at,
        )
    )
    if token_hash:
        session.add(TokenRow(token_hash=token_hash, client_id=client.id, created_at=client.created_at))
    session.flush()
    sync_sequences(session)


def seed(engine: Engine, *resources: Resource, clients: tuple[Client, ...] = ()) -> None:
    """Insert ``resources`` and ``clients`` and commit."""
    with Session(engine) as session:
        for resource in resources:
            insert_resource(session, resource)
        for client in clients:
            insert_client(session, client)
        session.commit()


def sync_sequences(session: Session) -> None:
    """PostgreSQL: move each id sequence past the largest id (explicit ids do not advance them)."""
    if session.get_bind().dialect.name != "postgresql":
        return
    for table in _SERIAL_TABLES:
        session.execute(
            text(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)"
            )
        )


def _activity_type(session: Session, activity: ActivityType) -> ActivityTypeRow:
    existing = session.scalars(select(ActivityTypeRow).filter_by(name=activity.name)).one_or_none()
    return existing or ActivityTypeRow(id=activity.id, name=activity.name)


def _schedule(schedule: Schedule) -> ScheduleRow:
    return ScheduleRow(
        id=schedule.id,
        day_of_week=schedule.day_of_week,
        specific_date=schedule.specific_date,
        start_date=schedule.start_date,
        end_date=schedule.end_date,
        priority=schedule.priority,
        is_active=schedule.is_active,
        time_slots=[
            TimeSlotRow(
                id=s.id,
                start_time=s.start_time,
                end_time=s.end_time,
                price_per_unit=s.price_per_unit,
                pricing_unit=s.pricing_unit.value,
                slot_duration_minutes=s.slot_duration_minutes,
                capacity_override=s.capacity_override,
                label=s.label,
                is_bookable=s.is_bookable,
            )
            for s in schedule.time_slots
        ],
    )
