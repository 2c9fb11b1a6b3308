"""Opening windows: a resource's schedules expanded into absolute time, day by local day.

Local wall-clock times become instants with :func:`local_instant`, which reads a wall time as "the
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
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from operator import attrgetter
from zoneinfo import ZoneInfo

from booking_core.catalog import Resource, Schedule, TimeSlot
from booking_core.timerange import TimeRange

_MIDNIGHT = dt.time(0)
_DAY_MINUTES = 24 * 60
_BY_START = attrgetter("start", "end")


@dataclass(frozen=True, slots=True, kw_only=True)
class Window:
    """A bookable time slot on one local date. ``end_time`` 00:00 means the end of that day.

    ``start_time`` and ``end_time`` are the local clock readings at the ends of ``range``; they differ
    from the time slot's only when a clock change skipped the slot's own start or end.
    """

    date: dt.date
    start_time: dt.time
    end_time: dt.time
    range: TimeRange
    slot: TimeSlot

    @property
    def price_per_unit(self) -> Decimal:
        """The time slot's price per unit, before dynamic pricing."""
        return self.slot.price_per_unit

    @property
    def label(self) -> str:
        """The time slot's label, e.g. ``Peak``; may be empty."""
        return self.slot.label


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
        minutes, _ = local_minutes(current, tz)
        remainder = minutes % interval_minutes
        if remainder == 0:
            return current
        # never step past local midnight, which is always aligned
        current += dt.timedelta(minutes=min(interval_minutes - remainder, _DAY_MINUTES - minutes))


def schedule_for_date(resource: Resource, day: dt.date) -> Schedule | None:
    """The schedule that governs the local date ``day``, or None when no schedule applies.

    An active ``specific_date`` schedule for the date wins over recurring ones. Among candidates of
    the same kind the highest ``priority`` wins; ties go to the lowest id, then to the first listed.
    """
    candidates = [s for s in resource.schedules if s.applies_to(day)]
    specific = [s for s in candidates if s.specific_date is not None]
    pool = specific or candidates
    if not pool:
        return None
    ranked = sorted(enumerate(pool), key=lambda p: (-p[1].priority, p[1].id is None, p[1].id or 0, p[0]))
    return ranked[0][1]


def _windows_of_day(day: dt.date, schedule: Schedule, tz: ZoneInfo) -> list[Window]:
    windows: list[Window] = []
    previous_end: dt.datetime | None = None
    for slot in sorted((s for s in schedule.time_slots if s.is_bookable), key=lambda s: s.start_time):
        if slot.end_time == _MIDNIGHT:
            end = local_instant(day + dt.timedelta(days=1), _MIDNIGHT, tz)
        elif slot.end_time > slot.start_time:
            end = local_instant(day, slot.end_time, tz)
        else:
            continue  # a slot ending before it starts holds no time
        start = local_instant(day, slot.start_time, tz)
        if previous_end is not None and start < previous_end:
            start = previous_end  # overlapping slots in the catalog: the earlier one keeps the time
        if start >= end:
            continue
        # times are read back from the instants, so a start moved out of a skipped hour shows as such
        windows.append(
            Window(
                date=day,
                start_time=start.astimezone(tz).time(),
                end_time=end.astimezone(tz).time(),
                range=TimeRange(start, end),
                slot=slot,
            )
        )
        previous_end = end
    return windows


def expand_windows(resource: Resource, start_date: dt.date, end_date: dt.date) -> list[Window]:
    """The bookable windows of ``resource`` on the local dates ``start_date`` to ``end_date`` inclusive.

    Per date the governing schedule (see :func:`schedule_for_date`) supplies its bookable time slots;
    non-bookable slots and dates without a schedule (or with an empty ``specific_date`` one) are closed.

    Returns:
        Windows sorted by start; windows never overlap.
    """
    tz = resource.tz
    windows: list[Window] = []
    day = start_date
    while day <= end_date:
        schedule = schedule_for_date(resource, day)
        if schedule is not None:
            windows.extend(_windows_of_day(day, schedule, tz))
        day += dt.timedelta(days=1)
    windows.sort(key=lambda w: w.range.start)
    return windows


def blocked_time(resource: Resource, blocking: Iterable[TimeRange], span: TimeRange) -> list[TimeRange]:
    """The ranges of ``blocking`` and the resource's unavailable periods that overlap ``span``.

    Returns:
        The overlapping ranges, sorted by start (sorted here by key, so the set operations of
        :mod:`booking_core.timerange` find them in order and stay linear).
    """
    ranges = [r for r in blocking if r.start < span.end and span.start < r.end]
    closures = (p.range for p in resource.unavailable_periods)
    ranges.extend(r for r in closures if r.start < span.end and span.start < r.end)
    ranges.sort(key=_BY_START)
    return ranges
