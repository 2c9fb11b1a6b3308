"""The client (B2B) API: id mappings of users, resources and venues, and commissions."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, Router, get, post
from litestar.di import NamedDependency
from litestar.params import JSONBody

from booking_core.limits import DEFAULT_PAGE_SIZE
from booking_core.paging import Page
from booking_core.usecases import clients
from booking_core.usecases.deps import Deps
from entrypoints.http.auth import client_token_required, provide_principal
from entrypoints.http.openapi import CLIENT_ONLY, CLIENT_READ_ANSWERS, CLIENT_WRITE_ANSWERS
from entrypoints.http.paging import LINK_HEADER, paged_response
from entrypoints.http.structs.commissions import CommissionOut
from entrypoints.http.structs.fields import (
    Limit,
    Offset,
    QueryBool,
    QueryExternalId,
    QueryText,
    RequiredExternalId,
)
from entrypoints.http.structs.mappings import (
    RegisterResourceIn,
    RegisterUserIn,
    ResourceMappingOut,
    ResourceRegistered,
    UserMappingOut,
    UserRegistered,
)
from entrypoints.http.structs.venues import (
    RegisterVenueIn,
    VenueMappingOut,
    VenueRegistered,
    VenueWithResources,
)


def _client(request: Request[Any, Any, Any]) -> int:
    """The calling client's id (the guard let only client tokens through)."""
    client_id = provide_principal(request).client_id
    assert client_id is not None  # noqa: S101 - guaranteed by client_token_required
    return client_id


@post("/users/register/", sync_to_thread=True, responses=CLIENT_WRITE_ANSWERS)
def register_user(
    deps: NamedDependency[Deps], request: Request[Any, Any, Any], data: JSONBody[RegisterUserIn]
) -> UserRegistered:
    """Map the client's user id to a user (new, or matched by email); 201 also when it existed."""
    registration = clients.register_user(
        deps,
        _client(request),
        external_id=data.external_id,
        email=data.email,
        first_name=data.first_name,
        last_name=data.last_name,
        language=data.language,
    )
    return UserRegistered.of(registration)


@get("/users/lookup/", sync_to_thread=True, responses=CLIENT_READ_ANSWERS)
def lookup_user(
    deps: NamedDependency[Deps], request: Request[Any, Any, Any], external_id: RequiredExternalId
) -> UserMappingOut:
    """The user mapped to one external id (404 with an error body when unmapped)."""
    return UserMappingOut.of(clients.lookup_user(deps, _client(request), external_id))


@get("/users/mappings/", sync_to_thread=True, response_headers=[LINK_HEADER], responses=CLIENT_READ_ANSWERS)
def list_user_mappings(
    deps: NamedDependency[Deps],
    request: Request[Any, Any, Any],
    is_active: QueryBool = None,
    limit: Limit = DEFAULT_PAGE_SIZE,
    offset: Offset = 0,
) -> Response[list[UserMappingOut]]:
    """The client's user mappings, oldest first."""
    page = Page(limit=limit, offset=offset)
    found = clients.list_user_mappings(deps, _client(request), is_active=is_active, page=page)
    return paged_response(request, found, UserMappingOut.of)


@post("/resources/register/", sync_to_thread=True, responses=CLIENT_WRITE_ANSWERS)
def register_resource(
    deps: NamedDependency[Deps], request: Request[Any, Any, Any], data: JSONBody[RegisterResourceIn]
) -> ResourceRegistered:
    """Map the client's resource id to one of our resources; 201 also when it existed."""
    registration = clients.register_resource(
        deps,
        _client(request),
        external_id=data.external_id,
        resource_id=data.resource_id,
        external_data=data.external_data,
    )
    return ResourceRegistered.of(registration)


@get("/resources/lookup/", sync_to_thread=True, responses=CLIENT_READ_ANSWERS)
def lookup_resource(
    deps: NamedDependency[Deps], request: Request[Any, Any, Any], external_id: RequiredExternalId
) -> ResourceMappingOut:
    """The resource mapped to one external id."""
    return ResourceMappingOut.of(clients.lookup_resource(deps, _client(request), external_id))


@get(
    "/resources/mappings/", sync_to_thread=True, response_headers=[LINK_HEADER], responses=CLIENT_READ_ANSWERS
)
def list_resource_mappings(
    deps: NamedDependency[Deps],
    request: Request[Any, Any, Any],
    limit: Limit = DEFAULT_PAGE_SIZE,
    offset: Offset = 0,
) -> Response[list[ResourceMappingOut]]:
    """The client's resource mappings, oldest first."""
    found = clients.list_resource_mappings(deps, _client(request), page=Page(limit=limit, offset=offset))
    return paged_response(request, found, ResourceMappingOut.of)


@post("/venues/register/", sync_to_thread=True, responses=CLIENT_WRITE_ANSWERS)
def register_venue(
    deps: NamedDependency[Deps], request: Request[Any, Any, Any], data: JSONBody[RegisterVenueIn]
) -> VenueRegistered:
    """Map the client's venue id to one of our venues; the mapping waits for approval."""
    registration = clients.register_venue(
        deps,
        _client(request),
        external_id=data.external_id,
        venue_id=data.venue_id,
        external_data=data.external_data,
    )
    return VenueRegistered.of(registration)


@get("/venues/lookup/", sync_to_thread=True, responses=CLIENT_READ_ANSWERS)
def lookup_venue(
    deps: NamedDependency[Deps], request: Request[Any, Any, Any], external_id: RequiredExternalId
) -> VenueMappingOut:
    """The venue mapped to one external id, with its approval status."""
    return VenueMappingOut.of(clients.lookup_venue(deps, _client(request), external_id))


@get("/venues/mappings/", sync_to_thread=True, response_headers=[LINK_HEADER], responses=CLIENT_READ_ANSWERS)
def list_venue_mappings(
    deps: NamedDependency[Deps],
    request: Request[Any, Any, Any],
    approval_status: QueryText = None,
    limit: Limit = DEFAULT_PAGE_SIZE,
    offset: Offset = 0,
) -> Response[list[VenueMappingOut]]:
    """The client's venue mappings, oldest first, optionally by approval status."""
    page = Page(limit=limit, offset=offset)
    found = clients.list_venue_mappings(deps, _client(request), approval_status, page=page)
    return paged_response(request, found, VenueMappingOut.of)


@get("/venues/resources/", sync_to_thread=True, responses=CLIENT_READ_ANSWERS)
def venue_resources(
    deps: NamedDependency[Deps],
    request: Request[Any, Any, Any],
    venue_external_id: QueryExternalId = None,
) -> VenueWithResources:
    """An approved venue with its resources and the client's ids for them."""
    return VenueWithResources.of(clients.venue_resources(deps, _client(request), venue_external_id))


@get("/commissions/", sync_to_thread=True, response_headers=[LINK_HEADER], responses=CLIENT_READ_ANSWERS)
def list_commissions(
    deps: NamedDependency[Deps],
    request: Request[Any, Any, Any],
    month: QueryText = None,
    limit: Limit = DEFAULT_PAGE_SIZE,
    offset: Offset = 0,
) -> Response[list[CommissionOut]]:
    """The client's commission records of one month (``?month=YYYY-MM``), oldest first, a page at a time."""
    found = clients.list_commissions(deps, _client(request), month, page=Page(limit=limit, offset=offset))
    return paged_response(request, found, CommissionOut.of)


router = Router(
    path="/client",
    guards=[client_token_required],
    route_handlers=[
        register_user,
        lookup_user,
        list_user_mappings,
        register_resource,
        lookup_resource,
        list_resource_mappings,
        register_venue,
        lookup_venue,
        list_venue_mappings,
        venue_resources,
        list_commissions,
    ],
    tags=["client"],
    security=CLIENT_ONLY,
)
