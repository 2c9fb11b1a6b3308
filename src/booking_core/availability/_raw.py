"""Raw availability: windows, bookings and closures of a date range, nothing subtracted."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from booking_core.availability._reach import local_days
from booking_core.catalog import Resource, UnavailablePeriod
from booking_core.schedule import Window, expand_windows
from booking_core.timerange import TimeRange


@dataclass(frozen=True, slots=True, kw_only=True)
class BookedSlot:
    """A booking's time as the raw availability shows it."""

    start: dt.datetime
    end: dt.datetime
    booking_id: str
    #: For an unpaid (pending) booking, the instant its hold lapses and the time is free again.
    hold_expires_at: dt.datetime | None = None

    @property
    def span(self) -> TimeRange:
        """The blocked instants."""
        return TimeRange(self.start, self.end)

    def blocks_at(self, now: dt.datetime) -> bool:
        """True while the slot holds its time: always, or until its hold lapses."""
        return self.hold_expires_at is None or now < self.hold_expires_at


@dataclass(frozen=True, slots=True, kw_only=True)
class RawAvailability:
    """Windows, bookings and closures of a date range, without subtracting anything."""

    windows: list[Window]
    booked_slots: list[BookedSlot]
    unavailable_periods: list[UnavailablePeriod]


def raw_availability(
    resource: Resource, start_date: dt.date, end_date: dt.date, *, booked: Sequence[BookedSlot]
) -> RawAvailability:
    """Windows of the local dates ``start_date`` to ``end_date`` with the bookings and closures in them.

    Args:
        resource: The resource.
        start_date: First local date.
        end_date: Last local date, inclusive.
        booked: Blocking bookings; only those overlapping the dates are kept.

    Returns:
        Windows, booked slots and unavailable periods, each sorted by start.
    """
    if end_date < start_date:
        return RawAvailability(windows=[], booked_slots=[], unavailable_periods=[])
    span = local_days(resource, start_date, end_date)
    slots = [b for b in booked if b.start < span.end and span.start < b.end]
    periods = [p for p in resource.unavailable_periods if p.range.overlaps(span)]
    return RawAvailability(
        windows=expand_windows(resource, start_date, end_date),
        booked_slots=sorted(slots, key=lambda b: (b.start.astimezone(dt.UTC), b.booking_id)),
        unavailable_periods=sorted(periods, key=lambda p: p.range.start),
    )
