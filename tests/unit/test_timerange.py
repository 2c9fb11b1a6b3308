"""Properties of the range set operations, checked against a minute-by-minute model."""

from __future__ import annotations

import datetime as dt
from itertools import pairwise
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from booking_core.timerange import TimeRange, intersect, merge, subtract

BASE = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)
ZONES = [dt.UTC, ZoneInfo("Europe/Berlin"), ZoneInfo("America/New_York"), dt.timezone(dt.timedelta(hours=5))]


@st.composite
def ranges(draw: st.DrawFn) -> TimeRange:
    start = draw(st.integers(0, 240))
    length = draw(st.integers(0, 60))
    tz = draw(st.sampled_from(ZONES))
    return TimeRange(
        (BASE + dt.timedelta(minutes=start)).astimezone(tz),
        (BASE + dt.timedelta(minutes=start + length)).astimezone(tz),
    )


range_lists = st.lists(ranges(), max_size=12)


def minutes(rs: list[TimeRange]) -> set[int]:
    """The minutes (from BASE) covered by ``rs``."""
    covered: set[int] = set()
    for r in rs:
        covered.update(
            range((r.start - BASE) // dt.timedelta(minutes=1), (r.end - BASE) // dt.timedelta(minutes=1))
        )
    return covered


def assert_sorted_disjoint(rs: list[TimeRange]) -> None:
    assert all(not r.is_empty for r in rs)
    assert all(a.end < b.start for a, b in pairwise(rs))


@given(range_lists, range_lists)
def test_subtract_is_windows_minus_removed(windows: list[TimeRange], removed: list[TimeRange]) -> None:
    result = subtract(windows, removed)

    assert_sorted_disjoint(result)
    # an empty range holds no instant (TimeRange.overlaps reports it as overlapping: skip it)
    assert not any(r.overlaps(cut) for r in result for cut in removed if not cut.is_empty)
    assert all(any(block.contains(r) for block in merge(windows)) for r in result)
    assert minutes(result) == minutes(windows) - minutes(removed)


@given(range_lists, range_lists)
def test_subtract_and_blocked_part_cover_the_windows_exactly(
    windows: list[TimeRange], removed: list[TimeRange]
) -> None:
    free, blocked = subtract(windows, removed), intersect(windows, removed)

    assert not any(f.overlaps(b) for f in free for b in blocked)
    assert merge(free + blocked) == merge(windows)
    assert sum((r.duration for r in free + blocked), dt.timedelta()) == sum(
        (r.duration for r in merge(windows)), dt.timedelta()
    )


@given(range_lists)
def test_merge_is_idempotent_and_keeps_the_minutes(rs: list[TimeRange]) -> None:
    once = merge(rs)

    assert merge(once) == once
    assert minutes(once) == minutes(rs)
    assert all(a.end < b.start for a, b in pairwise(once))


@given(range_lists, range_lists)
def test_intersect_commutes_and_matches_the_model(left: list[TimeRange], right: list[TimeRange]) -> None:
    assert intersect(left, right) == intersect(right, left)
    assert minutes(intersect(left, right)) == minutes(left) & minutes(right)


def test_duration_is_real_time_across_a_dst_change() -> None:
    berlin = ZoneInfo("Europe/Berlin")
    spring = TimeRange(dt.datetime(2026, 3, 29, 1, tzinfo=berlin), dt.datetime(2026, 3, 29, 4, tzinfo=berlin))
    autumn = TimeRange(
        dt.datetime(2026, 10, 25, 1, tzinfo=berlin), dt.datetime(2026, 10, 25, 4, tzinfo=berlin)
    )

    assert spring.minutes == 120
    assert autumn.minutes == 240


def test_order_is_real_time_in_a_repeated_hour() -> None:
    berlin = ZoneInfo("Europe/Berlin")
    first = TimeRange(
        dt.datetime(2026, 10, 25, 2, 30, tzinfo=berlin), dt.datetime(2026, 10, 25, 2, 40, tzinfo=berlin)
    )
    second = TimeRange(
        dt.datetime(2026, 10, 25, 2, 15, fold=1, tzinfo=berlin),
        dt.datetime(2026, 10, 25, 2, 20, fold=1, tzinfo=berlin),
    )

    assert merge([second, first]) == [first, second]
    assert not first.overlaps(second)


def test_naive_or_reversed_ranges_are_refused() -> None:
    with pytest.raises(ValueError, match="aware"):
        TimeRange(dt.datetime(2026, 1, 1), dt.datetime(2026, 1, 2))
    with pytest.raises(ValueError, match="before"):
        TimeRange(BASE, BASE - dt.timedelta(minutes=1))
