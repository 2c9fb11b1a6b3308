"""The day sheet: ``GET /operator/venues/{venue_id}/day/`` (CONTRACT 7.2)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, get
from litestar.di import NamedDependency
from litestar.params import Parameter

from booking_core.limits import DATE_FORMAT
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_day import day_sheet
from entrypoints.http.openapi import OPERATOR_READ_ANSWERS
from entrypoints.http.operator_auth import provide_staff
from entrypoints.http.routes.operator.blocks import DATE_SCHEMA, query_date
from entrypoints.http.structs.fields import PathId, QueryBool
from entrypoints.http.structs.operator_blocks import DaySheetOut

DayDate = Annotated[
    str | None,
    Parameter(description=f"{DATE_FORMAT}; default: today in the venue's timezone", schema_extra=DATE_SCHEMA),
]


@get("/venues/{venue_id:str}/day/", sync_to_thread=True, responses=OPERATOR_READ_ANSWERS)
def venue_day(
    request: Request[Any, Any, Any],
    deps: NamedDependency[Deps],
    venue_id: PathId,
    date: DayDate = None,
    include_cancelled: QueryBool = None,
) -> DaySheetOut:
    """Every active resource's windows, bookings, blocks and free time on one local date."""
    day = query_date(date, "date")
    return DaySheetOut.of(day_sheet(deps, provide_staff(request), venue_id, day, bool(include_cancelled)))


handlers = [venue_day]
