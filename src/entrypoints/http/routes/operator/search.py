"""``GET /operator/bookings/``: the staff's bookings search, a page of op-bookings or a CSV file of all
of them (CONTRACT 7.4). ``POST /operator/bookings/`` and a booking's own paths are ``bookings.py``'s."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, Response, get
from litestar.datastructures import ResponseHeader
from litestar.di import NamedDependency
from litestar.openapi import ResponseSpec
from litestar.params import Parameter, QueryParameter
from litestar.response import Stream

from booking_core.booking import BookingStatus
from booking_core.errors import BadRequest
from booking_core.limits import DEFAULT_PAGE_SIZE, MAX_NAME, ONE_LINE_PATTERN
from booking_core.paging import Page
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_search import BookingSearch, export_bookings, search_bookings
from entrypoints.http.bookings_csv import COLUMNS, csv_chunks
from entrypoints.http.openapi import OPERATOR_READ_ANSWERS
from entrypoints.http.operator_auth import provide_staff
from entrypoints.http.paging import LINK_HEADER, paged_response
from entrypoints.http.routes.operator.report import query_date
from entrypoints.http.structs.fields import Limit, Offset, QueryInt64
from entrypoints.http.structs.operator import OpBooking

_STRING: dict[str, Any] = {"one_of": None, "type": "string"}

DateFrom = Annotated[
    str | None,
    QueryParameter(
        name="from",
        description="YYYY-MM-DD: bookings starting on this local date or later",
        schema_extra=_STRING,
    ),
]
DateTo = Annotated[
    str | None,
    QueryParameter(
        name="to",
        description="YYYY-MM-DD: bookings starting on this local date or earlier",
        schema_extra=_STRING,
    ),
]
Status = Annotated[
    str | None,
    Parameter(
        description="only bookings in this status",
        schema_extra=_STRING | {"enum": [s.value for s in BookingStatus]},
    ),
]
Text = Annotated[
    str | None,
    Parameter(
        max_length=MAX_NAME,
        pattern=ONE_LINE_PATTERN,
        description="any part of the reference code, the customer's email or name, in any case",
        schema_extra=_STRING,
    ),
]
Format = Annotated[
    str | None,
    Parameter(
        description="`json` (default): a page of op-bookings; `csv`: every matching booking, not paged",
        schema_extra=_STRING | {"enum": ["json", "csv"]},
    ),
]
_CSV_ANSWER = ResponseSpec(
    list[OpBooking],
    generate_examples=False,
    description=(
        "A page of op-bookings, latest start first; with `format=csv` the same filters' every booking as "
        f"`text/csv` (header row: {', '.join(COLUMNS)})"
    ),
)


@get(
    "/bookings/",
    sync_to_thread=True,
    response_headers=[LINK_HEADER, ResponseHeader(name="Content-Disposition", documentation_only=True)],
    responses=OPERATOR_READ_ANSWERS | {200: _CSV_ANSWER},
)
def search_staff_bookings(
    request: Request[Any, Any, Any],
    deps: NamedDependency[Deps],
    venue: QueryInt64 = None,
    resource: QueryInt64 = None,
    date_from: DateFrom = None,
    date_to: DateTo = None,
    status: Status = None,
    q: Text = None,
    limit: Limit = DEFAULT_PAGE_SIZE,
    offset: Offset = 0,
    format: Format = None,
) -> Response[Any]:
    """Bookings of the venues the member of staff sees, latest start first (ties by id), by venue,
    resource, local dates (both included), status and text."""
    wanted = BookingSearch(
        venue_id=venue,
        resource_id=resource,
        date_from=query_date("from", date_from) if date_from is not None else None,
        date_to=query_date("to", date_to) if date_to is not None else None,
        status=status,
        text=q,
    )
    staff = provide_staff(request)
    if format == "csv":
        rows = csv_chunks(export_bookings(deps, staff, wanted))
        return Stream(
            rows,
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": 'attachment; filename="bookings.csv"'},
        )
    if format not in {None, "json"}:
        raise BadRequest("format: must be json or csv.")
    found = search_bookings(deps, staff, wanted, page=Page(limit=limit, offset=offset))
    return paged_response(request, found, OpBooking.of_op)


handlers = [search_staff_bookings]
