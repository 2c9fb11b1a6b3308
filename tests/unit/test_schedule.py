"""Schedules expanded into windows: selection rules and clock changes."""

from __future__ import annotations

import datetime as dt
from itertools import pairwise
from zoneinfo import ZoneInfo

from hypothesis import given
from hypothesis import strategies as st

from booking_core.catalog import Schedule
from booking_core.localtime import aligned_instants, is_aligned, local_instant, next_aligned
from booking_core.schedule import expand_windows, schedule_for_date
from tests.unit.builders import BERLIN, NEW_YORK, at, on, resource, slot, utc, weekly

MONDAY = dt.date(2026, 6, 1)
BERLIN_SPRING, BERLIN_AUTUMN = dt.date(2026, 3, 29), dt.date(2026, 10, 25)
NY_SPRING, NY_AUTUMN = dt.date(2026, 3, 8), dt.date(2026, 11, 1)
LORD_HOWE = "Australia/Lord_Howe"


def hours(day: dt.date, *slots_: tuple[str, str], tz: str = BERLIN) -> list[float]:
    court = resource(*weekly(*(slot(a, b) for a, b in slots_)), tz=tz)
    return [w.range.duration / dt.timedelta(hours=1) for w in expand_windows(court, day, day)]


def test_windows_of_a_plain_day_in_utc() -> None:
    court = resource(*weekly(slot("08:00", "12:00"), slot("17:00", "22:00", label="Peak")))

    windows = expand_windows(court, MONDAY, MONDAY)

    assert [(w.range.start, w.range.end) for w in windows] == [
        (utc(2026, 6, 1, 6), utc(2026, 6, 1, 10)),
        (utc(2026, 6, 1, 15), utc(2026, 6, 1, 20)),
    ]
    assert [w.label for w in windows] == ["", "Peak"]
    assert windows[0].start_time == dt.time(8)
    assert windows[0].end_time == dt.time(12)


def test_midnight_end_means_end_of_day_and_days_are_sorted() -> None:
    court = resource(*weekly(slot("18:00", "00:00")))

    windows = expand_windows(court, MONDAY, MONDAY + dt.timedelta(days=2))

    assert [w.date for w in windows] == [MONDAY + dt.timedelta(days=n) for n in range(3)]
    assert windows[0].range.end == at(MONDAY + dt.timedelta(days=1), "00:00")
    assert windows[0].end_time == dt.time(0)


def test_berlin_spring_forward_covers_the_hours_that_exist() -> None:
    assert hours(BERLIN_SPRING, ("01:00", "04:00")) == [2.0]
    court = resource(*weekly(slot("01:00", "04:00")))
    window = expand_windows(court, BERLIN_SPRING, BERLIN_SPRING)[0]
    assert window.range.start == at(BERLIN_SPRING, "01:00")  # 01:00+01:00
    assert window.range.end == at(BERLIN_SPRING, "04:00")  # 04:00+02:00
    assert window.range.end.astimezone(ZoneInfo(BERLIN)).utcoffset() == dt.timedelta(hours=2)


def test_berlin_window_starting_in_the_skipped_hour_starts_when_clocks_resume() -> None:
    court = resource(*weekly(slot("02:30", "05:00")))

    window = expand_windows(court, BERLIN_SPRING, BERLIN_SPRING)[0]

    assert window.range.start == utc(2026, 3, 29, 1)  # 03:00+02:00
    assert window.start_time == dt.time(3)
    assert window.range.minutes == 120


def test_window_inside_the_skipped_hour_is_empty_and_left_out() -> None:
    assert hours(BERLIN_SPRING, ("02:00", "03:00"), ("08:00", "09:00")) == [1.0]


def test_berlin_fall_back_counts_the_repeated_hour_once_each_time() -> None:
    assert hours(BERLIN_AUTUMN, ("01:00", "04:00")) == [4.0]


def test_berlin_fall_back_windows_of_a_day_do_not_overlap() -> None:
    court = resource(*weekly(slot("01:00", "02:30"), slot("02:30", "04:00", price="30.00")))

    first, second = expand_windows(court, BERLIN_AUTUMN, BERLIN_AUTUMN)

    assert first.range.end == second.range.start
    assert (first.range.minutes, second.range.minutes) == (90, 150)


def test_new_york_clock_changes() -> None:
    assert hours(NY_SPRING, ("01:00", "04:00"), tz=NEW_YORK) == [2.0]
    assert hours(NY_AUTUMN, ("01:00", "04:00"), tz=NEW_YORK) == [4.0]
    assert hours(NY_AUTUMN, ("00:00", "00:00"), tz=NEW_YORK) == [25.0]
    assert hours(NY_SPRING, ("00:00", "00:00"), tz=NEW_YORK) == [23.0]


def test_specific_date_overrides_recurring() -> None:
    court = resource(*weekly(slot("08:00", "22:00"), priority=5), on(MONDAY, slot("10:00", "12:00")))

    assert [w.start_time for w in expand_windows(court, MONDAY, MONDAY)] == [dt.time(10)]
    assert [
        w.start_time
        for w in expand_windows(court, MONDAY + dt.timedelta(days=7), MONDAY + dt.timedelta(days=7))
    ] == [dt.time(8)]


def test_empty_specific_date_closes_the_day_and_inactive_one_is_ignored() -> None:
    closed = resource(*weekly(slot("08:00", "22:00")), on(MONDAY))
    ignored = resource(*weekly(slot("08:00", "22:00")), on(MONDAY, is_active=False))

    assert expand_windows(closed, MONDAY, MONDAY) == []
    assert len(expand_windows(ignored, MONDAY, MONDAY)) == 1


def test_highest_priority_wins_then_lowest_id() -> None:
    low = Schedule(id=1, day_of_week=1, priority=0, time_slots=(slot("08:00", "10:00"),))
    high = Schedule(id=2, day_of_week=1, priority=3, time_slots=(slot("12:00", "14:00"),))
    tie = Schedule(id=3, day_of_week=1, priority=3, time_slots=(slot("16:00", "18:00"),))

    found = schedule_for_date(resource(tie, low, high), MONDAY)
    assert found is not None
    assert found.id == high.id
    assert schedule_for_date(resource(low), MONDAY + dt.timedelta(days=1)) is None


def test_validity_range_of_a_recurring_schedule() -> None:
    summer = weekly(
        slot("06:00", "22:00"), start_date=dt.date(2026, 6, 8), end_date=dt.date(2026, 6, 14), priority=1
    )
    court = resource(*weekly(slot("08:00", "20:00")), *summer)

    starts = {w.date: w.start_time for w in expand_windows(court, MONDAY, MONDAY + dt.timedelta(days=20))}

    assert starts[dt.date(2026, 6, 7)] == dt.time(8)
    assert starts[dt.date(2026, 6, 8)] == dt.time(6)
    assert starts[dt.date(2026, 6, 14)] == dt.time(6)
    assert starts[dt.date(2026, 6, 15)] == dt.time(8)


def test_non_bookable_slots_are_closed_time() -> None:
    court = resource(
        *weekly(slot("08:00", "12:00"), slot("12:00", "13:00", is_bookable=False), slot("13:00", "18:00"))
    )

    windows = expand_windows(court, MONDAY, MONDAY)

    assert [(w.start_time, w.end_time) for w in windows] == [
        (dt.time(8), dt.time(12)),
        (dt.time(13), dt.time(18)),
    ]


@given(
    day=st.dates(dt.date(2025, 1, 1), dt.date(2027, 12, 31)),
    first=st.integers(0, 1439),
    second=st.integers(0, 1439),
    tz=st.sampled_from([BERLIN, NEW_YORK, "Australia/Lord_Howe"]),
)
def test_local_instant_never_runs_backwards(day: dt.date, first: int, second: int, tz: str) -> None:
    early, late = sorted((first, second))
    zone = ZoneInfo(tz)

    a = local_instant(day, dt.time(early // 60, early % 60), zone)
    b = local_instant(day, dt.time(late // 60, late % 60), zone)

    assert a <= b


@given(
    instant=st.datetimes(dt.datetime(2026, 1, 1), dt.datetime(2026, 12, 31), timezones=st.just(dt.UTC)),
    interval=st.sampled_from([15, 30, 45, 60, 7, 90]),
    tz=st.sampled_from([BERLIN, NEW_YORK]),
)
def test_next_aligned_is_the_first_aligned_minute(instant: dt.datetime, interval: int, tz: str) -> None:
    zone = ZoneInfo(tz)

    found = next_aligned(instant, zone, interval)

    assert found >= instant
    assert is_aligned(found, zone, interval)
    minute = instant.replace(second=0, microsecond=0)
    if minute < instant:
        minute += dt.timedelta(minutes=1)
    while minute < found:
        assert not is_aligned(minute, zone, interval)
        minute += dt.timedelta(minutes=1)


CLOCK_CHANGES = [
    (BERLIN, dt.date(2026, 3, 29)),
    (BERLIN, dt.date(2026, 10, 25)),
    (NEW_YORK, dt.date(2026, 3, 8)),
    (NEW_YORK, dt.date(2026, 11, 1)),
    (LORD_HOWE, dt.date(2026, 4, 5)),
    (LORD_HOWE, dt.date(2026, 10, 4)),
]


@given(
    change=st.sampled_from(CLOCK_CHANGES),
    interval=st.sampled_from([15, 30, 45, 50, 60, 7, 90, 1440]),
    first=st.integers(-24 * 60, 48 * 60),
    length=st.integers(0, 36 * 60),
    seconds=st.sampled_from([0, 0, 30]),
)
def test_aligned_instants_are_every_aligned_minute_across_a_clock_change(
    change: tuple[str, dt.date], interval: int, first: int, length: int, seconds: int
) -> None:
    tz, day = ZoneInfo(change[0]), change[1]
    start = dt.datetime.combine(day, dt.time(0), tz).astimezone(dt.UTC) + dt.timedelta(
        minutes=first, seconds=seconds
    )
    end = start + dt.timedelta(minutes=length)

    found = aligned_instants(start, end, tz, interval)

    minute = start + dt.timedelta(seconds=(60 - seconds) % 60)
    expected = []
    while minute <= end:
        if is_aligned(minute, tz, interval):
            expected.append(minute)
        minute += dt.timedelta(minutes=1)
    assert found == expected
    assert all(next_aligned(a + dt.timedelta(seconds=1), tz, interval) == b for a, b in pairwise(found))
    if found:
        assert next_aligned(start, tz, interval) == found[0]
