"""Browsing: resources, their detail and availability (no token needed, except by external id)."""

from __future__ import annotations

from datetime import date
from functools import partial
from typing import Any

import msgspec
from litestar import MediaType, Request, Response, Router, get
from litestar.concurrency import sync_to_thread
from litestar.di import NamedDependency
from litestar.params import FromQuery

from booking_core.errors import BadRequest, NotAuthenticated
from booking_core.limits import DEFAULT_PAGE_SIZE, parse_date
from booking_core.paging import Page
from booking_core.ports import ResourceQuery
from booking_core.usecases import browse
from booking_core.usecases.deps import Deps
from entrypoints.http.auth import optional_token, principal_of
from entrypoints.http.availability_cache import AnswerKey, Encoded, answers_of
from entrypoints.http.openapi import ANONYMOUS_OR_TOKEN, BROWSE_ANSWERS
from entrypoints.http.paging import LINK_HEADER, paged_response
from entrypoints.http.structs.availability import AvailabilityOut, RawAvailabilityOut
from entrypoints.http.structs.fields import (
    Limit,
    Offset,
    PathId,
    QueryDate,
    QueryExternalId,
    QueryInt64,
    QueryText,
)
from entrypoints.http.structs.resources import ResourceDetailOut, ResourceItem


@get("/", sync_to_thread=True, response_headers=[LINK_HEADER], responses=BROWSE_ANSWERS)
def list_resources(
    request: Request[Any, Any, Any],
    deps: NamedDependency[Deps],
    venue: QueryInt64 = None,
    venue_slug: QueryText = None,
    activity: QueryInt64 = None,
    is_active: FromQuery[bool] = True,
    is_bookable: FromQuery[bool] = True,
    limit: Limit = DEFAULT_PAGE_SIZE,
    offset: Offset = 0,
) -> Response[list[ResourceItem]]:
    """Active, bookable resources, optionally of one venue or activity type, a page at a time."""
    query = ResourceQuery(
        venue_id=venue,
        venue_slug=venue_slug,
        activity_id=activity,
        is_active=is_active,
        is_bookable=is_bookable,
    )
    found = browse.list_resources(deps, query, page=Page(limit=limit, offset=offset))
    return paged_response(request, found, ResourceItem.of)


@get("/{resource_id:str}/", sync_to_thread=True, responses=BROWSE_ANSWERS)
def get_resource(deps: NamedDependency[Deps], resource_id: PathId) -> ResourceDetailOut:
    """One resource with its venue, schedules and current demand."""
    return ResourceDetailOut.of(browse.get_resource(deps, resource_id))


@get("/{resource_id:str}/availability/", responses=BROWSE_ANSWERS)
async def get_raw_availability(
    request: Request[Any, Any, Any],
    deps: NamedDependency[Deps],
    resource_id: PathId,
    start_date: QueryDate = None,
    end_date: QueryDate = None,
) -> Response[RawAvailabilityOut]:
    """Windows, booked slots and unavailable periods of up to 31 days."""
    first, last = date_range(start_date, end_date)
    key = AnswerKey("raw_availability", resource_id, first, last)
    return _json(await answers_of(request).answer(key, partial(_raw, deps, key)))


def _raw(deps: Deps, key: AnswerKey) -> Encoded:
    view = browse.get_raw_availability(deps, key.resource_id, key.start_date, key.end_date)
    return Encoded(msgspec.json.encode(RawAvailabilityOut.of(view)), view.validity)


@get("/availability/", responses=BROWSE_ANSWERS)
async def get_availability(
    request: Request[Any, Any, Any],
    deps: NamedDependency[Deps],
    resource_id: QueryInt64 = None,
    resource_external_id: QueryExternalId = None,
    start_date: QueryDate = None,
    end_date: QueryDate = None,
) -> Response[AvailabilityOut]:
    """Free, bookable ranges; by the client's own resource id with a client token."""
    principal = principal_of(request)
    if resource_external_id is not None and principal is None:
        raise NotAuthenticated("Authentication credentials were not provided.")
    first, last = date_range(start_date, end_date)
    if resource_id is None or resource_external_id is not None:
        # looked up every time, so that a changed mapping shows at once
        resource_id = await sync_to_thread(
            browse.availability_resource_id,
            deps,
            resource_id=resource_id,
            resource_external_id=resource_external_id,
            client_id=principal.client_id if principal is not None else None,
        )
    key = AnswerKey("availability", resource_id, first, last)
    return _json(await answers_of(request).answer(key, partial(_free, deps, key)))


def _free(deps: Deps, key: AnswerKey) -> Encoded:
    view = browse.get_availability(
        deps, resource_id=key.resource_id, start_date=key.start_date, end_date=key.end_date
    )
    return Encoded(msgspec.json.encode(AvailabilityOut.of(view)), view.validity)


def date_range(start: str | None, end: str | None) -> tuple[date, date]:
    """The dates of an availability query: both given as ``YYYY-MM-DD``, then as the use cases
    check them (:func:`~booking_core.usecases.browse.check_date_range`); BadRequest otherwise."""
    if not start or not end:
        raise BadRequest("start_date and end_date are required (YYYY-MM-DD).")
    try:
        first, last = parse_date(start), parse_date(end)
    except ValueError as error:
        raise BadRequest(f"start_date and end_date {error}.") from None
    browse.check_date_range(first, last)
    return first, last


def _json(body: bytes) -> Response[Any]:
    return Response(content=body, media_type=MediaType.JSON)


router = Router(
    path="/resources",
    guards=[optional_token],
    route_handlers=[list_resources, get_resource, get_raw_availability, get_availability],
    tags=["resources"],
    security=ANONYMOUS_OR_TOKEN,
)
