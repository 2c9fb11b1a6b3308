"""Which booking rules hold for staff (CONTRACT 7.4): a rule set per kind of booking, and the check-in."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from decimal import Decimal

import pytest

from booking_core.availability import BookedSlot
from booking_core.booking import Booking, BookingStatus
from booking_core.catalog import Resource
from booking_core.claims import ClaimCheck
from booking_core.errors import InvalidTransition, SlotUnavailable, ValidationFailed
from booking_core.rules import CUSTOMER, OVERRIDE, STAFF, RuleSet, accept_move, validate_request
from booking_core.timerange import TimeRange
from tests.unit.builders import at, closure, resource, slot, span, weekly

MONDAY = dt.date(2026, 6, 1)
NOW = at(MONDAY, "09:40")


def court(**fields: object) -> Resource:
    rules = {
        "booking_interval_minutes": 30,
        "min_booking_duration_minutes": 60,
        "max_booking_duration_minutes": 180,
        "prevent_unbookable_gaps": True,
        "min_advance_booking_minutes": 120,
        "max_advance_booking_days": 30,
    }
    return resource(*weekly(slot("08:00", "22:00")), **(rules | fields))


def refused(rule_set: RuleSet, booking: TimeRange, resource_: Resource | None = None) -> ValidationFailed:
    with pytest.raises(ValidationFailed) as caught:
        validate_request(resource_ or court(), booking, participant_count=1, now=NOW, rule_set=rule_set)
    return caught.value


def accepted(rule_set: RuleSet, booking: TimeRange, resource_: Resource | None = None) -> TimeRange:
    return validate_request(resource_ or court(), booking, participant_count=1, now=NOW, rule_set=rule_set)


def test_staff_book_without_the_lead_time_but_never_in_the_past() -> None:
    soon = span(MONDAY, "10:00", "11:00")
    assert "start_datetime" in refused(CUSTOMER, soon).errors
    assert accepted(STAFF, soon) == span(MONDAY, "08:00", "22:00")
    for rule_set in (STAFF, OVERRIDE):
        past = refused(rule_set, span(MONDAY, "09:00", "10:00"))
        assert past.errors == {"start_datetime": ["Start time must be in the future."]}


def test_staff_keep_the_other_rules_and_an_override_skips_them() -> None:
    odd = span(MONDAY, "10:15", "10:45")  # unaligned and too short
    assert refused(STAFF, odd).errors
    far = span(MONDAY + dt.timedelta(days=60), "10:00", "11:00")  # beyond the advance window
    assert "start_datetime" in refused(STAFF, far).errors
    late = span(MONDAY, "22:00", "23:00")  # outside the opening hours
    with pytest.raises(SlotUnavailable):
        accepted(STAFF, late)
    for booking in (odd, far, late):
        assert accepted(OVERRIDE, booking) == booking
    crowd = replace(court(), capacity=2)
    with pytest.raises(ValidationFailed) as caught:
        validate_request(crowd, odd, participant_count=3, now=NOW, rule_set=OVERRIDE)
    assert "participant_count" in caught.value.errors


def test_no_rule_set_lets_a_booking_overlap_a_booking_or_closed_time() -> None:
    closed = court(unavailable_periods=(closure(MONDAY, "14:00", "15:00"),))
    for rule_set in (STAFF, OVERRIDE):
        booking = span(MONDAY, "13:00", "14:30")
        opening = accepted(rule_set, booking, closed)
        with pytest.raises(SlotUnavailable):
            accept_move(closed, booking, opening, rule_set=rule_set)(ClaimCheck(blocking=[]))
    taken = span(MONDAY, "12:00", "13:00")
    opening = accepted(OVERRIDE, span(MONDAY, "12:30", "13:30"))
    check = accept_move(court(), span(MONDAY, "12:30", "13:30"), opening, rule_set=OVERRIDE)
    from booking_core.availability import BookedSlot

    with pytest.raises(SlotUnavailable):
        check(ClaimCheck(blocking=[BookedSlot(start=taken.start, end=taken.end, booking_id="b")]))


def test_the_gap_rule_holds_for_staff_not_for_an_override() -> None:
    leaves_gap = span(MONDAY, "12:30", "13:30")  # 30 minutes left after a booking ending 12:00
    earlier = span(MONDAY, "11:00", "12:00")
    taken = [BookedSlot(start=earlier.start, end=earlier.end, booking_id="b")]
    opening = accepted(STAFF, leaves_gap)
    with pytest.raises(ValidationFailed, match="gap"):
        accept_move(court(), leaves_gap, opening, rule_set=STAFF)(ClaimCheck(blocking=taken))
    accept_move(court(), leaves_gap, leaves_gap, rule_set=OVERRIDE)(ClaimCheck(blocking=taken))


def _booking(**fields: object) -> Booking:
    start, end = at(MONDAY, "11:00"), at(MONDAY, "12:00")
    values: dict[str, object] = {
        "id": "b1",
        "reference_code": "ABCDEFGH",
        "resource_id": 1,
        "user_id": "u1",
        "start": start,
        "end": end,
        "price_per_unit": Decimal("20.00"),
        "total_price": Decimal("20.00"),
        "status": BookingStatus.CONFIRMED,
        "created_at": NOW,
        "updated_at": NOW,
    }
    return Booking(**(values | fields))  # type: ignore[arg-type]


def test_check_in_from_an_hour_before_the_start_to_the_end_once() -> None:
    booking = _booking()
    with pytest.raises(InvalidTransition, match="60 minutes"):
        booking.check_in(at(MONDAY, "09:59"))
    checked = booking.check_in(at(MONDAY, "10:00"))
    assert (checked.checked_in_at, checked.status) == (at(MONDAY, "10:00"), BookingStatus.CONFIRMED)
    with pytest.raises(InvalidTransition, match="checked in already"):
        checked.check_in(at(MONDAY, "10:30"))
    with pytest.raises(InvalidTransition, match="ended"):
        booking.check_in(at(MONDAY, "12:00"))
    with pytest.raises(InvalidTransition, match="'pending'"):
        _booking(status=BookingStatus.PENDING).check_in(at(MONDAY, "11:00"))
