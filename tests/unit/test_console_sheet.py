"""The day sheet's grid: rows of five minutes on the venue's wall clock, whole hours around the opening
windows and bookings, items cut at the edges, the line at now only on the day it is."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from zoneinfo import ZoneInfo

from booking_core.catalog import Venue
from booking_core.timerange import TimeRange
from entrypoints.console.day import Closed, Column, DayView, Opening, SheetBooking
from entrypoints.console.sheet import layout

BERLIN = ZoneInfo("Europe/Berlin")
DAY = dt.date(2026, 6, 5)
VENUE = Venue(id=1, slug="club", name="Club", timezone="Europe/Berlin")


def _at(hour: int, minute: int = 0, day: dt.date = DAY) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour, minute), BERLIN)


def _span(start: dt.datetime, end: dt.datetime) -> TimeRange:
    return TimeRange(start, end)


def _view(column: Column, day: dt.date = DAY) -> DayView:
    return DayView(venue=VENUE, day=day, columns=[column])


def _opening(start: dt.datetime, end: dt.datetime) -> Opening:
    return Opening(range=_span(start, end), label="", price_per_unit=Decimal("20.00"), currency="EUR")


def test_rows_are_five_minutes_from_the_first_opening_hour_to_the_last() -> None:
    column = Column(
        resource_id=1,
        name="Court 1",
        openings=[_opening(_at(8, 30), _at(21, 15))],
        bookings=[
            SheetBooking(
                id="b", reference_code="R", range=_span(_at(10), _at(11, 30)), customer="Anna", status="paid"
            )
        ],
    )
    sheet = layout(_view(column), now=_at(12, 7))

    assert sheet.rows == (22 - 8) * 12  # 08:00 to 22:00
    booking = sheet.bookings[0]
    assert (booking.column, booking.row_start, booking.row_end) == (2, 2 + 24, 2 + 42)
    assert (booking.start, booking.end) == (dt.time(10), dt.time(11, 30))
    assert sheet.labels[0].time == dt.time(8)
    assert (sheet.labels[1].time, sheet.labels[1].row_start) == (dt.time(8, 30), 8)
    assert sheet.now is not None
    assert (sheet.now.time, sheet.now.row) == (dt.time(12, 7), 2 + 49)


def test_without_hours_the_sheet_shows_eight_to_eight_and_cuts_closed_time_at_its_edges() -> None:
    closed = Closed(range=_span(_at(0), _at(0, day=DAY + dt.timedelta(days=1))), reason="holiday")
    sheet = layout(_view(Column(resource_id=1, name="Court 1", closed=[closed])), now=_at(7))

    assert sheet.rows == 12 * 12
    placed = sheet.closed[0]
    assert (placed.row_start, placed.row_end) == (2, 2 + 144)
    assert sheet.now is None  # 07:00 is before the sheet


def test_the_line_at_now_is_drawn_on_its_day_only() -> None:
    column = Column(resource_id=1, name="Court 1", openings=[_opening(_at(8), _at(22))])

    assert layout(_view(column), now=_at(12, day=DAY + dt.timedelta(days=1))).now is None


def test_a_window_ending_at_midnight_fills_the_sheet_to_its_end() -> None:
    column = Column(
        resource_id=1, name="Court 1", openings=[_opening(_at(18), _at(0, day=DAY + dt.timedelta(days=1)))]
    )
    sheet = layout(_view(column), now=_at(23, 59))

    assert sheet.rows == 6 * 12
    assert sheet.openings[0].end == dt.time(0)
    assert sheet.now is not None
    assert sheet.now.row == 2 + 71
