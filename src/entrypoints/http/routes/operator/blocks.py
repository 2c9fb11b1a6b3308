"""Blocks (closed time): ``POST``/``GET /operator/venues/{venue_id}/blocks/``, ``DELETE
/operator/blocks/{block_id}/`` (CONTRACT 7.3)."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from litestar import Request, Response, delete, get, post
from litestar.di import NamedDependency
from litestar.openapi.spec.enums import OpenAPIType
from litestar.params import JSONBody, QueryParameter

from booking_core.errors import BadRequest
from booking_core.limits import DATE_FORMAT, DEFAULT_PAGE_SIZE, parse_date
from booking_core.paging import Page
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_blocks import create_blocks, delete_block, list_blocks
from entrypoints.http.openapi import OPERATOR_CONFLICT_ANSWERS, OPERATOR_READ_ANSWERS, OPERATOR_WRITE_ANSWERS
from entrypoints.http.operator_auth import provide_staff
from entrypoints.http.paging import LINK_HEADER, paged_response
from entrypoints.http.structs.fields import Limit, Offset, PathId
from entrypoints.http.structs.operator_blocks import BlockIn, BlockOut, BlocksPlacedOut

AnyRequest = Request[Any, Any, Any]
#: An optional date: left out, never sent as null.
DATE_SCHEMA: dict[str, Any] = {"one_of": None, "type": OpenAPIType.STRING}
DateFrom = Annotated[
    str | None,
    QueryParameter(
        name="from", description=f"{DATE_FORMAT}, venue-local, inclusive", schema_extra=DATE_SCHEMA
    ),
]
DateTo = Annotated[
    str | None,
    QueryParameter(name="to", description=f"{DATE_FORMAT}, venue-local, inclusive", schema_extra=DATE_SCHEMA),
]


def query_date(text: str | None, name: str) -> date | None:
    """A ``YYYY-MM-DD`` query parameter (None when left out); BadRequest naming it otherwise."""
    if text is None:
        return None
    try:
        return parse_date(text)
    except ValueError as error:
        raise BadRequest(f"{name}: {error}.") from None


@post(
    "/venues/{venue_id:str}/blocks/",
    sync_to_thread=True,
    status_code=201,
    responses=OPERATOR_CONFLICT_ANSWERS,
)
def place_blocks(
    request: AnyRequest, deps: NamedDependency[Deps], venue_id: PathId, data: JSONBody[BlockIn]
) -> BlocksPlacedOut:
    """Close time on the venue's resources (all of them unless named): one block per resource."""
    return BlocksPlacedOut.of(create_blocks(deps, provide_staff(request), venue_id, data.command()))


@get(
    "/venues/{venue_id:str}/blocks/",
    sync_to_thread=True,
    response_headers=[LINK_HEADER],
    responses=OPERATOR_READ_ANSWERS,
)
def venue_blocks(
    request: AnyRequest,
    deps: NamedDependency[Deps],
    venue_id: PathId,
    date_from: DateFrom = None,
    date_to: DateTo = None,
    limit: Limit = DEFAULT_PAGE_SIZE,
    offset: Offset = 0,
) -> Response[list[BlockOut]]:
    """The venue's closed time (staff blocks and the catalog's periods) on the dates, by start."""
    first, last = query_date(date_from, "from"), query_date(date_to, "to")
    page = Page(limit=limit, offset=offset)
    found = list_blocks(deps, provide_staff(request), venue_id, first, last, page=page)
    return paged_response(request, found, BlockOut.of_view)


@delete("/blocks/{block_id:str}/", sync_to_thread=True, responses=OPERATOR_WRITE_ANSWERS)
def remove_block(request: AnyRequest, deps: NamedDependency[Deps], block_id: PathId) -> None:
    """Remove a block staff placed; the catalog's periods are changed by editing the catalog (400)."""
    delete_block(deps, provide_staff(request), block_id)


handlers = [place_blocks, venue_blocks, remove_block]
