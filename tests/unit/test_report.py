"""The venue report's arithmetic: open and booked time by local weekday and hour, across clock changes."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from booking_core.booking import Booking, BookingStatus
from booking_core.memory.reports import InMemoryVenueReports
from booking_core.report import (
    BookedBucket,
    HourOccupancy,
    bucket_minutes,
    buckets_by_hour,
    by_hour,
    months,
    occupancy,
    open_ranges,
    open_time,
    seconds_by_hour,
)
from booking_core.report._open_time import _walk
from booking_core.timerange import TimeRange
from tests.unit.builders import BERLIN, closure, on, resource, slot, span, utc, weekly

TZ = ZoneInfo(BERLIN)
#: Monday to Sunday of the week whose Sunday falls back (03:00 CEST -> 02:00 CET on 2026-10-25)
AUTUMN_WEEK = [dt.date(2026, 10, 19) + dt.timedelta(days=n) for n in range(7)]
SPRING_SUNDAY = dt.date(2026, 3, 29)  # 02:00 CET -> 03:00 CEST: no 02:xx that day
HOUR = 3600


def test_open_time_of_the_autumn_week_counts_the_repeated_hour_twice() -> None:
    court = resource(*weekly(slot("01:00", "04:00")))

    ranges = open_ranges(court, AUTUMN_WEEK[0], AUTUMN_WEEK[-1])
    found = seconds_by_hour(ranges, TZ)

    weekdays = {(d, h): HOUR for d in range(1, 7) for h in (1, 2, 3)}
    assert found == Counter(weekdays | {(7, 1): HOUR, (7, 2): 2 * HOUR, (7, 3): HOUR})
    assert sum(r.duration.total_seconds() for r in ranges) == (6 * 3 + 4) * HOUR


def test_open_time_of_the_spring_sunday_has_no_skipped_hour() -> None:
    court = resource(*weekly(slot("01:00", "04:00")))

    found = seconds_by_hour(open_ranges(court, SPRING_SUNDAY, SPRING_SUNDAY), TZ)

    assert found == Counter({(7, 1): HOUR, (7, 3): HOUR})


def test_open_time_leaves_out_closures_and_cuts_at_local_hours() -> None:
    day = dt.date(2026, 6, 1)  # a Monday
    court = resource(*weekly(slot("08:30", "11:00")), unavailable_periods=(closure(day, "09:00", "09:45"),))

    found = seconds_by_hour(open_ranges(court, day, day), TZ)

    assert found == Counter({(1, 8): 30 * 60, (1, 9): 15 * 60, (1, 10): HOUR})


def test_booked_buckets_of_the_autumn_sunday_land_in_the_repeated_hour() -> None:
    # 00:00Z-02:00Z on 2026-10-25 is 02:00 CEST to 03:00 CET: local hour 2, twice
    buckets = [
        BookedBucket(start=utc(2026, 10, 25, 0), seconds=HOUR),
        BookedBucket(start=utc(2026, 10, 25, 1), seconds=HOUR),
        BookedBucket(start=utc(2026, 10, 19, 0), seconds=30 * 60),  # Monday 02:00 CEST
    ]

    booked = buckets_by_hour(buckets, TZ)

    assert booked == Counter({(7, 2): 2 * HOUR, (1, 2): 30 * 60})


def test_by_hour_of_a_dst_week_through_the_in_memory_sums() -> None:
    court = resource(*weekly(slot("01:00", "04:00")))
    week = TimeRange(
        span(AUTUMN_WEEK[0], "00:00", "00:00").start, span(AUTUMN_WEEK[-1], "00:00", "00:00").end
    )
    # Sunday: the whole repeated hour twice (2 h); Monday: half of hour 1 and all of hour 2 (90 min)
    bookings = {
        "sun": _booking("sun", utc(2026, 10, 25, 0), utc(2026, 10, 25, 2)),
        "mon": _booking("mon", utc(2026, 10, 18, 23, 30), utc(2026, 10, 19, 1)),
        "gone": _booking("gone", utc(2026, 10, 20, 0), utc(2026, 10, 20, 1), status="cancelled"),
    }
    sums = InMemoryVenueReports(bookings, {})

    buckets = sums.booked_buckets([court.id], week, bucket_minutes=bucket_minutes(TZ, week))
    found = by_hour(
        seconds_by_hour(open_ranges(court, AUTUMN_WEEK[0], AUTUMN_WEEK[-1]), TZ), buckets_by_hour(buckets, TZ)
    )

    rates = {(h.weekday, h.hour): h.occupancy for h in found}
    assert rates[7, 2] == Decimal("1.00")  # 2 h booked of 2 h open
    assert rates[1, 1] == Decimal("0.50")
    assert rates[1, 2] == Decimal("1.00")
    assert rates[2, 2] == Decimal("0.00")  # the cancelled booking takes no time
    assert len(found) == 21  # 7 days x 3 open hours, nothing else
    assert found[0] == HourOccupancy(weekday=1, hour=1, occupancy=Decimal("0.50"))


@pytest.mark.parametrize(
    ("zone", "minutes"),
    [
        ("Europe/Berlin", 60),
        ("America/New_York", 60),
        ("UTC", 60),
        ("Asia/Kolkata", 30),
        ("Asia/Kathmandu", 15),
        ("Australia/Lord_Howe", 30),  # +10:30, and +11:00 in summer
    ],
)
def test_buckets_fit_in_one_local_hour(zone: str, minutes: int) -> None:
    year = TimeRange(utc(2026, 1, 1), utc(2027, 1, 1))

    assert bucket_minutes(ZoneInfo(zone), year) == minutes


@pytest.mark.parametrize(
    ("booked", "opened", "expected"),
    [
        (1, 3, "0.33"),
        (2, 3, "0.67"),
        (1, 200, "0.01"),
        (1, 201, "0.00"),
        (5, 4, "1.00"),
        (0, 0, "0.00"),
        (3, 0, "0.00"),
    ],
)
def test_occupancy_is_rounded_half_up_and_capped(booked: int, opened: int, expected: str) -> None:
    assert occupancy(booked, opened) == Decimal(expected)
    assert str(occupancy(booked, opened)) == expected


def _booking(booking_id: str, start: dt.datetime, end: dt.datetime, *, status: str = "paid") -> Booking:
    return Booking(
        id=booking_id,
        reference_code=booking_id.upper(),
        resource_id=1,
        user_id="u",
        start=start,
        end=end,
        price_per_unit=Decimal("20.00"),
        total_price=Decimal("20.00"),
        status=BookingStatus(status),
        created_at=start,
        updated_at=start,
    )


@pytest.mark.parametrize("zone", [BERLIN, "Australia/Lord_Howe", "Asia/Kathmandu", "America/St_Johns"])
def test_counting_by_shape_agrees_with_walking_real_time(zone: str) -> None:
    tz = ZoneInfo(zone)
    court = resource(*weekly(slot("00:30", "03:15"), slot("07:45", "00:00")), tz=zone)
    ranges = open_ranges(court, dt.date(2026, 1, 1), dt.date(2026, 12, 31))
    walked: Counter[tuple[int, int]] = Counter()
    for time_range in ranges:
        _walk(time_range, tz, walked)

    assert seconds_by_hour(ranges, tz) == walked


@pytest.mark.parametrize("zone", [BERLIN, "Australia/Lord_Howe", "America/Sao_Paulo"])
def test_open_time_of_a_year_agrees_with_expanding_every_day(zone: str) -> None:
    summer = weekly(
        slot("06:00", "23:00"), start_date=dt.date(2026, 6, 1), end_date=dt.date(2026, 8, 31), priority=1
    )
    court = resource(
        *weekly(slot("00:30", "03:15"), slot("07:45", "00:00")),
        *summer,
        on(dt.date(2026, 12, 24), slot("10:00", "14:00")),
        on(dt.date(2026, 12, 25)),
        tz=zone,
        unavailable_periods=(
            closure(dt.date(2026, 10, 24), "22:00", "23:30", zone),
            closure(dt.date(2026, 5, 1), "00:00", "12:00", zone),
        ),
    )
    first, last = dt.date(2026, 1, 1), dt.date(2026, 12, 31)

    assert open_time(court, first, last) == seconds_by_hour(open_ranges(court, first, last), ZoneInfo(zone))


def test_open_time_without_validity_ranges_asks_the_weekday_once() -> None:
    court = resource(*weekly(slot("08:00", "22:00")), on(dt.date(2026, 6, 3), slot("08:00", "12:00")))
    june = open_time(court, dt.date(2026, 6, 1), dt.date(2026, 6, 30))

    # four Wednesdays in June 2026, one of them open 08:00-12:00 only
    assert june[3, 8] == 4 * HOUR
    assert june[3, 12] == 3 * HOUR
    assert june[1, 21] == 5 * HOUR


def test_months_cut_to_the_dates_across_a_year_and_a_leap_february() -> None:
    assert months(dt.date(2027, 12, 15), dt.date(2028, 3, 2)) == [
        (dt.date(2027, 12, 15), dt.date(2027, 12, 31)),
        (dt.date(2028, 1, 1), dt.date(2028, 1, 31)),
        (dt.date(2028, 2, 1), dt.date(2028, 2, 29)),
        (dt.date(2028, 3, 1), dt.date(2028, 3, 2)),
    ]
    assert months(dt.date(2026, 6, 1), dt.date(2026, 6, 1)) == [(dt.date(2026, 6, 1), dt.date(2026, 6, 1))]
    assert len(months(dt.date(2028, 1, 1), dt.date(2028, 12, 31))) == 12
