"""Booked time by local weekday and hour: UTC buckets short enough to lie in one local hour each."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable
from math import gcd
from zoneinfo import ZoneInfo

from booking_core.report._figures import BookedBucket, HourOccupancy, WeekdayHour, occupancy
from booking_core.timerange import TimeRange


def bucket_minutes(tz: ZoneInfo, span: TimeRange) -> int:
    """The length of the UTC buckets that each lie inside one local hour of ``tz`` during ``span``.

    An hour where every UTC offset is whole hours (most zones), else the greatest common divisor of
    the offsets' minutes and 60 (30 for India, 15 for Nepal). Offsets are read at every UTC midnight
    and noon of the span: no zone changes its offset twice within twelve hours.
    """
    size = 60
    instant = span.start.replace(hour=0, minute=0, second=0, microsecond=0)
    while instant <= span.end and size > 1:
        offset = instant.astimezone(tz).utcoffset() or dt.timedelta(0)
        size = gcd(size, int(offset.total_seconds()) // 60)
        instant += dt.timedelta(hours=12)
    return size


def weekday_hour(instant: dt.datetime, tz: ZoneInfo) -> WeekdayHour:
    """The local ISO weekday and hour of ``instant``."""
    local = instant.astimezone(tz)
    return local.isoweekday(), local.hour


def buckets_by_hour(buckets: Iterable[BookedBucket], tz: ZoneInfo) -> Counter[WeekdayHour]:
    """The booked seconds of UTC buckets in each local weekday and hour (each bucket lies in one,
    being no longer than :func:`bucket_minutes`)."""
    found: Counter[WeekdayHour] = Counter()
    for bucket in buckets:
        found[weekday_hour(bucket.start, tz)] += bucket.seconds
    return found


def by_hour(open_seconds: Counter[WeekdayHour], booked_seconds: Counter[WeekdayHour]) -> list[HourOccupancy]:
    """Occupancy of each weekday and hour that has open time, by weekday then hour."""
    return [
        HourOccupancy(weekday=weekday, hour=hour, occupancy=occupancy(booked_seconds[weekday, hour], seconds))
        for (weekday, hour), seconds in sorted(open_seconds.items())
        if seconds > 0
    ]
