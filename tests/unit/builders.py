"""Small builders for catalog objects and instants, shared by the unit tests."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from booking_core.catalog import Resource, Schedule, TimeSlot, UnavailablePeriod, Venue
from booking_core.timerange import TimeRange

BERLIN = "Europe/Berlin"
NEW_YORK = "America/New_York"
EVERY_DAY = range(1, 8)


def hm(text: str) -> dt.time:
    """``"08:30"`` -> ``time(8, 30)``."""
    return dt.time.fromisoformat(text)


def slot(start: str, end: str, price: str = "20.00", **fields: Any) -> TimeSlot:
    """A time slot from ``"HH:MM"`` strings."""
    return TimeSlot(start_time=hm(start), end_time=hm(end), price_per_unit=Decimal(price), **fields)


def weekly(*slots: TimeSlot, days: Iterable[int] = EVERY_DAY, **fields: Any) -> tuple[Schedule, ...]:
    """One recurring schedule per weekday in ``days`` with the same time slots."""
    return tuple(Schedule(day_of_week=day, time_slots=slots, **fields) for day in days)


def on(day: dt.date, *slots: TimeSlot, **fields: Any) -> Schedule:
    """A ``specific_date`` schedule."""
    return Schedule(specific_date=day, time_slots=slots, **fields)


def resource(*schedules: Schedule, tz: str = BERLIN, **fields: Any) -> Resource:
    """A resource of a venue in ``tz``; defaults: 30-minute interval, 60-minute minimum, no lead time."""
    venue = Venue(id=1, slug="club", name="Club", timezone=tz)
    defaults: dict[str, Any] = {"id": 1, "name": "Court 1", "capacity": 4, "base_price": Decimal("20.00")}
    return Resource(venue=venue, schedules=schedules, **(defaults | fields))


def at(day: dt.date, time: str, tz: str = BERLIN, *, fold: int = 0) -> dt.datetime:
    """A local wall-clock instant as an aware datetime."""
    return dt.datetime.combine(day, hm(time), ZoneInfo(tz)).replace(fold=fold)


def span(day: dt.date, start: str, end: str, tz: str = BERLIN) -> TimeRange:
    """A range on one local date; an ``end`` of ``"00:00"`` is the following midnight."""
    end_day = day + dt.timedelta(days=1) if end == "00:00" else day
    return TimeRange(at(day, start, tz), at(end_day, end, tz))


def closure(
    day: dt.date, start: str, end: str, tz: str = BERLIN, reason: str = "maintenance"
) -> UnavailablePeriod:
    """An unavailable period on one local date."""
    return UnavailablePeriod(start=at(day, start, tz), end=at(day, end, tz), reason=reason)


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> dt.datetime:
    """An instant in UTC."""
    return dt.datetime(year, month, day, hour, minute, tzinfo=dt.UTC)
