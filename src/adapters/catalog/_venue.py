"""One venue in the catalog file's shape, for the operator API (CONTRACT 7.5): written out from the
tables, checked by the file's own validation and upserted by the file's own writer, in the session
of the caller's unit of work (its audit entries commit with the upsert, or nothing does)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.orm import Session

from adapters.catalog._read import validate_catalog
from adapters.catalog._spec import CatalogError, CatalogSpec, VenueSpec
from adapters.catalog._upsert import LoadReport, upsert_catalog
from adapters.sqla.models import ResourceRow, ScheduleRow, UnavailablePeriodRow, VenueRow
from booking_core.catalog import BlockReason, BlockSource
from booking_core.errors import BadRequest
from booking_core.money import UnknownCurrency
from booking_core.ports import CatalogUpsert, CheckedVenue, Currencies, PasswordHasher, UnitOfWork

#: The path of the one venue when its document is checked as a file holding it alone.
_PREFIX = "venues[0]"


class SqlaCatalogFiles:
    """:class:`~booking_core.ports.CatalogFiles` over the catalog file's code and the SQLAlchemy unit
    of work's session; ``currencies`` judges prices as ``booking catalog load`` does."""

    def __init__(self, currencies: Currencies, passwords: PasswordHasher) -> None:
        self._currencies = currencies
        self._passwords = passwords

    def venue_document(self, uow: UnitOfWork, venue_id: int) -> dict[str, Any] | None:
        row = _session(uow).get(VenueRow, venue_id)
        return None if row is None else self._venue(row)

    def check_venue(self, document: object) -> CheckedVenue:
        try:
            spec = validate_catalog({"venues": [document]}, self._currencies)
        except CatalogError as error:
            # the paths of a file holding this venue alone, read from the venue itself
            message = str(error).replace(f"{_PREFIX}.", "")
            raise BadRequest(message.replace(f"{_PREFIX}:", "body:", 1)) from None
        return spec.venues[0]

    def upsert_venue(self, uow: UnitOfWork, venue: CheckedVenue, now: datetime) -> CatalogUpsert:
        if not isinstance(venue, VenueSpec):
            raise TypeError("upsert_venue takes what check_venue returned")
        session = _session(uow)
        report = upsert_catalog(session, CatalogSpec(venues=(venue,)), self._passwords, now=now)
        venue_id = session.scalar(select(VenueRow.id).where(VenueRow.slug == venue.slug))
        assert venue_id is not None  # noqa: S101 - it was just written
        return CatalogUpsert(venue_id=venue_id, changes=tuple(report.changes), report=tuple(report.lines()))

    def upsert_file(self, uow: UnitOfWork, spec: CatalogSpec, now: datetime) -> LoadReport:
        """Upsert a whole checked file in ``uow`` (``booking catalog load``), committing nothing."""
        return upsert_catalog(_session(uow), spec, self._passwords, now=now)

    def _venue(self, row: VenueRow) -> dict[str, Any]:
        tz = ZoneInfo(row.timezone)
        resources = sorted(row.resources, key=lambda r: (r.name, r.id))
        return {
            "slug": row.slug,
            "name": row.name,
            "description": row.description,
            "short_description": row.short_description,
            "venue_type": row.venue_type,
            "street_address": row.street_address,
            "city": row.city,
            "postal_code": row.postal_code,
            "country": row.country,
            "latitude": _decimal(row.latitude),
            "longitude": _decimal(row.longitude),
            "timezone": row.timezone,
            "operator_email": row.operator_email,
            "provider_account_id": row.provider_account_id,
            "is_active": row.is_active,
            "is_published": row.is_published,
            "resources": [self._resource(r, tz) for r in resources],
        }

    def _resource(self, row: ResourceRow, tz: ZoneInfo) -> dict[str, Any]:
        def money(value: Decimal | None) -> str | None:
            return None if value is None else self._money(value, row.currency)

        return {
            "name": row.name,
            "description": row.description,
            "capacity": row.capacity,
            "base_price": money(row.base_price),
            "currency": row.currency,
            "price_unit": row.price_unit,
            "booking_interval_minutes": row.booking_interval_minutes,
            "min_booking_duration_minutes": row.min_booking_duration_minutes,
            "max_booking_duration_minutes": row.max_booking_duration_minutes,
            "prevent_unbookable_gaps": row.prevent_unbookable_gaps,
            "min_advance_booking_minutes": row.min_advance_booking_minutes,
            "max_advance_booking_days": row.max_advance_booking_days,
            "cancellation_deadline_hours": row.cancellation_deadline_hours,
            "is_active": row.is_active,
            "is_bookable": row.is_bookable,
            "activity_types": sorted(a.name for a in row.activity_types),
            "attributes": dict(row.attributes or {}),
            "dynamic_pricing": {
                "enabled": row.dynamic_pricing_enabled,
                "min_price": money(row.min_price),
                "max_price": money(row.max_price),
            },
            "schedules": [_schedule(s, money) for s in row.schedules],
            "unavailable_periods": [
                {
                    "start_datetime": p.start_at.astimezone(tz).isoformat(),
                    "end_datetime": p.end_at.astimezone(tz).isoformat(),
                    "reason": _reason(p),
                }
                for p in row.unavailable_periods
                if _from_catalog(p)
            ],
        }

    def _money(self, value: Decimal, currency: str) -> str:
        """``value`` with its currency's decimals (``20.00`` EUR, ``2000`` JPY) when it has no more."""
        try:
            minor = self._currencies.unit(currency).minor
        except UnknownCurrency:
            return _decimal(value) or "0"
        return str(value.quantize(minor)) if value == value.quantize(minor) else _decimal(value) or "0"


def _schedule(row: ScheduleRow, money: Any) -> dict[str, Any]:
    # a date override stores its date's weekday too; the file names it by the date alone
    when: dict[str, Any] = (
        {"specific_date": row.specific_date.isoformat()}
        if row.specific_date is not None
        else {"day_of_week": row.day_of_week}
    )
    return {
        **when,
        "priority": row.priority,
        "start_date": row.start_date.isoformat() if row.start_date else None,
        "end_date": row.end_date.isoformat() if row.end_date else None,
        "is_active": row.is_active,
        "time_slots": [
            {
                "start_time": s.start_time.isoformat(),
                "end_time": s.end_time.isoformat(),
                "price_per_unit": money(s.price_per_unit),
                "label": s.label,
                "pricing_unit": s.pricing_unit,
                "slot_duration_minutes": s.slot_duration_minutes,
                "capacity_override": s.capacity_override,
                "is_bookable": s.is_bookable,
            }
            for s in row.time_slots
        ],
    }


def _from_catalog(period: UnavailablePeriodRow) -> bool:
    """A closure the catalog declared, not a block staff placed (CONTRACT 7.3's ``source``)."""
    return period.source == BlockSource.CATALOG.value


def _reason(period: UnavailablePeriodRow) -> str:
    """The reason as the file gave it: a word that is no block reason is stored as ``other`` with the
    file's words as the period's note."""
    return period.note if period.reason == BlockReason.OTHER.value and period.note else period.reason


def _decimal(value: Decimal | None) -> str | None:
    """A decimal as plain text (``52.520008``), never in exponent notation."""
    return None if value is None else format(value, "f")


def _session(uow: UnitOfWork) -> Session:
    """The session of a :class:`~adapters.sqla.SqlaUnitOfWork` (this adapter works in its transaction)."""
    session = getattr(uow, "session", None)
    if not isinstance(session, Session):
        raise TypeError("the catalog's files need a SQLAlchemy unit of work")
    return session
