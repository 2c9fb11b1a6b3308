"""``GET /operator/me/`` and ``GET /operator/venues/``: who the member of staff is and where they work."""

from __future__ import annotations

from typing import Any

from litestar import Request, get
from litestar.di import NamedDependency

from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_venues import staff_venues, venue_slugs
from entrypoints.http.openapi import OPERATOR_READ_ANSWERS
from entrypoints.http.operator_auth import provide_staff
from entrypoints.http.structs.operator import MeOut, OperatorVenueOut


@get("/me/", sync_to_thread=True, responses=OPERATOR_READ_ANSWERS)
def me(request: Request[Any, Any, Any], deps: NamedDependency[Deps]) -> MeOut:
    """The member of staff the token belongs to, with their roles (venue null for admin)."""
    staff = provide_staff(request)
    return MeOut.of(staff, venue_slugs(deps, staff))


@get("/venues/", sync_to_thread=True, responses=OPERATOR_READ_ANSWERS)
def venues(request: Request[Any, Any, Any], deps: NamedDependency[Deps]) -> list[OperatorVenueOut]:
    """The venues the member of staff works at (an admin: all), with their role and resources."""
    return [
        OperatorVenueOut.of(v.venue, v.role.value, v.resources)
        for v in staff_venues(deps, provide_staff(request))
    ]


handlers = [me, venues]
