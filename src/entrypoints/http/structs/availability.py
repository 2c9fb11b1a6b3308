"""Availability: the calculated free ranges and the raw windows, bookings and closures."""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Any

import msgspec

from booking_core.availability import AvailableRange, BookedSlot
from booking_core.catalog import Resource, UnavailablePeriod
from booking_core.schedule import Window
from booking_core.usecases.browse import AvailabilityView, RawAvailabilityView
from entrypoints.http.structs._format import local, money


class AvailableRangeOut(msgspec.Struct, kw_only=True):
    """A continuous free block on one local date."""

    date: date
    start_time: time
    end_time: time
    price_per_hour: str
    currency: str
    label: str
    slot_prices: dict[str, str] | None

    @classmethod
    def of(cls, r: AvailableRange) -> AvailableRangeOut:
        """The representation of ``r``."""
        prices = None if r.slot_prices is None else {k: money(v) for k, v in r.slot_prices.items()}
        return cls(
            date=r.date,
            start_time=r.start_time,
            end_time=r.end_time,
            price_per_hour=money(r.price_per_hour),
            currency=r.currency,
            label=r.label,
            slot_prices=prices,
        )


class WindowOut(msgspec.Struct, kw_only=True):
    """A bookable time slot on one local date, before anything is subtracted."""

    date: date
    start_time: time
    end_time: time
    price_per_hour: str
    currency: str
    label: str
    booking_interval_minutes: int
    min_duration_minutes: int
    max_duration_minutes: int | None
    prevent_unbookable_gaps: bool

    @classmethod
    def of(cls, w: Window, r: Resource) -> WindowOut:
        """The representation of ``w`` of resource ``r``."""
        return cls(
            date=w.date,
            start_time=w.start_time,
            end_time=w.end_time,
            price_per_hour=money(w.price_per_unit),
            currency=r.currency,
            label=w.label,
            booking_interval_minutes=r.booking_interval_minutes,
            min_duration_minutes=r.min_booking_duration_minutes,
            max_duration_minutes=r.max_booking_duration_minutes,
            prevent_unbookable_gaps=r.prevent_unbookable_gaps,
        )


class BookedSlotOut(msgspec.Struct, kw_only=True):
    """Time held by a booking, in the venue's local offset."""

    start_datetime: datetime
    end_datetime: datetime
    booking_id: str

    @classmethod
    def of(cls, b: BookedSlot, r: Resource) -> BookedSlotOut:
        """The representation of ``b``."""
        return cls(
            start_datetime=local(b.start, r.tz), end_datetime=local(b.end, r.tz), booking_id=str(b.booking_id)
        )


class UnavailablePeriodOut(msgspec.Struct, kw_only=True):
    """A closure such as maintenance or a holiday, in the venue's local offset."""

    start_datetime: datetime
    end_datetime: datetime
    reason: str

    @classmethod
    def of(cls, p: UnavailablePeriod, r: Resource) -> UnavailablePeriodOut:
        """The representation of ``p``."""
        return cls(start_datetime=local(p.start, r.tz), end_datetime=local(p.end, r.tz), reason=p.reason)


class _Constraints(msgspec.Struct, kw_only=True):
    resource_id: int
    resource_name: str
    start_date: date
    end_date: date
    timezone: str
    booking_interval_minutes: int
    min_duration_minutes: int
    max_duration_minutes: int | None
    prevent_unbookable_gaps: bool
    min_advance_booking_minutes: int
    max_advance_booking_days: int


def _constraints(r: Resource, start_date: date, end_date: date) -> dict[str, Any]:
    return {
        "resource_id": r.id,
        "resource_name": r.name,
        "start_date": start_date,
        "end_date": end_date,
        "timezone": r.venue.timezone,
        "booking_interval_minutes": r.booking_interval_minutes,
        "min_duration_minutes": r.min_booking_duration_minutes,
        "max_duration_minutes": r.max_booking_duration_minutes,
        "prevent_unbookable_gaps": r.prevent_unbookable_gaps,
        "min_advance_booking_minutes": r.min_advance_booking_minutes,
        "max_advance_booking_days": r.max_advance_booking_days,
    }


class AvailabilityOut(_Constraints, kw_only=True):
    """``GET /resources/availability/``: the resource's rules and its free ranges."""

    available_ranges: list[AvailableRangeOut]

    @classmethod
    def of(cls, view: AvailabilityView) -> AvailabilityOut:
        """The representation of ``view``."""
        return cls(
            **_constraints(view.resource, view.start_date, view.end_date),
            available_ranges=[AvailableRangeOut.of(r) for r in view.ranges],
        )


class RawAvailabilityOut(_Constraints, kw_only=True):
    """``GET /resources/{id}/availability/``: windows, booked slots and closures, unmerged."""

    windows: list[WindowOut]
    booked_slots: list[BookedSlotOut]
    unavailable_periods: list[UnavailablePeriodOut]

    @classmethod
    def of(cls, view: RawAvailabilityView) -> RawAvailabilityOut:
        """The representation of ``view``."""
        r, raw = view.resource, view.raw
        return cls(
            **_constraints(r, view.start_date, view.end_date),
            windows=[WindowOut.of(w, r) for w in raw.windows],
            booked_slots=[BookedSlotOut.of(b, r) for b in raw.booked_slots],
            unavailable_periods=[UnavailablePeriodOut.of(p, r) for p in raw.unavailable_periods],
        )
