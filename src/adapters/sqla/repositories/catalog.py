"""The catalog as the domain sees it, loaded eagerly because availability reads all of it."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Collection
from typing import Any

from sqlalchemy import BigInteger, Select, bindparam, select
from sqlalchemy.orm import Session, selectinload

from adapters.sqla.catalog_cache import ResourceCache
from adapters.sqla.errors import translate_errors
from adapters.sqla.models import (
    ResourceRow,
    ScheduleRow,
    TimeSlotRow,
    UnavailablePeriodRow,
    VenueRow,
    resource_activity_types,
)
from adapters.sqla.types import int64
from booking_core.catalog import (
    ActivityType,
    BlockReason,
    BlockSource,
    DynamicPricing,
    PriceUnit,
    Resource,
    Schedule,
    TimeSlot,
    UnavailablePeriod,
    Venue,
)
from booking_core.ports.repositories import ResourceQuery


def venue_to_domain(row: VenueRow) -> Venue:
    return Venue(
        id=row.id,
        slug=row.slug,
        name=row.name,
        description=row.description,
        short_description=row.short_description,
        venue_type=row.venue_type,
        street_address=row.street_address,
        city=row.city,
        postal_code=row.postal_code,
        country=row.country,
        latitude=row.latitude,
        longitude=row.longitude,
        timezone=row.timezone,
        operator_email=row.operator_email,
        provider_account_id=row.provider_account_id,
        is_active=row.is_active,
        is_published=row.is_published,
    )


def time_slot_to_domain(row: TimeSlotRow) -> TimeSlot:
    return TimeSlot(
        id=row.id,
        start_time=row.start_time,
        end_time=row.end_time,
        price_per_unit=row.price_per_unit,
        pricing_unit=PriceUnit(row.pricing_unit),
        slot_duration_minutes=row.slot_duration_minutes,
        capacity_override=row.capacity_override,
        label=row.label,
        is_bookable=row.is_bookable,
    )


def schedule_to_domain(row: ScheduleRow) -> Schedule:
    return Schedule(
        id=row.id,
        day_of_week=row.day_of_week,
        specific_date=row.specific_date,
        start_date=row.start_date,
        end_date=row.end_date,
        priority=row.priority,
        is_active=row.is_active,
        time_slots=tuple(time_slot_to_domain(slot) for slot in row.time_slots),
    )


def period_to_domain(row: UnavailablePeriodRow) -> UnavailablePeriod:
    return UnavailablePeriod(
        id=row.id,
        resource_id=row.resource_id,
        start=row.start_at,
        end=row.end_at,
        reason=BlockReason(row.reason),
        note=row.note,
        source=BlockSource(row.source),
        created_by=row.created_by,
        created_at=row.created_at,
    )


def resource_to_domain(row: ResourceRow) -> Resource:
    return Resource(
        id=row.id,
        venue=venue_to_domain(row.venue),
        name=row.name,
        description=row.description,
        capacity=row.capacity,
        base_price=row.base_price,
        currency=row.currency,
        price_unit=PriceUnit(row.price_unit),
        booking_interval_minutes=row.booking_interval_minutes,
        min_booking_duration_minutes=row.min_booking_duration_minutes,
        max_booking_duration_minutes=row.max_booking_duration_minutes,
        prevent_unbookable_gaps=row.prevent_unbookable_gaps,
        min_advance_booking_minutes=row.min_advance_booking_minutes,
        max_advance_booking_days=row.max_advance_booking_days,
        cancellation_deadline_hours=row.cancellation_deadline_hours,
        is_active=row.is_active,
        is_bookable=row.is_bookable,
        activity_types=tuple(ActivityType(id=a.id, name=a.name) for a in row.activity_types),
        attributes=dict(row.attributes or {}),
        dynamic_pricing=DynamicPricing(
            enabled=row.dynamic_pricing_enabled, min_price=row.min_price, max_price=row.max_price
        ),
        schedules=tuple(schedule_to_domain(s) for s in row.schedules),
        unavailable_periods=tuple(period_to_domain(p) for p in row.unavailable_periods),
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def _resources() -> Select[ResourceRow]:
    # One query per collection (selectin), not one per resource: availability reads all of it.
    return select(ResourceRow).options(
        selectinload(ResourceRow.venue),
        selectinload(ResourceRow.activity_types),
        selectinload(ResourceRow.schedules).selectinload(ScheduleRow.time_slots),
        selectinload(ResourceRow.unavailable_periods),
    )


@translate_errors
class SqlaResources:
    """Resources read from the catalog tables; ``lock`` serializes booking per resource.

    ``revision`` is the unit of work's catalog revision (:class:`~booking_core.ports.CatalogRevision`):
    what the cached resources are compared against.
    """

    def __init__(self, session: Session, cache: ResourceCache, revision: Callable[[], int | None]) -> None:
        self._session = session
        self._cache = cache
        self._revision = revision

    def get(self, resource_id: int) -> Resource | None:
        found = self._by_ids([resource_id])
        return found[0] if found else None

    def _by_ids(self, ids: builtins.list[int]) -> builtins.list[Resource]:
        """The resources of ``ids`` that exist, in that order: those the cache holds at the current
        catalog revision from there, the others loaded in one go (and remembered)."""
        revision = self._revision()
        found: dict[int, Resource] = {}
        if revision is not None:
            found = {i: cached for i in ids if (cached := self._cache.get(i, revision)) is not None}
        missing = [i for i in ids if i not in found]
        if missing:
            # bound as BIGINT, as int64() binds one id: any 64-bit id compares, and finds nothing
            wanted = bindparam("ids", missing, expanding=True, type_=BigInteger)
            for row in self._session.scalars(_resources().where(ResourceRow.id.in_(wanted))):
                resource = found[row.id] = resource_to_domain(row)
                if revision is not None:
                    self._cache.put(row.id, revision, resource)
        return [found[i] for i in ids if i in found]

    def _page(self, ids: Select[Any]) -> builtins.list[Resource]:
        """The resources a query of ids picks, in its order."""
        return self._by_ids(list(self._session.scalars(ids)))

    def list(
        self, query: ResourceQuery, *, limit: int | None = None, offset: int = 0
    ) -> builtins.list[Resource]:
        stmt = (
            select(ResourceRow.id)
            .join(ResourceRow.venue)
            .order_by(VenueRow.name, ResourceRow.name, ResourceRow.id)
        )
        if query.venue_id is not None:
            stmt = stmt.where(ResourceRow.venue_id == int64(query.venue_id))
        if query.venue_slug is not None:
            stmt = stmt.where(VenueRow.slug == query.venue_slug)
        if query.activity_id is not None:
            stmt = stmt.where(
                ResourceRow.id.in_(
                    select(resource_activity_types.c.resource_id).where(
                        resource_activity_types.c.activity_type_id == int64(query.activity_id)
                    )
                )
            )
        if query.is_active is not None:
            stmt = stmt.where(ResourceRow.is_active == query.is_active)
        if query.is_bookable is not None:
            stmt = stmt.where(ResourceRow.is_bookable == query.is_bookable)
        # the schedules and the rest are then taken from the cache, or loaded, for this page only
        return self._page(stmt.limit(limit).offset(offset))

    def for_venue(self, venue_id: int) -> builtins.list[Resource]:
        stmt = (
            select(ResourceRow.id)
            .where(ResourceRow.venue_id == int64(venue_id))
            .order_by(ResourceRow.name, ResourceRow.id)
        )
        return self._page(stmt)

    def get_venue(self, venue_id: int) -> Venue | None:
        row = self._session.scalars(select(VenueRow).where(VenueRow.id == int64(venue_id))).one_or_none()
        return venue_to_domain(row) if row else None

    def venues(self, venue_ids: Collection[int] | None = None) -> builtins.list[Venue]:
        stmt = select(VenueRow).order_by(VenueRow.name, VenueRow.id)
        if venue_ids is not None:
            stmt = stmt.where(VenueRow.id.in_([int64(v) for v in venue_ids]))
        return [venue_to_domain(row) for row in self._session.scalars(stmt)]

    def lock(self, resource_id: int) -> None:
        # SQLite: every write transaction began with BEGIN IMMEDIATE, which excludes other writers.
        if self._session.get_bind().dialect.name == "sqlite":
            return
        self._session.connection().execute(_LOCK, {"resource_id": resource_id})


# Built once: building and hashing it per call costs more than running it.
_RESOURCES = ResourceRow.__table__
_LOCK = (
    select(_RESOURCES.c.id)
    .where(_RESOURCES.c.id == bindparam("resource_id", type_=BigInteger))
    .with_for_update(of=_RESOURCES)
)
