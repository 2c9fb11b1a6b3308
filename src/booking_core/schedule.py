"""Opening windows: a resource's schedules expanded into absolute time, day by local day.

Wall-clock times become instants with :func:`booking_core.localtime.local_instant`: on a day that
changes clocks a window covers the wall-clock hours that exist, and nothing is counted twice
(01:00-04:00 lasts 2 hours on 2026-03-29 and 4 hours on 2026-10-25 in Europe/Berlin).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from operator import attrgetter
from zoneinfo import ZoneInfo

from booking_core.catalog import PriceUnit, Resource, Schedule, TimeSlot
from booking_core.localtime import local_instant
from booking_core.timerange import TimeRange

_MIDNIGHT = dt.time(0)
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
    #: the time slot's pricing unit, or the resource's when the slot has none of its own
    pricing_unit: PriceUnit

    @property
    def price_per_unit(self) -> Decimal:
        """The time slot's price per unit, before dynamic pricing."""
        return self.slot.price_per_unit

    @property
    def label(self) -> str:
        """The time slot's label, e.g. ``Peak``; may be empty."""
        return self.slot.label


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


@lru_cache(maxsize=4096)
def _windows_of_day(day: dt.date, schedule: Schedule, tz: ZoneInfo, unit: PriceUnit) -> tuple[Window, ...]:
    # Memoized: a pure function of immutable values, and every booking and cold availability
    # request expands the same few days again.
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
                pricing_unit=slot.pricing_unit or unit,
            )
        )
        previous_end = end
    return tuple(windows)


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
            windows.extend(_windows_of_day(day, schedule, tz, resource.price_unit))
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
