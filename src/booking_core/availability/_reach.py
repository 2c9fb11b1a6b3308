"""How far beyond the queried dates availability must look: a booking can run into them from
before, and the gap rule measures a free block whole."""

from __future__ import annotations

import datetime as dt

from booking_core.bookable import BookingRules
from booking_core.catalog import Resource
from booking_core.localtime import local_instant
from booking_core.schedule import expand_windows
from booking_core.timerange import TimeRange, merge

_DAY = dt.timedelta(days=1)
_MIDNIGHT = dt.time(0)
#: longer than any clock change; with an interval, more than the real time between two aligned instants
_CLOCK_CHANGE = dt.timedelta(hours=3)


def availability_span(
    resource: Resource, start_date: dt.date, end_date: dt.date, now: dt.datetime, *, lead_time: bool = True
) -> TimeRange:
    """The time whose windows and blocking decide the free ranges of the local dates at ``now``.

    :func:`available_ranges` needs the blocking ranges that overlap it. It reaches back to the
    first start that could still book into the dates (the lead-time cut, or the longest booking
    before the first date, but not across a break in the windows) less a minimum booking, and
    ahead two minimum bookings and an interval past the last date. A free block cut off there
    leaves every verdict that matters to the dates as it is: the gap rule only tells a gap shorter
    than the minimum booking from a longer one. ``lead_time`` False: as if the resource had none.
    """
    rules = BookingRules.of(resource, lead_time=lead_time)
    days = local_days(resource, start_date, max(start_date, end_date))
    first_start = rules.earliest(now)
    if rules.longest is not None:
        first_start = max(first_start, days.start - rules.longest)
    start = _unbroken_since(resource, days.start, first_start - rules.shortest)
    interval = dt.timedelta(minutes=min(rules.interval_minutes, 24 * 60))
    end = days.end + 2 * rules.shortest + interval + _CLOCK_CHANGE
    return TimeRange(start, max(start, end))


def local_days(resource: Resource, start_date: dt.date, end_date: dt.date) -> TimeRange:
    """The instants of the local dates ``start_date`` to ``end_date``."""
    tz = resource.tz
    return TimeRange(local_instant(start_date, _MIDNIGHT, tz), local_instant(end_date + _DAY, _MIDNIGHT, tz))


def _unbroken_since(resource: Resource, instant: dt.datetime, floor: dt.datetime) -> dt.datetime:
    """The earliest instant, not before ``floor``, from which windows run without a break up to
    ``instant`` (``instant`` itself when no window reaches it from before)."""
    tz = resource.tz
    start, day = instant, instant.astimezone(tz).date()
    while start > floor:
        before = day - _DAY
        stretches = merge(w.range for w in expand_windows(resource, before, day))
        stretch = next((s for s in stretches if s.start < start <= s.end), None)
        if stretch is None:
            break
        start, day = stretch.start, before
        if start > local_instant(before, _MIDNIGHT, tz):
            break  # the stretch begins on the earlier day
    return max(start, floor)
