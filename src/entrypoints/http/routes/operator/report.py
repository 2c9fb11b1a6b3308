"""``GET /operator/venues/{venue_id}/report/``: the venue report for its managers (CONTRACT 7.7)."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from litestar import Request, get
from litestar.di import NamedDependency
from litestar.openapi.spec import Example
from litestar.params import QueryParameter

from booking_core.errors import BadRequest
from booking_core.limits import DATE_FORMAT, parse_date
from booking_core.report import MAX_REPORT_DAYS
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_reports import venue_report
from entrypoints.http.openapi import OPERATOR_READ_ANSWERS
from entrypoints.http.operator_auth import provide_staff
from entrypoints.http.structs.fields import PathId
from entrypoints.http.structs.report import ReportOut


def _date_parameter(name: str, description: str) -> Any:
    return QueryParameter(
        name=name,
        required=True,
        description=f"{DATE_FORMAT}: {description}",
        examples=[Example(summary="a date", value="2026-06-01")],
        schema_extra={"one_of": None, "type": "string"},
    )


#: Optional to Litestar, so that a missing date gets the report's own message naming it.
DateFrom = Annotated[str | None, _date_parameter("from", "the first local date of the report")]
DateTo = Annotated[
    str | None, _date_parameter("to", f"the last local date, included; at most {MAX_REPORT_DAYS} days in all")
]


@get("/venues/{venue_id:str}/report/", sync_to_thread=True, responses=OPERATOR_READ_ANSWERS)
def get_venue_report(
    request: Request[Any, Any, Any],
    deps: NamedDependency[Deps],
    venue_id: PathId,
    date_from: DateFrom = None,
    date_to: DateTo = None,
) -> ReportOut:
    """Occupancy, bookings, cancellations, no-shows and money per resource, and occupancy per local
    weekday and hour, of the bookings starting on the venue's local dates ``from`` to ``to``
    (managers of the venue and admins; desk staff get 403)."""
    first, last = query_date("from", date_from), query_date("to", date_to)
    return ReportOut.of(venue_report(deps, provide_staff(request), venue_id, first, last))


def query_date(name: str, text: str | None) -> date:
    """A required ``YYYY-MM-DD`` query parameter; BadRequest naming it otherwise."""
    if not text:
        raise BadRequest(f"{name}: This field is required.")
    try:
        return parse_date(text)
    except ValueError as error:
        raise BadRequest(f"{name}: {error}.") from None


handlers = [get_venue_report]
