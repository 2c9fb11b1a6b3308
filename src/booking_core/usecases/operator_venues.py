"""The venues a member of staff works at (CONTRACT 7.2): ``/operator/me/`` and ``/operator/venues/``."""

from __future__ import annotations

from dataclasses import dataclass

from booking_core.catalog import Resource, Venue
from booking_core.errors import NotFound
from booking_core.staff import Role, Staff
from booking_core.usecases.deps import Deps


@dataclass(frozen=True, slots=True, kw_only=True)
class StaffVenue:
    """A venue with the staff member's role there and its resources (active or not)."""

    venue: Venue
    role: Role
    resources: list[Resource]


def venue_slugs(deps: Deps, staff: Staff) -> dict[int, str]:
    """The slugs of the venues ``staff`` holds venue roles at, by id."""
    with deps.read() as uow:
        return {v.id: v.slug for v in uow.resources.venues(staff.venue_ids)}


def staff_venues(deps: Deps, staff: Staff) -> list[StaffVenue]:
    """Every venue ``staff`` works at (an admin: every venue), by name, with their resources."""
    with deps.read() as uow:
        venues = uow.resources.venues(None if staff.is_admin else staff.venue_ids)
        found = []
        for venue in venues:
            role = staff.role_at(venue.id)
            if role is not None:
                found.append(StaffVenue(venue=venue, role=role, resources=uow.resources.for_venue(venue.id)))
        return found


def venue_ids_by_slug(deps: Deps, slugs: list[str]) -> list[int]:
    """The ids of the venues named by ``slugs``, in their order.

    Raises:
        NotFound: a slug names no venue.
    """
    with deps.read() as uow:
        known = {v.slug: v.id for v in uow.resources.venues()}
    missing = [s for s in slugs if s not in known]
    if missing:
        raise NotFound(f"No venue with slug {missing[0]}.")
    return [known[s] for s in slugs]
