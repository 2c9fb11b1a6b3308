"""Browsing: resources, their detail and availability (no token needed, except by external id)."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import MediaType, Request, Response, Router, get
from litestar.concurrency import sync_to_thread
from litestar.di import NamedDependency
from litestar.params import FromQuery

from booking_core.errors import NotAuthenticated
from booking_core.limits import DEFAULT_PAGE_SIZE
from booking_core.paging import Page
from booking_core.ports import ResourceQuery
from booking_core.usecases import browse
from booking_core.usecases.deps import Deps
from entrypoints.http.auth import optional_token, principal_of
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
from entrypoints.http.versions import probe_of


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
    # the remembered answer needs no handler thread; anything else runs the use case on one
    version = await probe_of(request).data_version(resource_id)
    body = browse.remembered_raw_availability(
        deps, resource_id, start_date, end_date, version, render=_raw_json
    )
    if body is None:
        body = await sync_to_thread(
            browse.render_raw_availability, deps, resource_id, start_date, end_date, render=_raw_json
        )
    return _json(body)


def _raw_json(view: browse.RawAvailabilityView) -> bytes:
    # the encoded documents are what the use cases keep while they stay exact
    return msgspec.json.encode(RawAvailabilityOut.of(view))


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
    if resource_id is not None and resource_external_id is None:
        # as for raw availability; an external id is looked up by the use case every time
        version = await probe_of(request).data_version(resource_id)
        remembered = browse.remembered_availability(
            deps, resource_id, start_date, end_date, version, render=_ranges_json
        )
        if remembered is not None:
            return _json(remembered)
    body = await sync_to_thread(
        browse.render_availability,
        deps,
        resource_id=resource_id,
        resource_external_id=resource_external_id,
        client_id=principal.client_id if principal is not None else None,
        start_date=start_date,
        end_date=end_date,
        render=_ranges_json,
    )
    return _json(body)


def _ranges_json(view: browse.AvailabilityView) -> bytes:
    return msgspec.json.encode(AvailabilityOut.of(view))


def _json(body: bytes) -> Response[Any]:
    return Response(content=body, media_type=MediaType.JSON)


router = Router(
    path="/resources",
    guards=[optional_token],
    route_handlers=[list_resources, get_resource, get_raw_availability, get_availability],
    tags=["resources"],
    security=ANONYMOUS_OR_TOKEN,
)
