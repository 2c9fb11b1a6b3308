"""Open time by local weekday and hour, from the schedule expansion day by day (CONTRACT 4.1)."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Iterable
from functools import lru_cache, partial
from zoneinfo import ZoneInfo

from booking_core.catalog import Resource, Schedule
from booking_core.localtime import local_instant
from booking_core.report._figures import WeekdayHour
from booking_core.schedule import expand_windows, schedule_for_date
from booking_core.timerange import TimeRange, subtract

_HOUR = dt.timedelta(hours=1)
_DAY = dt.timedelta(days=1)
_A_MONDAY = dt.date(2024, 1, 1)
_MIDNIGHT = dt.time(0)


def open_time(resource: Resource, date_from: dt.date, date_to: dt.date) -> Counter[WeekdayHour]:
    """The resource's open seconds per local weekday and hour on the dates: what
    ``seconds_by_hour(open_ranges(...))`` finds, without expanding every day.

    A plain day (24 hours on one clock reading, no closure touching it) adds the open time of its
    governing schedule on its weekday, worked out once per weekday and schedule; a day that changes
    clocks or holds a closure is expanded on its own.
    """
    tz = resource.tz
    governing = _governing(resource)
    exact = _closure_days(resource, date_from, date_to) | _clock_change_days(tz, date_from, date_to)
    # plain days by weekday and schedule (by identity: the resource holds each schedule once, and
    # hashing one by value costs more than its day), with the first such day to expand
    plain: dict[tuple[int, int], tuple[dt.date, int]] = {}
    ranges: list[TimeRange] = []
    day = date_from
    while day <= date_to:
        schedule = governing(day)
        if schedule is not None and day in exact:
            ranges.extend(open_ranges(resource, day, day))
        elif schedule is not None:
            key = (day.isoweekday(), id(schedule))
            first, days = plain.get(key, (day, 0))
            plain[key] = (first, days + 1)
        day += _DAY
    found = seconds_by_hour(ranges, tz)
    for first, days in plain.values():
        for hour, seconds in seconds_by_hour(open_ranges(resource, first, first), tz).items():
            found[hour] += seconds * days
    return found


def _governing(resource: Resource) -> Callable[[dt.date], Schedule | None]:
    """:func:`schedule_for_date` of the resource, asked once per weekday where only the weekday and
    the specific dates can tell days apart (no schedule limited to a validity range)."""
    ask = partial(schedule_for_date, resource)
    if any(s.start_date is not None or s.end_date is not None for s in resource.schedules):
        return ask
    specific = {s.specific_date for s in resource.schedules if s.specific_date is not None}
    by_weekday: dict[int, Schedule | None] = {}

    def governing(day: dt.date) -> Schedule | None:
        if day in specific:
            return ask(day)
        weekday = day.isoweekday()
        if weekday not in by_weekday:
            by_weekday[weekday] = ask(day)
        return by_weekday[weekday]

    return governing


@lru_cache(maxsize=64)
def _clock_change_days(tz: ZoneInfo, date_from: dt.date, date_to: dt.date) -> frozenset[dt.date]:
    """The local dates that are not 24 hours on one clock reading."""
    found = set()
    day, start = date_from, local_instant(date_from, _MIDNIGHT, tz)
    while day <= date_to:
        end = local_instant(day + _DAY, _MIDNIGHT, tz)
        if end - start != _DAY or start.astimezone(tz).utcoffset() != end.astimezone(tz).utcoffset():
            found.add(day)
        day, start = day + _DAY, end
    return frozenset(found)


def _closure_days(resource: Resource, date_from: dt.date, date_to: dt.date) -> set[dt.date]:
    """The local dates that a closure of the resource touches, within the dates."""
    tz = resource.tz
    found = set()
    for period in resource.unavailable_periods:
        if period.end <= period.start:
            continue
        day = max(date_from, period.start.astimezone(tz).date())
        last = min(date_to, (period.end - dt.timedelta(microseconds=1)).astimezone(tz).date())
        while day <= last:
            found.add(day)
            day += _DAY
    return found


def open_ranges(resource: Resource, date_from: dt.date, date_to: dt.date) -> list[TimeRange]:
    """The resource's open time on the local dates: its bookable windows less its closures."""
    windows = [w.range for w in expand_windows(resource, date_from, date_to)]
    return subtract(windows, (p.range for p in resource.unavailable_periods))


def seconds_by_hour(ranges: Iterable[TimeRange], tz: ZoneInfo) -> Counter[WeekdayHour]:
    """The seconds of ``ranges`` in each local weekday and hour, cut where the local hour changes.

    A range on one clock reading (the same UTC offset at both ends, at most a day long: no zone
    changes its clocks twice in a day) is counted by its shape, its weekday, local start and length,
    and each shape is cut into hours once: a year of a court's windows is a few shapes. A range over
    a clock change is walked hour by hour in real time.
    """
    found: Counter[WeekdayHour] = Counter()
    shapes: Counter[tuple[int, dt.time, dt.timedelta]] = Counter()
    for time_range in ranges:
        start, end = time_range.start.astimezone(tz), time_range.end.astimezone(tz)
        if start.utcoffset() == end.utcoffset() and time_range.duration <= _DAY:
            shapes[start.isoweekday(), start.time(), time_range.duration] += 1
        else:
            _walk(time_range, tz, found)
    for (weekday, start_time, length), count in shapes.items():
        current = dt.datetime.combine(_A_MONDAY + dt.timedelta(days=weekday - 1), start_time)
        _cut(current, current + length, found, count)
    return found


def _cut(current: dt.datetime, end: dt.datetime, found: Counter[WeekdayHour], count: int) -> None:
    """Wall-clock time from ``current`` to ``end`` (naive, one clock reading) cut at the full hours."""
    while current < end:
        following = min(end, current.replace(minute=0, second=0, microsecond=0) + _HOUR)
        found[current.isoweekday(), current.hour] += count * int((following - current).total_seconds())
        current = following


def _walk(time_range: TimeRange, tz: ZoneInfo, found: Counter[WeekdayHour]) -> None:
    """Real time from the start to the end of ``time_range``, cut where the local hour changes."""
    current = time_range.start
    while current < time_range.end:
        local = current.astimezone(tz)
        # the next local full hour, as real time from here: a clock change happens on one
        to_next = _HOUR - dt.timedelta(
            minutes=local.minute, seconds=local.second, microseconds=local.microsecond
        )
        following = min(time_range.end, current + to_next)
        found[local.isoweekday(), local.hour] += int((following - current).total_seconds())
        current = following
