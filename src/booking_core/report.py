"""The venue report (CONTRACT 7.7): how full a venue's resources were, by resource and by local
weekday and hour, and the money they took.

The storage sums the bookings (:class:`~booking_core.ports.VenueReports`): per resource, and the
booked time per UTC bucket. This module adds what only the domain knows: the open time, from the
schedule expansion day by day, and the venue's clock, which turns a UTC bucket into a local weekday
and hour (on a day that changes clocks, the repeated hour counts twice, on both sides, and the
skipped one not at all, for open and booked time alike).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from math import gcd
from zoneinfo import ZoneInfo

from booking_core.booking import BookingStatus
from booking_core.catalog import Resource
from booking_core.schedule import expand_windows
from booking_core.timerange import TimeRange, subtract

#: The bookings whose time counts as occupied.
OCCUPYING = frozenset(
    {BookingStatus.CONFIRMED, BookingStatus.PAID, BookingStatus.COMPLETED, BookingStatus.NO_SHOW}
)
#: The most days one report covers (both ends included).
MAX_REPORT_DAYS = 366

_HOUR = dt.timedelta(hours=1)
_CENT = Decimal("0.01")
#: (ISO weekday 1-7, local hour 0-23)
WeekdayHour = tuple[int, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceFigures:
    """What the storage sums for one resource over the bookings starting in a span.

    ``bookings`` and ``booked_seconds`` count the :data:`OCCUPYING` statuses; ``cancellations`` the
    cancelled and refunded bookings but lapsed holds; ``revenue_paid`` the amounts of the payments
    whose money was taken (refunded later or not), ``revenue_refunded`` what of it was given back.
    """

    resource_id: int
    bookings: int = 0
    cancellations: int = 0
    no_shows: int = 0
    booked_seconds: int = 0
    revenue_paid: Decimal = Decimal(0)
    revenue_refunded: Decimal = Decimal(0)


@dataclass(frozen=True, slots=True, kw_only=True)
class BookedBucket:
    """The occupying bookings' time inside ``[start, start + bucket)``, summed over resources."""

    start: dt.datetime
    seconds: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceReport:
    """One resource's line of the report."""

    resource: Resource
    open_minutes: int
    booked_minutes: int
    occupancy: Decimal
    bookings: int
    cancellations: int
    no_shows: int
    revenue_paid: Decimal
    revenue_refunded: Decimal


@dataclass(frozen=True, slots=True, kw_only=True)
class HourOccupancy:
    """Occupancy of one local weekday (1 = Monday) and hour over the report's dates."""

    weekday: int
    hour: int
    occupancy: Decimal


@dataclass(frozen=True, slots=True, kw_only=True)
class VenueReport:
    """The report of a venue over the local dates ``date_from`` to ``date_to`` (inclusive)."""

    venue_id: int
    date_from: dt.date
    date_to: dt.date
    currency: str
    resources: list[ResourceReport]
    by_hour: list[HourOccupancy]


def occupancy(booked_seconds: float, open_seconds: float) -> Decimal:
    """Booked over open time, rounded half-up to hundredths, from ``0.00`` to at most ``1.00``."""
    if open_seconds <= 0:
        return Decimal("0.00")
    share = Decimal(booked_seconds) / Decimal(open_seconds)
    return min(share, Decimal(1)).quantize(_CENT, rounding=ROUND_HALF_UP)


def open_ranges(resource: Resource, date_from: dt.date, date_to: dt.date) -> list[TimeRange]:
    """The resource's open time on the local dates: its bookable windows less its closures."""
    windows = [w.range for w in expand_windows(resource, date_from, date_to)]
    return subtract(windows, (p.range for p in resource.unavailable_periods))


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


def seconds_by_hour(ranges: Iterable[TimeRange], tz: ZoneInfo) -> Counter[WeekdayHour]:
    """The seconds of ``ranges`` in each local weekday and hour, cut where the local hour changes."""
    found: Counter[WeekdayHour] = Counter()
    for time_range in ranges:
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
    return found


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


def resource_report(
    resource: Resource, figures: ResourceFigures, open_seconds: int, quantum: Decimal
) -> ResourceReport:
    """A resource's line from its sums and open time; money to ``quantum`` (the currency's decimals)."""
    return ResourceReport(
        resource=resource,
        open_minutes=open_seconds // 60,
        booked_minutes=figures.booked_seconds // 60,
        occupancy=occupancy(figures.booked_seconds, open_seconds),
        bookings=figures.bookings,
        cancellations=figures.cancellations,
        no_shows=figures.no_shows,
        revenue_paid=figures.revenue_paid.quantize(quantum, rounding=ROUND_HALF_UP),
        revenue_refunded=figures.revenue_refunded.quantize(quantum, rounding=ROUND_HALF_UP),
    )
