"""Free ranges and raw availability."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from booking_core.availability import (
    AvailableRange,
    BookedSlot,
    available_ranges,
    available_ranges_until,
    raw_availability,
)
from booking_core.catalog import DynamicPricing, Resource
from booking_core.errors import ValidationFailed
from booking_core.rules import validate_booking
from booking_core.schedule import expand_windows
from booking_core.timerange import TimeRange, subtract
from tests.unit.builders import at, closure, on, resource, slot, span, weekly
from tests.unit.test_offered_is_accepted import Scenario, scenarios

MONDAY = dt.date(2026, 6, 1)
EARLIER = at(dt.date(2026, 5, 1), "09:00")
ZERO = Decimal(0)


def ranges(
    court: Resource,
    blocking: list[TimeRange] | None = None,
    now: dt.datetime = EARLIER,
    demand: Decimal = ZERO,
) -> list[AvailableRange]:
    return available_ranges(court, MONDAY, MONDAY, blocking=blocking or [], now=now, demand=demand)


def times(found: list[AvailableRange]) -> list[tuple[str, str]]:
    return [(r.start_time.strftime("%H:%M"), r.end_time.strftime("%H:%M")) for r in found]


def _refusal(
    court: Resource, booking: TimeRange, blocking: list[TimeRange] | None = None, now: dt.datetime = EARLIER
) -> ValidationFailed:
    with pytest.raises(ValidationFailed) as caught:
        validate_booking(court, booking, participant_count=1, blocking=blocking or [], now=now)
    return caught.value


def test_a_booking_in_the_middle_splits_the_window() -> None:
    court = resource(*weekly(slot("08:00", "22:00")))

    found = ranges(court, [span(MONDAY, "12:00", "13:30")])

    assert times(found) == [("08:00", "12:00"), ("13:30", "22:00")]
    assert found[0].date == MONDAY
    assert found[0].price_per_hour == Decimal("20.00")
    assert found[0].currency == "EUR"


def test_unavailable_periods_block_too() -> None:
    court = resource(
        *weekly(slot("08:00", "22:00")), unavailable_periods=(closure(MONDAY, "08:00", "12:00"),)
    )

    assert times(ranges(court)) == [("12:00", "22:00")]


def test_split_where_price_or_label_changes_not_elsewhere() -> None:
    court = resource(
        *weekly(
            slot("08:00", "12:00"),
            slot("12:00", "17:00"),
            slot("17:00", "20:00", price="30.00", label="Peak"),
            slot("20:00", "22:00", price="30.00"),
        )
    )

    found = ranges(court)

    assert times(found) == [("08:00", "17:00"), ("17:00", "20:00"), ("20:00", "22:00")]
    assert [(r.price_per_hour, r.label) for r in found] == [
        (Decimal("20.00"), ""),
        (Decimal("30.00"), "Peak"),
        (Decimal("30.00"), ""),
    ]


def test_split_at_local_midnight() -> None:
    court = resource(*weekly(slot("00:00", "00:00")))

    found = available_ranges(
        court, MONDAY, MONDAY + dt.timedelta(days=1), blocking=[], now=EARLIER, demand=ZERO
    )

    assert [(r.date, r.start_time, r.end_time) for r in found] == [
        (MONDAY, dt.time(0), dt.time(0)),
        (MONDAY + dt.timedelta(days=1), dt.time(0), dt.time(0)),
    ]


def test_lead_time_cut_moves_the_start_to_the_next_start_the_rules_accept() -> None:
    court = resource(*weekly(slot("08:00", "22:00")))
    advance = resource(*weekly(slot("08:00", "22:00")), min_advance_booking_minutes=60)
    now = at(MONDAY, "10:07")

    assert times(ranges(court, now=now)) == [("10:30", "22:00")]
    assert times(ranges(advance, now=now)) == [("11:30", "22:00")]
    assert ranges(court, now=at(MONDAY, "21:30")) == []


def test_no_range_starts_at_now_which_is_not_in_the_future() -> None:
    court = resource(*weekly(slot("08:00", "22:00")))
    now = at(MONDAY, "10:30")

    assert times(ranges(court, now=now)) == [("11:00", "22:00")]
    refused = _refusal(court, span(MONDAY, "10:30", "11:30"), now=now)
    assert refused.errors == {"start_datetime": ["Start time must be in the future."]}


def test_a_range_after_a_booking_begins_at_an_aligned_start() -> None:
    court = resource(*weekly(slot("08:00", "22:00")))

    found = ranges(court, [span(MONDAY, "08:00", "10:15")], now=at(MONDAY, "10:07"))

    assert times(found) == [("10:30", "22:00")]


def test_starts_up_to_the_advance_limit_are_offered_with_the_bookings_from_them() -> None:
    court = resource(
        *weekly(slot("08:00", "22:00")), max_advance_booking_days=1, max_booking_duration_minutes=120
    )
    now = at(MONDAY - dt.timedelta(days=1), "15:00:42")

    assert times(ranges(court, now=now)) == [("08:00", "17:00")]
    validate_booking(court, span(MONDAY, "15:00", "17:00"), participant_count=1, blocking=[], now=now)
    assert _refusal(court, span(MONDAY, "15:30", "16:30"), now=now).field == "start_datetime"


def test_a_block_cut_short_by_the_advance_limit_is_still_offered() -> None:
    # the limit falls at 15:10, 20 minutes into a two-hour block: the start at 15:00 is accepted
    court = resource(
        *weekly(slot("08:00", "22:00")), max_advance_booking_days=1, min_booking_duration_minutes=120
    )
    now = at(MONDAY - dt.timedelta(days=1), "15:10")
    blocking = [span(MONDAY, "08:00", "15:00"), span(MONDAY, "17:00", "22:00")]

    assert times(ranges(court, blocking, now=now)) == [("15:00", "17:00")]


def test_ranges_shorter_than_the_minimum_booking_are_left_out() -> None:
    court = resource(*weekly(slot("08:00", "22:00")), min_booking_duration_minutes=60)

    found = ranges(court, [span(MONDAY, "08:30", "12:00"), span(MONDAY, "13:00", "21:15")])

    assert times(found) == [("12:00", "13:00")]


def test_a_short_piece_beside_a_price_change_stays_when_its_block_is_long_enough() -> None:
    court = resource(*weekly(slot("08:00", "17:00"), slot("17:00", "22:00", price="30.00")))
    taken = [span(MONDAY, "08:00", "16:30"), span(MONDAY, "17:30", "22:00")]

    found = ranges(court, taken)

    # 16:30-17:30 is accepted; 17:00-17:30 at 30.00 is booked from 16:30, as no booking starts there
    assert times(found) == [("16:30", "17:00")]
    validate_booking(court, span(MONDAY, "16:30", "17:30"), participant_count=1, blocking=taken, now=EARLIER)
    assert "at least 60 minutes" in _refusal(court, span(MONDAY, "17:00", "17:30"), taken).message


def test_slot_prices_are_null_without_dynamic_pricing() -> None:
    court = resource(*weekly(slot("08:00", "10:00")))

    assert ranges(court)[0].slot_prices is None


def test_slot_prices_list_every_aligned_start_with_the_dynamic_price() -> None:
    pricing = DynamicPricing(enabled=True, min_price=Decimal("10.00"), max_price=Decimal("40.00"))
    court = resource(
        *weekly(slot("08:00", "10:00"), slot("10:00", "11:00", price="30.00")), dynamic_pricing=pricing
    )

    found = ranges(court, demand=Decimal("0.5"), blocking=[span(MONDAY, "08:00", "08:15")])

    assert times(found) == [("08:30", "10:00"), ("10:00", "11:00")]
    assert found[0].slot_prices == {
        "08:30": Decimal("22.50"),
        "09:00": Decimal("22.50"),
        "09:30": Decimal("22.50"),
    }
    assert found[0].price_per_hour == Decimal("22.50")
    assert found[1].slot_prices == {"10:00": Decimal("33.75"), "10:30": Decimal("33.75")}


def test_raw_availability_keeps_what_overlaps_the_dates() -> None:
    court = resource(
        *weekly(slot("08:00", "22:00")),
        unavailable_periods=(
            closure(MONDAY, "08:00", "09:00"),
            closure(MONDAY + dt.timedelta(days=3), "08:00", "09:00"),
        ),
    )
    inside = BookedSlot(start=at(MONDAY, "12:00"), end=at(MONDAY, "13:00"), booking_id="b")
    early = BookedSlot(start=at(MONDAY, "10:00"), end=at(MONDAY, "11:00"), booking_id="a")
    two_days = dt.timedelta(days=2)
    later = BookedSlot(
        start=at(MONDAY, "12:00") + two_days, end=at(MONDAY, "13:00") + two_days, booking_id="c"
    )

    raw = raw_availability(court, MONDAY, MONDAY, booked=[inside, later, early])

    assert len(raw.windows) == 1
    assert [b.booking_id for b in raw.booked_slots] == ["a", "b"]
    assert [p.start for p in raw.unavailable_periods] == [at(MONDAY, "08:00")]
    assert raw_availability(court, MONDAY, MONDAY - dt.timedelta(days=1), booked=[inside]).windows == []


@st.composite
def bookings(draw: st.DrawFn) -> list[TimeRange]:
    spans = []
    for _ in range(draw(st.integers(0, 8))):
        start = draw(st.integers(6 * 60, 23 * 60))
        length = draw(st.integers(15, 180))
        base = at(MONDAY, "00:00")
        spans.append(
            TimeRange(base + dt.timedelta(minutes=start), base + dt.timedelta(minutes=start + length))
        )
    return spans


@given(blocking=bookings(), minimum=st.sampled_from([30, 60, 90]))
def test_ranges_are_free_window_time_and_sorted(blocking: list[TimeRange], minimum: int) -> None:
    court = resource(
        *weekly(
            slot("07:00", "12:00"),
            slot("12:00", "18:00", price="25.00"),
            slot("18:00", "23:00", price="30.00"),
        ),
        min_booking_duration_minutes=minimum,
    )
    windows = [w.range for w in expand_windows(court, MONDAY, MONDAY)]

    found = ranges(court, blocking)

    free = subtract(windows, blocking)
    assert all(any(f.contains(r.range) for f in free) for r in found)
    assert all(a.range.end <= b.range.start for a, b in pairwise(found))
    for block in free:
        inside = [r for r in found if block.contains(r.range)]
        assert not inside or block.minutes >= minimum


@given(
    blocking=bookings(),
    interval=st.sampled_from([15, 30, 60]),
    minimum=st.sampled_from([30, 60, 90]),
    lead=st.integers(0, 240),
    ahead_days=st.integers(0, 3),
    now_minutes=st.integers(-2 * 24 * 60, 2 * 24 * 60),
    now_seconds=st.integers(0, 59),
    later=st.lists(st.floats(0, 1, exclude_max=True), min_size=1, max_size=6),
    day=st.sampled_from([MONDAY, dt.date(2026, 3, 29), dt.date(2026, 10, 25)]),  # and both DST days
)
def test_ranges_stay_the_same_until_the_instant_given(
    blocking: list[TimeRange],
    interval: int,
    minimum: int,
    lead: int,
    ahead_days: int,
    now_minutes: int,
    now_seconds: int,
    later: list[float],
    day: dt.date,
) -> None:
    shift = at(day, "00:00") - at(MONDAY, "00:00")
    blocking = [TimeRange(b.start + shift, b.end + shift) for b in blocking]
    court = resource(
        *weekly(slot("01:00", "12:00"), slot("12:00", "23:30", price="25.00")),
        booking_interval_minutes=interval,
        min_booking_duration_minutes=minimum,
        min_advance_booking_minutes=lead,
        max_advance_booking_days=ahead_days,
    )
    # in UTC, so that the moments below are instants apart, not wall-clock times
    now = (at(day, "00:00") + dt.timedelta(minutes=now_minutes, seconds=now_seconds)).astimezone(dt.UTC)
    days = (day - dt.timedelta(days=1), day + dt.timedelta(days=1))

    found, until = available_ranges_until(court, *days, blocking=blocking, now=now, demand=ZERO)

    assert found == available_ranges(court, *days, blocking=blocking, now=now, demand=ZERO)
    assert until > now or until == now
    last = until - dt.timedelta(microseconds=1)
    # (timedelta * float rounds to microseconds, so a share near 1 could land on ``until`` itself)
    for moment in {min(now + (until - now) * share, last) for share in [*later, 0.0]} | {last}:
        if moment >= now:
            assert available_ranges(court, *days, blocking=blocking, now=moment, demand=ZERO) == found


def test_the_instant_given_is_when_the_lead_time_cut_moves_on() -> None:
    court = resource(
        *weekly(slot("08:00", "22:00")), booking_interval_minutes=30, min_advance_booking_minutes=60
    )
    now = at(MONDAY, "09:10")
    _found, until = available_ranges_until(court, MONDAY, MONDAY, blocking=[], now=now, demand=ZERO)
    # the cut 10:10 starts the free time at 10:30; from 09:30 on it would start at 11:00
    assert until == at(MONDAY, "09:30")
    assert times(ranges(court, now=until + dt.timedelta(seconds=1))) == [("11:00", "22:00")]


# The cases of issue 12: each was offered differently from what the rules accept.

TUESDAY, WEDNESDAY = MONDAY + dt.timedelta(days=1), MONDAY + dt.timedelta(days=2)
LORD_HOWE = "Australia/Lord_Howe"


def _across_midnight(wednesday_until: str) -> Resource:
    """Open Tuesday 20:00-24:00 and Wednesday from 00:00, with a 120-minute minimum."""
    return resource(
        on(TUESDAY, slot("20:00", "00:00")),
        on(WEDNESDAY, slot("00:00", wednesday_until)),
        min_booking_duration_minutes=120,
    )


def dated(
    court: Resource, first: dt.date, last: dt.date, taken: list[TimeRange]
) -> list[tuple[dt.date, str, str]]:
    found = available_ranges(court, first, last, blocking=taken, now=EARLIER, demand=ZERO)
    return [(r.date, *times([r])[0]) for r in found]


def test_a_free_block_across_midnight_is_measured_whole_whatever_the_dates_asked() -> None:
    court, taken = _across_midnight("02:00"), [span(TUESDAY, "20:00", "23:00")]

    both = [(TUESDAY, "23:00", "00:00"), (WEDNESDAY, "00:00", "02:00")]
    assert dated(court, TUESDAY, WEDNESDAY, taken) == both
    assert dated(court, TUESDAY, TUESDAY, taken) == both[:1]
    assert dated(court, WEDNESDAY, WEDNESDAY, taken) == both[1:]
    booking = TimeRange(at(TUESDAY, "23:00"), at(WEDNESDAY, "01:00"))
    validate_booking(court, booking, participant_count=1, blocking=taken, now=EARLIER)


def test_a_range_after_a_price_change_starts_at_the_first_start_the_rules_accept() -> None:
    pricing = DynamicPricing(enabled=True, min_price=Decimal("10.00"), max_price=Decimal("40.00"))
    court = resource(
        *weekly(slot("08:00", "17:00"), slot("17:00", "22:00", price="30.00", label="Peak")),
        prevent_unbookable_gaps=True,
        dynamic_pricing=pricing,
    )
    taken = [span(MONDAY, "08:00", "16:30")]

    found = ranges(court, taken)

    # from 17:00 a booking would leave a 30-minute gap, so the Peak range starts at 17:30
    assert times(found) == [("16:30", "17:00"), ("17:30", "22:00")]
    assert "30-minute gap" in _refusal(court, span(MONDAY, "17:00", "18:00"), taken).message
    for offered in found:
        validate_booking(
            court,
            TimeRange(offered.range.start, offered.range.start + dt.timedelta(hours=1)),
            participant_count=1,
            blocking=taken,
            now=EARLIER,
        )
    # slot prices cover the range offered, not the time before its start
    assert found[1].slot_prices is not None
    assert list(found[1].slot_prices) == [
        "17:30", "18:00", "18:30", "19:00", "19:30", "20:00", "20:30", "21:00", "21:30"
    ]  # fmt: skip


def test_a_free_block_across_midnight_offers_only_the_date_where_a_booking_can_start() -> None:
    court, taken = _across_midnight("01:00"), [span(TUESDAY, "20:00", "23:00")]

    # 23:00-01:00 is the one booking; nothing on Wednesday can start one
    assert dated(court, TUESDAY, WEDNESDAY, taken) == [(TUESDAY, "23:00", "00:00")]
    assert dated(court, WEDNESDAY, WEDNESDAY, taken) == []
    booking = TimeRange(at(TUESDAY, "23:00"), at(WEDNESDAY, "01:00"))
    validate_booking(court, booking, participant_count=1, blocking=taken, now=EARLIER)


def test_the_dates_look_far_enough_ahead_for_the_gap_rule() -> None:
    # 23:15 to 00:45 leaves 2h15 after it; seen only to 01:00, the block would seem to leave 15 minutes
    court = resource(
        on(TUESDAY, slot("20:00", "00:00")),
        on(WEDNESDAY, slot("00:00", "03:00")),
        booking_interval_minutes=45,
        prevent_unbookable_gaps=True,
    )
    taken = [span(TUESDAY, "20:00", "23:15")]

    found = available_ranges(court, TUESDAY, TUESDAY, blocking=taken, now=EARLIER, demand=ZERO)

    assert times(found) == [("23:15", "00:00")]
    booking = TimeRange(at(TUESDAY, "23:15"), at(WEDNESDAY, "00:45"))
    validate_booking(court, booking, participant_count=1, blocking=taken, now=EARLIER)


def test_no_range_where_the_gap_rule_and_the_maximum_leave_nothing_bookable() -> None:
    court = resource(
        *weekly(slot("08:00", "11:00")),
        min_booking_duration_minutes=120,
        max_booking_duration_minutes=120,
        prevent_unbookable_gaps=True,
    )

    assert ranges(court) == []
    assert "60-minute gap" in _refusal(court, span(MONDAY, "08:00", "10:00")).message
    assert "60-minute gap" in _refusal(court, span(MONDAY, "09:00", "11:00")).message


def test_no_range_where_alignment_and_the_gap_rule_leave_nothing_bookable() -> None:
    rules = {"booking_interval_minutes": 60, "min_booking_duration_minutes": 60}
    gaps = resource(*weekly(slot("10:15", "12:45")), prevent_unbookable_gaps=True, **rules)
    no_gaps = resource(*weekly(slot("10:15", "12:45")), **rules)

    assert ranges(gaps) == []
    assert "45-minute gap" in _refusal(gaps, span(MONDAY, "11:00", "12:00")).message
    # without the gap rule one booking fits, and the range is that booking: ends align too
    assert times(ranges(no_gaps)) == [("11:00", "12:00")]


def test_a_range_ends_where_an_aligned_booking_can_end() -> None:
    court = resource(*weekly(slot("08:00", "12:40")))

    assert times(ranges(court)) == [("08:00", "12:30")]
    assert _refusal(court, span(MONDAY, "11:30", "12:40")).errors == {
        "non_field_errors": ["End time must align to the 30-minute booking interval."]
    }


def test_a_start_in_the_repeated_hour_is_offered_on_both_sides_of_the_change() -> None:
    # Lord Howe falls back 30 minutes at 02:00 to 01:30: 01:30 comes twice, both aligned
    fall_back = dt.date(2026, 4, 5)
    court = resource(
        on(fall_back, slot("01:00", "03:00")),
        tz=LORD_HOWE,
        booking_interval_minutes=30,
        min_booking_duration_minutes=30,
        max_booking_duration_minutes=30,
    )
    # in UTC: an instant in the repeated time never equals one written in another zone (PEP 495)
    first = at(fall_back, "01:30", LORD_HOWE).astimezone(dt.UTC)
    second = at(fall_back, "01:30", LORD_HOWE, fold=1).astimezone(dt.UTC)
    now = at(fall_back - dt.timedelta(days=1), "09:00", LORD_HOWE)

    found = available_ranges(court, fall_back, fall_back, blocking=[first_hour(first)], now=now, demand=ZERO)

    assert [r.range.start for r in found] == [second]
    assert found[0].range.end == at(fall_back, "03:00", LORD_HOWE)
    validate_booking(
        court,
        TimeRange(second, second + dt.timedelta(minutes=30)),
        participant_count=1,
        blocking=[first_hour(first)],
        now=now,
    )


def first_hour(first_half_past_one: dt.datetime) -> TimeRange:
    """From 01:00 to the first 01:30 and on to the clock change, 30 minutes later."""
    half_hour = dt.timedelta(minutes=30)
    return TimeRange(first_half_past_one - half_hour, first_half_past_one + half_hour)


@given(case=scenarios(), shares=st.lists(st.floats(0, 1, exclude_max=True), min_size=1, max_size=5))
def test_ranges_stay_the_same_until_the_instant_given_whatever_the_rules(
    case: Scenario, shares: list[float]
) -> None:
    """The cache's guarantee, over the scenarios of the properties that offered is accepted."""
    first, last = case.dates[0], case.dates[-1]
    blocking, now = list(case.blocking), case.now.astimezone(dt.UTC)

    found, until = available_ranges_until(case.resource, first, last, blocking=blocking, now=now, demand=ZERO)

    assert until is None or until >= now
    # with nothing in sight, any time up to two days past the last date
    horizon = until or dt.datetime.combine(last + dt.timedelta(days=3), dt.time(0), case.tz)
    for share in shares:
        moment = min(now + (horizon - now) * share, horizon - dt.timedelta(microseconds=1))
        if moment >= now:
            later = available_ranges(case.resource, first, last, blocking=blocking, now=moment, demand=ZERO)
            assert later == found, moment
