"""The bookings list of a venue with search and filters, and its CSV download (CONTRACT 8): the operator
search's use case (:mod:`booking_core.usecases.operator_search`) and the operator API's CSV rows
(:mod:`entrypoints.http.bookings_csv`)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any
from urllib.parse import urlencode

from litestar import Request, Response, get
from litestar.di import NamedDependency
from litestar.params import FromPath, FromQuery, QueryParameter
from litestar.response import Stream, Template

from booking_core.booking import BookingStatus
from booking_core.errors import ValidationFailed
from booking_core.paging import Page
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_search import BookingSearch, export_bookings, search_bookings
from entrypoints.console.bookings import REFUSED
from entrypoints.console.new_booking import venue_of
from entrypoints.console.pages import page
from entrypoints.console.session import signed_in_staff
from entrypoints.http.bookings_csv import csv_chunks

AnyRequest = Request[Any, Any, Any]
PAGE_SIZE = 50
DateFrom = Annotated[str | None, QueryParameter(name="from")]
DateTo = Annotated[str | None, QueryParameter(name="to")]


def _date(raw: str | None, field: str) -> dt.date | None:
    if not raw:
        return None
    try:
        return dt.date.fromisoformat(raw)
    except ValueError:
        raise ValidationFailed(f"{field}: not a date (YYYY-MM-DD).", field=field) from None


def _search(
    venue_id: int, q: str | None, status: str | None, date_from: str | None, date_to: str | None
) -> BookingSearch:
    return BookingSearch(
        venue_id=venue_id,
        text=q or None,
        status=status or None,
        date_from=_date(date_from, "from"),
        date_to=_date(date_to, "to"),
    )


@get("/venues/{venue_id:int}/bookings", sync_to_thread=True, name="console_bookings")
def booking_list(
    request: AnyRequest,
    deps: NamedDependency[Deps],
    venue_id: FromPath[int],
    q: FromQuery[str | None] = None,
    status: FromQuery[str | None] = None,
    date_from: DateFrom = None,
    date_to: DateTo = None,
    offset: FromQuery[int] = 0,
) -> Template:
    """The venue's bookings, latest start first, a page at a time, with the filters of the search."""
    staff = signed_in_staff(request, deps)
    venue = venue_of(deps, staff, venue_id).venue
    values = {"q": q or "", "status": status or "", "from": date_from or "", "to": date_to or ""}
    problem, found, next_offset = None, [], None
    try:
        paged = search_bookings(
            deps,
            staff,
            _search(venue_id, q, status, date_from, date_to),
            page=Page(limit=PAGE_SIZE, offset=max(0, offset)),
        )
        found, next_offset = paged.items, paged.next_offset
    except REFUSED as exc:
        problem = str(exc)
    query = urlencode({k: v for k, v in values.items() if v})
    return page(
        request,
        "bookings.html",
        staff=staff,
        venue=venue,
        tz=venue.tz,
        found=found,
        values=values,
        statuses=[s.value for s in BookingStatus],
        query=query,
        next_offset=next_offset,
        problem=problem,
        status=400 if problem else 200,
    )


@get("/venues/{venue_id:int}/bookings.csv", sync_to_thread=True, name="console_bookings_csv")
def booking_csv(
    request: AnyRequest,
    deps: NamedDependency[Deps],
    venue_id: FromPath[int],
    q: FromQuery[str | None] = None,
    status: FromQuery[str | None] = None,
    date_from: DateFrom = None,
    date_to: DateTo = None,
) -> Response[Any]:
    """Every booking the filters find, as the operator API's CSV."""
    staff = signed_in_staff(request, deps)
    venue_of(deps, staff, venue_id)
    rows = csv_chunks(export_bookings(deps, staff, _search(venue_id, q, status, date_from, date_to)))
    return Stream(
        rows,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="bookings.csv"'},
    )


handlers = [booking_list, booking_csv]
