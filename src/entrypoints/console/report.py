"""A venue's report as pictures (CONTRACT 8 on 7.7): occupancy by local weekday and hour as a heat map,
the money per month as bars, each beside its table, and the resources' lines.

Read through the report's use case of the operator API (:func:`~booking_core.usecases.operator_reports.
venue_report`) with its permissions: managers of the venue and admins; the desk is refused (403).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from litestar import Request, get
from litestar.di import NamedDependency
from litestar.params import FromPath
from litestar.response import Template

from booking_core.errors import BadRequest
from booking_core.report import MAX_REPORT_DAYS, VenueReport, occupancy
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_reports import venue_report
from entrypoints.console.booking_list import DateFrom, DateTo
from entrypoints.console.charts import bar_chart, heat_map
from entrypoints.console.day import today_at
from entrypoints.console.new_booking import venue_of
from entrypoints.console.pages import ConsoleError, page
from entrypoints.console.session import signed_in_staff

#: The months the page shows unless asked otherwise: this one and the eleven before it.
DEFAULT_MONTHS = 12


def default_dates(today: dt.date) -> tuple[dt.date, dt.date]:
    """The last twelve months: from the first of the month eleven months back to ``today`` (at most
    366 days, so always one report)."""
    months = today.year * 12 + today.month - 1 - (DEFAULT_MONTHS - 1)
    return dt.date(months // 12, months % 12 + 1, 1), today


def _date(raw: str | None, default: dt.date) -> dt.date:
    if not raw:
        return default
    try:
        return dt.date.fromisoformat(raw)
    except ValueError:
        raise ConsoleError(400, "bad_date") from None


@dataclass(frozen=True, slots=True, kw_only=True)
class Totals:
    """The resources' lines added up (the occupancy of them all together, not a mean of theirs)."""

    open_minutes: int
    booked_minutes: int
    occupancy: Decimal
    bookings: int
    cancellations: int
    no_shows: int
    revenue_paid: Decimal
    revenue_refunded: Decimal


def totals(report: VenueReport) -> Totals:
    """The sums of ``report``'s resource lines."""
    lines = report.resources
    opened, booked = sum(r.open_minutes for r in lines), sum(r.booked_minutes for r in lines)
    return Totals(
        open_minutes=opened,
        booked_minutes=booked,
        occupancy=occupancy(booked * 60, opened * 60),
        bookings=sum(r.bookings for r in lines),
        cancellations=sum(r.cancellations for r in lines),
        no_shows=sum(r.no_shows for r in lines),
        revenue_paid=sum((r.revenue_paid for r in lines), Decimal(0)),
        revenue_refunded=sum((r.revenue_refunded for r in lines), Decimal(0)),
    )


@get("/venues/{venue_id:int}/report", sync_to_thread=True, name="console_report")
def report_page(
    request: Request[Any, Any, Any],
    deps: NamedDependency[Deps],
    venue_id: FromPath[int],
    date_from: DateFrom = None,
    date_to: DateTo = None,
) -> Template:
    """The venue's report over its local dates ``from`` to ``to`` (default: the last twelve months)."""
    staff = signed_in_staff(request, deps)
    venue = venue_of(deps, staff, venue_id).venue
    first, last = default_dates(today_at(deps, venue))
    first, last = _date(date_from, first), _date(date_to, last)
    shown: dict[str, Any] = {
        "staff": staff,
        "venue": venue,
        "first": first,
        "last": last,
        "max_days": MAX_REPORT_DAYS,
    }
    try:
        report = venue_report(deps, staff, venue_id, first, last, by_month=True)
    except BadRequest:  # the use case's check of the dates: the page says which rule in words
        problem = "reversed" if last < first else "too_long"
        return page(request, "report.html", status=400, report=None, problem=problem, **shown)
    return page(
        request,
        "report.html",
        report=report,
        problem=None,
        heat=heat_map(report.by_hour),
        bars=bar_chart(report.by_month),
        totals=totals(report),
        **shown,
    )


handlers = [report_page]
