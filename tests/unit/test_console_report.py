"""The report page's own arithmetic: the dates it shows unless asked, and the resources added up."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from booking_core.catalog import Resource, Venue
from booking_core.report import MAX_REPORT_DAYS, ResourceReport, VenueReport
from entrypoints.console.report import default_dates, totals


@pytest.mark.parametrize(
    ("today", "first"),
    [
        (dt.date(2026, 6, 1), dt.date(2025, 7, 1)),
        (dt.date(2026, 1, 15), dt.date(2025, 2, 1)),
        (dt.date(2026, 12, 31), dt.date(2026, 1, 1)),
        (dt.date(2028, 12, 31), dt.date(2028, 1, 1)),  # a leap year: 366 days, still one report
    ],
)
def test_without_dates_the_page_shows_the_last_twelve_months(today: dt.date, first: dt.date) -> None:
    assert default_dates(today) == (first, today)
    assert (today - first).days + 1 <= MAX_REPORT_DAYS


def _line(resource_id: int, open_minutes: int, booked_minutes: int, paid: str) -> ResourceReport:
    venue = Venue(id=1, slug="club", name="Club", timezone="Europe/Berlin")
    return ResourceReport(
        resource=Resource(id=resource_id, venue=venue, name=f"Court {resource_id}"),
        open_minutes=open_minutes,
        booked_minutes=booked_minutes,
        occupancy=Decimal("0.00"),
        bookings=2,
        cancellations=1,
        no_shows=0,
        revenue_paid=Decimal(paid),
        revenue_refunded=Decimal("0.00"),
    )


def test_all_resources_together_are_booked_over_open_time_not_a_mean_of_shares() -> None:
    report = VenueReport(
        venue_id=1,
        date_from=dt.date(2026, 6, 1),
        date_to=dt.date(2026, 6, 30),
        currency="EUR",
        resources=[_line(1, 600, 600, "40.00"), _line(2, 1800, 0, "2.50")],
        by_hour=[],
    )

    found = totals(report)

    assert (found.open_minutes, found.booked_minutes, found.occupancy) == (2400, 600, Decimal("0.25"))
    assert (found.bookings, found.cancellations, found.revenue_paid) == (4, 2, Decimal("42.50"))
