"""The B2B client API: mapping a partner's ids to users, resources and venues."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from booking_core.accounts import ApprovalStatus, ResourceMapping, User, UserMapping, VenueMapping
from booking_core.catalog import Resource, Venue
from booking_core.commission import Commission, parse_month
from booking_core.errors import BadRequest, Forbidden, MappingNotFound, ValidationFailed
from booking_core.limits import MAX_EXTERNAL_ID
from booking_core.paging import Page, Paged, fetch_page
from booking_core.usecases.auth import normalize_email, parse_language
from booking_core.usecases.deps import Deps

M = TypeVar("M")
X = TypeVar("X")


@dataclass(frozen=True, slots=True, kw_only=True)
class UserRegistration:
    """Outcome of registering a user: ``created`` means a new user, ``mapping_created`` a new mapping."""

    mapping: UserMapping
    user: User
    created: bool
    mapping_created: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceRegistration:
    """Outcome of registering a resource id."""

    mapping: ResourceMapping
    resource: Resource
    created: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class VenueRegistration:
    """Outcome of registering a venue id."""

    mapping: VenueMapping
    venue: Venue
    created: bool


def _external_id(value: str) -> str:
    cleaned = value.strip()
    if not cleaned or len(cleaned) > MAX_EXTERNAL_ID:
        raise ValidationFailed(f"External id must be 1 to {MAX_EXTERNAL_ID} characters.", field="external_id")
    return cleaned


def register_user(
    deps: Deps,
    client_id: int,
    *,
    external_id: str,
    email: str,
    first_name: str = "",
    last_name: str = "",
    language: str | None = None,
) -> UserRegistration:
    """Map ``external_id`` to a user: the existing mapping, a user with that email, or a new user."""
    external_id = _external_id(external_id)
    email = normalize_email(email)
    lang = parse_language(language)
    now = deps.clock.now()
    with deps.uow() as uow:
        mapping = uow.user_mappings.get(client_id, external_id)
        if mapping is not None:
            user = uow.users.get(mapping.user_id)
            if user is not None:
                return UserRegistration(mapping=mapping, user=user, created=False, mapping_created=False)
        user = uow.users.get_by_email(email)
        created = user is None
        if user is None:
            user = User(
                id=deps.ids.new_id(),
                email=email,
                first_name=first_name,
                last_name=last_name,
                language=lang,
                created_at=now,
            )
            uow.users.add(user)
        elif (existing := uow.user_mappings.for_user(client_id, user.id)) is not None:
            raise ValidationFailed(
                f"This email is already mapped to external id '{existing.external_id}'.", field="email"
            )
        mapping = UserMapping(
            id=deps.ids.new_id(),
            client_id=client_id,
            external_id=external_id,
            user_id=user.id,
            created_at=now,
        )
        uow.user_mappings.add(mapping)
        uow.commit()
    return UserRegistration(mapping=mapping, user=user, created=created, mapping_created=True)


def lookup_user(deps: Deps, client_id: int, external_id: str) -> tuple[UserMapping, User]:
    """The user behind one of the client's external ids."""
    with deps.uow() as uow:
        mapping = uow.user_mappings.get(client_id, external_id)
        user = uow.users.get(mapping.user_id) if mapping else None
    if mapping is None or user is None:
        raise MappingNotFound("no user found for that external_id")
    return mapping, user


def list_user_mappings(
    deps: Deps, client_id: int, *, is_active: bool | None = None, page: Page | None = None
) -> Paged[tuple[UserMapping, User]]:
    """One page of the client's user mappings, oldest first."""
    with deps.read_lagging() as uow:
        found = fetch_page(
            page or Page(),
            lambda limit, offset: uow.user_mappings.list(
                client_id, is_active=is_active, limit=limit, offset=offset
            ),
        )
        users = uow.users.get_many({m.user_id for m in found.items})
        return _joined(found, lambda m: users.get(m.user_id))


def register_resource(
    deps: Deps, client_id: int, *, external_id: str, resource_id: int, external_data: Mapping[str, Any] | None
) -> ResourceRegistration:
    """Map ``external_id`` to one of our resources (idempotent per external id)."""
    external_id = _external_id(external_id)
    with deps.uow() as uow:
        mapping = uow.resource_mappings.get(client_id, external_id)
        created = mapping is None
        if mapping is None:
            resource = uow.resources.get(resource_id)
            if resource is None:
                raise ValidationFailed(f"Resource {resource_id} does not exist.", field="resource_id")
            mapping = ResourceMapping(
                id=deps.ids.new_id(),
                client_id=client_id,
                external_id=external_id,
                resource_id=resource_id,
                external_data=dict(external_data or {}),
                created_at=deps.clock.now(),
            )
            uow.resource_mappings.add(mapping)
            uow.commit()
        resource = uow.resources.get(mapping.resource_id)
    if resource is None:
        raise MappingNotFound("no resource found for that external_id")
    return ResourceRegistration(mapping=mapping, resource=resource, created=created)


def lookup_resource(deps: Deps, client_id: int, external_id: str) -> tuple[ResourceMapping, Resource]:
    """The resource behind one of the client's external ids."""
    with deps.uow() as uow:
        mapping = uow.resource_mappings.get(client_id, external_id)
        resource = uow.resources.get(mapping.resource_id) if mapping else None
    if mapping is None or resource is None:
        raise MappingNotFound("no resource found for that external_id")
    return mapping, resource


def list_resource_mappings(
    deps: Deps, client_id: int, *, page: Page | None = None
) -> Paged[tuple[ResourceMapping, Resource]]:
    """One page of the client's resource mappings, oldest first."""
    with deps.read_lagging() as uow:
        found = fetch_page(
            page or Page(),
            lambda limit, offset: uow.resource_mappings.list(client_id, limit=limit, offset=offset),
        )
        return _joined(found, lambda m: uow.resources.get(m.resource_id))


def register_venue(
    deps: Deps, client_id: int, *, external_id: str, venue_id: int, external_data: Mapping[str, Any] | None
) -> VenueRegistration:
    """Map ``external_id`` to one of our venues; a new mapping waits for the operator's approval."""
    external_id = _external_id(external_id)
    with deps.uow() as uow:
        mapping = uow.venue_mappings.get(client_id, external_id)
        created = mapping is None
        if mapping is None:
            if uow.resources.get_venue(venue_id) is None:
                raise ValidationFailed(f"Venue {venue_id} does not exist.", field="venue_id")
            mapping = VenueMapping(
                id=deps.ids.new_id(),
                client_id=client_id,
                external_id=external_id,
                venue_id=venue_id,
                external_data=dict(external_data or {}),
                created_at=deps.clock.now(),
            )
            uow.venue_mappings.add(mapping)
            uow.commit()
        venue = uow.resources.get_venue(mapping.venue_id)
    if venue is None:
        raise MappingNotFound("no venue found for that external_id")
    return VenueRegistration(mapping=mapping, venue=venue, created=created)


def lookup_venue(deps: Deps, client_id: int, external_id: str) -> tuple[VenueMapping, Venue]:
    """The venue behind one of the client's external ids."""
    with deps.uow() as uow:
        mapping = uow.venue_mappings.get(client_id, external_id)
        venue = uow.resources.get_venue(mapping.venue_id) if mapping else None
    if mapping is None or venue is None:
        raise MappingNotFound("no venue found for that external_id")
    return mapping, venue


def parse_approval_status(status: str | None) -> ApprovalStatus | None:
    """An approval-status filter, or None for all."""
    if not status:
        return None
    try:
        return ApprovalStatus(status)
    except ValueError:
        raise BadRequest("approval_status must be one of pending, approved, rejected.") from None


def list_venue_mappings(
    deps: Deps, client_id: int, approval_status: str | None = None, *, page: Page | None = None
) -> Paged[tuple[VenueMapping, Venue]]:
    """One page of the client's venue mappings, oldest first, optionally by approval status."""
    status = parse_approval_status(approval_status)
    with deps.read_lagging() as uow:
        found = fetch_page(
            page or Page(),
            lambda limit, offset: uow.venue_mappings.list(client_id, status, limit=limit, offset=offset),
        )
        return _joined(found, lambda m: uow.resources.get_venue(m.venue_id))


def _joined(found: Paged[M], lookup: Callable[[M], X | None]) -> Paged[tuple[M, X]]:
    """Each mapping of a page with what it points at (which the foreign keys keep from missing)."""
    pairs = [(m, lookup(m)) for m in found.items]
    return Paged([(m, x) for m, x in pairs if x is not None], found.next_offset)


def venue_resources(
    deps: Deps, client_id: int, venue_external_id: str | None
) -> tuple[VenueMapping, Venue, list[tuple[Resource, ResourceMapping | None]]]:
    """An approved venue with its resources and the client's ids for them."""
    if not venue_external_id:
        raise BadRequest("venue_external_id is required.")
    mapping, venue = lookup_venue(deps, client_id, venue_external_id)
    if mapping.approval_status is not ApprovalStatus.APPROVED or not mapping.is_active:
        raise Forbidden("venue mapping is not approved")
    with deps.read_lagging() as uow:
        resources = uow.resources.for_venue(venue.id)
        mapped = uow.resource_mappings.for_resources(client_id, [r.id for r in resources])
    by_resource = {m.resource_id: m for m in mapped}
    return mapping, venue, [(r, by_resource.get(r.id)) for r in resources]


def list_commissions(
    deps: Deps, client_id: int, month: str | None, *, page: Page | None = None
) -> Paged[Commission]:
    """One page of the client's commission records of one month (``YYYY-MM``), oldest first."""
    if not month:
        raise BadRequest("month is required in the form YYYY-MM.")
    month = parse_month(month)
    with deps.read_lagging() as uow:
        return fetch_page(
            page or Page(),
            lambda limit, offset: uow.commissions.list(
                client_id=client_id, month=month, limit=limit, offset=offset
            ),
        )
