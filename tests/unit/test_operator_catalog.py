"""Which live bookings a changed catalog leaves misplaced (CONTRACT 7.5): outside the opening hours,
or overlapping an unavailable period."""

from __future__ import annotations

import datetime as dt

import pytest

from booking_core.usecases.operator_catalog import misplaced
from tests.unit.builders import closure, on, resource, slot, span, weekly

DAY = dt.date(2026, 6, 3)  # a Wednesday
HOURS = weekly(slot("08:00", "17:00"), slot("17:00", "22:00"))


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [
        ("09:00", "10:00", False),
        ("16:30", "17:30", False),  # touching windows count as one
        ("07:30", "08:30", True),  # starts before opening
        ("21:30", "22:30", True),  # ends after closing
    ],
)
def test_a_booking_outside_the_windows_is_misplaced(start: str, end: str, expected: bool) -> None:
    assert misplaced(resource(*HOURS), span(DAY, start, end)) is expected


def test_a_booking_in_a_closed_day_or_under_a_closure_is_misplaced() -> None:
    closed = resource(*HOURS, on(DAY, priority=1))
    assert misplaced(closed, span(DAY, "09:00", "10:00"))
    shut = resource(*HOURS, unavailable_periods=(closure(DAY, "09:30", "12:00"),))
    assert misplaced(shut, span(DAY, "09:00", "10:00"))
    assert not misplaced(shut, span(DAY, "12:00", "13:00"))
