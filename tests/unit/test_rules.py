"""The booking rules, one example per rule, and properties of the gap rule."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from booking_core.bookable import gap_violation
from booking_core.catalog import Resource
from booking_core.claims import neighbourhood
from booking_core.errors import SlotUnavailable, ValidationFailed
from booking_core.rules import booking_span, validate_booking
from booking_core.schedule import expand_windows
from booking_core.timerange import TimeRange, subtract
from tests.unit.builders import at, closure, resource, slot, span, weekly

MONDAY = dt.date(2026, 6, 1)
EARLIER = at(MONDAY - dt.timedelta(days=7), "09:00")
RULES: dict[str, Any] = {
    "booking_interval_minutes": 30,
    "min_booking_duration_minutes": 60,
    "max_booking_duration_minutes": 180,
    "prevent_unbookable_gaps": True,
    "capacity": 4,
}


def court(*slots: Any, **fields: Any) -> Resource:
    return resource(*weekly(*(slots or (slot("08:00", "22:00"),))), **(RULES | fields))


def check(
    resource_: Resource,
    booking: TimeRange,
    blocking: list[TimeRange] | None = None,
    *,
    participants: int = 1,
    now: dt.datetime = EARLIER,
) -> None:
    validate_booking(resource_, booking, participant_count=participants, blocking=blocking or [], now=now)


def refusal(resource_: Resource, booking: TimeRange, *args: Any, **kwargs: Any) -> ValidationFailed:
    with pytest.raises(ValidationFailed) as caught:
        check(resource_, booking, *args, **kwargs)
    return caught.value


def test_a_plain_booking_is_accepted() -> None:
    check(court(), span(MONDAY, "10:00", "11:30"))


def test_end_must_follow_start() -> None:
    assert refusal(court(), span(MONDAY, "10:00", "10:00")).errors == {
        "end_datetime": ["End time must be after start time."]
    }
    with pytest.raises(ValidationFailed) as caught:
        booking_span(at(MONDAY, "11:00"), at(MONDAY, "10:00"))
    assert caught.value.field == "end_datetime"
    with pytest.raises(ValidationFailed) as caught:
        booking_span(dt.datetime(2026, 6, 1, 10), at(MONDAY, "11:00"))
    assert caught.value.field == "start_datetime"
    assert booking_span(at(MONDAY, "10:00"), at(MONDAY, "11:00")).minutes == 60


def test_start_aligns_to_the_interval_on_the_local_clock() -> None:
    error = refusal(court(), span(MONDAY, "10:15", "11:15"))
    assert error.errors == {
        "non_field_errors": ["Start time must align to the booking interval of 30 minutes."]
    }
    assert refusal(court(), TimeRange(at(MONDAY, "10:00:30"), at(MONDAY, "11:30"))).field is None

    kolkata = court(booking_interval_minutes=60, tz="Asia/Kolkata")  # UTC+05:30
    check(kolkata, span(MONDAY, "10:00", "11:00", tz="Asia/Kolkata"))
    assert "align" in refusal(kolkata, span(MONDAY, "10:30", "11:30", tz="Asia/Kolkata")).message


def test_start_must_be_in_the_future_within_the_advance_limits() -> None:
    past = refusal(court(), span(MONDAY, "10:00", "11:00"), now=at(MONDAY, "10:00"))
    assert past.errors == {"start_datetime": ["Start time must be in the future."]}

    soon = refusal(
        court(min_advance_booking_minutes=120), span(MONDAY, "10:00", "11:00"), now=at(MONDAY, "08:30")
    )
    assert soon.errors == {"start_datetime": ["Bookings must be made at least 120 minutes in advance."]}

    far = refusal(court(max_advance_booking_days=6), span(MONDAY, "10:00", "11:00"))
    assert far.errors == {"start_datetime": ["Bookings can be made at most 6 days in advance."]}


def test_duration_limits() -> None:
    assert refusal(court(), span(MONDAY, "10:00", "10:30")).errors == {
        "non_field_errors": ["Booking must last at least 60 minutes."]
    }
    assert refusal(court(), span(MONDAY, "10:00", "13:30")).errors == {
        "non_field_errors": ["Booking may last at most 180 minutes."]
    }
    check(court(max_booking_duration_minutes=None), span(MONDAY, "10:00", "20:00"))


def test_duration_is_real_time_on_a_dst_day() -> None:
    night = court(slot("00:00", "00:00"), max_booking_duration_minutes=120)

    check(night, span(dt.date(2026, 3, 29), "01:00", "04:00"), now=at(dt.date(2026, 3, 20), "09:00"))


def test_participants_from_one_to_the_capacity_of_the_starting_slot() -> None:
    small = court(slot("08:00", "12:00", capacity_override=2), slot("12:00", "22:00"))

    assert refusal(court(), span(MONDAY, "10:00", "11:00"), participants=0).field == "participant_count"
    assert refusal(court(), span(MONDAY, "10:00", "11:00"), participants=5).errors == {
        "participant_count": ["At most 4 participants are allowed."]
    }
    assert refusal(small, span(MONDAY, "11:00", "13:00"), participants=3).field == "participant_count"
    check(small, span(MONDAY, "12:00", "13:00"), participants=4)


def test_booking_must_lie_inside_windows_touching_windows_count_as_one() -> None:
    split = court(slot("08:00", "12:00"), slot("12:00", "17:00", price="30.00"), slot("18:00", "22:00"))

    check(split, span(MONDAY, "11:00", "13:00"))
    with pytest.raises(SlotUnavailable):
        check(split, span(MONDAY, "16:30", "18:30"))
    with pytest.raises(SlotUnavailable):
        check(court(), span(MONDAY, "21:30", "22:30"))


def test_overlap_with_bookings_or_closures_is_refused() -> None:
    with pytest.raises(SlotUnavailable) as caught:
        check(court(), span(MONDAY, "10:00", "11:00"), [span(MONDAY, "10:30", "12:00")])
    assert caught.value.errors == {"non_field_errors": ["The requested time slot is not available."]}

    closed = court(unavailable_periods=(closure(MONDAY, "09:00", "10:30"),))
    with pytest.raises(SlotUnavailable):
        check(closed, span(MONDAY, "10:00", "11:00"))


def test_gap_message_names_the_gap_and_the_minimum() -> None:
    error = refusal(court(), span(MONDAY, "09:30", "10:30"), [span(MONDAY, "08:00", "09:00")])

    assert type(error) is ValidationFailed
    assert error.errors == {
        "non_field_errors": ["This booking would leave a 30-minute gap; the minimum booking is 60 minutes."]
    }


def test_gap_before_the_window_end_and_when_switched_off() -> None:
    assert "30-minute gap" in refusal(court(), span(MONDAY, "20:00", "21:30")).message
    check(court(prevent_unbookable_gaps=False), span(MONDAY, "20:00", "21:30"))


def test_gap_rule_does_not_apply_the_lead_time_cut() -> None:
    late_opening = court(slot("08:30", "22:00"))

    error = refusal(late_opening, span(MONDAY, "09:00", "10:00"), now=at(MONDAY, "08:45"))

    assert "30-minute gap" in error.message


def test_bookings_touching_existing_bookings_are_accepted() -> None:
    check(
        court(),
        span(MONDAY, "10:00", "11:00"),
        [span(MONDAY, "08:00", "10:00"), span(MONDAY, "11:00", "12:00")],
    )


@given(
    block_start=st.integers(0, 100),
    before=st.integers(0, 200),
    length=st.integers(1, 200),
    after=st.integers(0, 200),
    minimum=st.integers(1, 120),
)
def test_gap_violation_flags_exactly_the_short_nonzero_gaps(
    block_start: int, before: int, length: int, after: int, minimum: int
) -> None:
    base = at(MONDAY, "00:00") + dt.timedelta(minutes=block_start)
    minute = dt.timedelta(minutes=1)
    block = TimeRange(base, base + (before + length + after) * minute)
    booking = TimeRange(base + before * minute, base + (before + length) * minute)

    found = gap_violation(block, booking, minimum)

    short = [gap for gap in (before, after) if 0 < gap < minimum]
    assert found == (short[0] if short else None)


@st.composite
def day_of_bookings(draw: st.DrawFn) -> list[TimeRange]:
    base, spans = at(MONDAY, "00:00"), []
    for _ in range(draw(st.integers(0, 6))):
        start = draw(st.integers(14, 46)) * 30
        spans.append(
            TimeRange(
                base + dt.timedelta(minutes=start),
                base + dt.timedelta(minutes=start + 30 * draw(st.integers(1, 6))),
            )
        )
    return spans


@given(
    blocking=day_of_bookings(),
    start=st.integers(16, 44),
    steps=st.integers(1, 8),
    minimum=st.sampled_from([30, 60, 90]),
)
def test_an_accepted_booking_never_leaves_a_short_gap(
    blocking: list[TimeRange], start: int, steps: int, minimum: int
) -> None:
    rules = court(
        slot("08:00", "12:00"),
        slot("12:00", "13:00", is_bookable=False),
        slot("13:00", "18:00"),
        slot("18:00", "22:00", price="30.00"),
        min_booking_duration_minutes=minimum,
    )
    base = at(MONDAY, "00:00")
    booking = TimeRange(
        base + dt.timedelta(minutes=30 * start), base + dt.timedelta(minutes=30 * (start + steps))
    )
    try:
        check(rules, booking, blocking)
    except ValidationFailed:
        assume(False)

    windows = [w.range for w in expand_windows(rules, MONDAY, MONDAY)]
    left_over = subtract(windows, [*blocking, booking])
    touching = [r for r in left_over if booking.start == r.end or r.start == booking.end]
    assert all(r.minutes >= minimum for r in touching)


@given(first=st.integers(0, 20), length=st.integers(2, 6), tail=st.sampled_from([0, 2, 3, 4]))
def test_a_booking_exactly_between_others_is_accepted(first: int, length: int, tail: int) -> None:
    base, half_hour = at(MONDAY, "08:00"), dt.timedelta(minutes=30)
    existing = TimeRange(base, base + (1 + first) * half_hour)
    booking = TimeRange(existing.end, existing.end + length * half_hour)
    after = TimeRange(booking.end + tail * half_hour, booking.end + (tail + 2) * half_hour)
    assume(after.end <= at(MONDAY, "22:00"))

    check(court(), booking, [existing, after])


def _verdict(resource_: Resource, booking: TimeRange, blocking: list[TimeRange]) -> object:
    try:
        check(resource_, booking, blocking)
    except ValidationFailed as refused:
        return ("refused", refused.errors)
    except SlotUnavailable as taken:
        return ("taken", taken.message)
    return "accepted"


@given(
    blocking=day_of_bookings(),
    start=st.integers(16, 44),
    steps=st.integers(1, 8),
    minimum=st.sampled_from([30, 60, 90]),
    gap_rule=st.booleans(),
)
def test_bookings_outside_the_neighbourhood_never_change_the_verdict(
    blocking: list[TimeRange], start: int, steps: int, minimum: int, gap_rule: bool
) -> None:
    """Booking creation reads only the bookings that overlap its ``neighbourhood``; that must be enough."""
    rules = court(
        slot("08:00", "12:00"),
        slot("13:00", "22:00"),
        min_booking_duration_minutes=minimum,
        prevent_unbookable_gaps=gap_rule,
    )
    base = at(MONDAY, "00:00")
    booking = TimeRange(
        base + dt.timedelta(minutes=30 * start), base + dt.timedelta(minutes=30 * (start + steps))
    )
    near = neighbourhood(rules, booking).span
    seen = [b for b in blocking if b.overlaps(near)]
    assert _verdict(rules, booking, seen) == _verdict(rules, booking, blocking)
