"""The audit log (CONTRACT 7.6): ``GET /operator/audit/``, newest first, a page at a time."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, Response, get
from litestar.di import NamedDependency
from litestar.openapi.spec.enums import OpenAPIType
from litestar.params import QueryParameter

from booking_core.limits import DEFAULT_PAGE_SIZE
from booking_core.paging import Page
from booking_core.usecases.audit import list_audit
from booking_core.usecases.deps import Deps
from entrypoints.http.openapi import OPERATOR_READ_ANSWERS
from entrypoints.http.operator_auth import provide_staff
from entrypoints.http.paging import LINK_HEADER, paged_response
from entrypoints.http.routes.operator._query import query_date, query_errors
from entrypoints.http.structs.fields import Limit, Offset, QueryInt64, QueryText
from entrypoints.http.structs.operator_admin import AuditEntryOut

_DAY: dict[str, Any] = {"one_of": None, "type": OpenAPIType.STRING}
From = Annotated[
    str | None, QueryParameter(name="from", description="YYYY-MM-DD (UTC), inclusive", schema_extra=_DAY)
]
To = Annotated[
    str | None, QueryParameter(name="to", description="YYYY-MM-DD (UTC), inclusive", schema_extra=_DAY)
]


@get("/audit/", sync_to_thread=True, response_headers=[LINK_HEADER], responses=OPERATOR_READ_ANSWERS)
def audit_log(
    request: Request[Any, Any, Any],
    deps: NamedDependency[Deps],
    venue: QueryInt64 = None,
    date_from: From = None,
    date_to: To = None,
    action: QueryText = None,
    object_id: QueryText = None,
    limit: Limit = DEFAULT_PAGE_SIZE,
    offset: Offset = 0,
) -> Response[list[AuditEntryOut]]:
    """Entries of the venues the member of staff sees (an admin: all), newest first."""
    with query_errors():
        found = list_audit(
            deps,
            provide_staff(request),
            venue_id=venue,
            date_from=query_date("from", date_from),
            date_to=query_date("to", date_to),
            action=action,
            object_id=object_id,
            page=Page(limit=limit, offset=offset),
        )
    return paged_response(request, found, AuditEntryOut.of)


handlers = [audit_log]
