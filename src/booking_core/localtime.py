"""The venue's wall clock: local times to instants, and the alignment of booking starts.

A local wall-clock time becomes an instant with :func:`local_instant`, which reads a wall time as "the
first instant at which the venue's clock shows this time or later":

* an ordinary time maps to its one instant;
* a time repeated when clocks fall back maps to its first occurrence (``fold=0``), for starts and
  ends alike. The mapping never runs backwards, so windows of one day never overlap and nothing is
  counted twice: 01:00-04:00 on 2026-10-25 in Europe/Berlin lasts 4 hours, the repeated hour once
  each time it occurs; a window ending at 02:30 stops at the first 02:30;
* a time skipped when clocks spring forward maps to the first instant after the gap, so a window
  covers the wall-clock hours that exist: 01:00-04:00 on 2026-03-29 in Europe/Berlin lasts 2 hours.
"""

from __future__ import annotations

import datetime as dt
from bisect import bisect_left, bisect_right
from functools import lru_cache
from zoneinfo import ZoneInfo

_DAY_MINUTES = 24 * 60
_DAY = dt.timedelta(days=1)
_MIDNIGHT = dt.time(0)


def local_instant(day: dt.date, wall: dt.time, tz: ZoneInfo) -> dt.datetime:
    """The first instant (in UTC) at which the local clock on ``day`` shows ``wall`` or later.

    Args:
        day: The local date.
        wall: The local wall-clock time; its own ``tzinfo`` and ``fold`` are ignored.
        tz: The venue's timezone.

    Returns:
        An aware UTC datetime; for a time inside a spring-forward gap, the end of the gap.
    """
    naive = dt.datetime.combine(day, wall.replace(tzinfo=None, fold=0))
    first = naive.replace(tzinfo=tz).astimezone(dt.UTC)
    if first.astimezone(tz).replace(tzinfo=None) == naive:
        return first
    # Skipped time: fold=0 and fold=1 bracket the transition; find it to the second.
    before = naive.replace(tzinfo=tz, fold=1).astimezone(dt.UTC)
    lo, hi = min(before, first), max(before, first)
    while hi - lo > dt.timedelta(seconds=1):
        mid = lo + (hi - lo) // 2
        if mid.astimezone(tz).replace(tzinfo=None) >= naive:
            hi = mid
        else:
            lo = mid
    return hi


def local_minutes(instant: dt.datetime, tz: ZoneInfo) -> tuple[int, bool]:
    """Minutes since local midnight on the venue's clock, and whether ``instant`` is a whole minute."""
    local = instant.astimezone(tz)
    return local.hour * 60 + local.minute, local.second == 0 and local.microsecond == 0


def is_aligned(instant: dt.datetime, tz: ZoneInfo, interval_minutes: int) -> bool:
    """True when the local wall clock shows a whole minute divisible by ``interval_minutes``."""
    minutes, whole = local_minutes(instant, tz)
    return whole and minutes % interval_minutes == 0


def next_aligned(instant: dt.datetime, tz: ZoneInfo, interval_minutes: int) -> dt.datetime:
    """The first instant at or after ``instant`` where a booking may start (see :func:`is_aligned`)."""
    current = instant.astimezone(dt.UTC)
    local = current.astimezone(tz)
    if local.second or local.microsecond:
        current += dt.timedelta(seconds=60 - local.second, microseconds=-local.microsecond)
    while True:
        local = current.astimezone(tz)
        minutes = local.hour * 60 + local.minute
        remainder = minutes % interval_minutes
        if remainder == 0:
            return current
        # never step past local midnight, which is always aligned
        step = dt.timedelta(minutes=min(interval_minutes - remainder, _DAY_MINUTES - minutes))
        if (current + step).astimezone(tz).utcoffset() != local.utcoffset():
            # the clock changes on the way and could jump over an aligned time: go minute by minute
            step = dt.timedelta(minutes=1)
        current += step


def aligned_instants(
    first: dt.datetime, last: dt.datetime, tz: ZoneInfo, interval_minutes: int
) -> list[dt.datetime]:
    """Every instant from ``first`` to ``last`` (both included) that :func:`is_aligned` accepts, in UTC.

    These are all the starts and ends a booking may have in that time; on a day that falls back,
    the repeated aligned times count twice, once on each side of the change.
    """
    found: list[dt.datetime] = []
    day, end_day = first.astimezone(tz).date(), last.astimezone(tz).date()
    while day <= end_day:
        instants = _aligned_of_day(day, tz, interval_minutes)
        found.extend(instants[bisect_left(instants, first) : bisect_right(instants, last)])
        day += _DAY
    return found


@lru_cache(maxsize=4096)
def _aligned_of_day(day: dt.date, tz: ZoneInfo, interval_minutes: int) -> tuple[dt.datetime, ...]:
    # Memoized, like the windows of a day: availability asks for the same days again and again.
    start = local_instant(day, _MIDNIGHT, tz)
    end = local_instant(day + _DAY, _MIDNIGHT, tz)
    step = dt.timedelta(minutes=interval_minutes)
    count = -(-_DAY_MINUTES // interval_minutes)
    last = start + (count - 1) * step
    if end - start == _DAY and start.astimezone(tz).utcoffset() == last.astimezone(tz).utcoffset():
        # no clock change this day: the wall clock runs with real time from midnight
        return tuple(start + k * step for k in range(count))
    instants = []
    current = next_aligned(start, tz, interval_minutes)
    while current < end:
        instants.append(current)
        current = next_aligned(current + dt.timedelta(minutes=1), tz, interval_minutes)
    return tuple(instants)
