"""Staff over HTTP (CONTRACT 7.8): list, grant and take away roles, as ``booking staff`` does.

Admins see and grant every role; managers see their venues' staff and grant or take away ``desk``
at their own venues. A user granted a role who does not exist is created without a password.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, delete, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_platform import list_venue_staff
from booking_core.usecases.staff import NewStaff, grant_staff, parse_role, remove_staff
from entrypoints.http.openapi import OPERATOR_READ_ANSWERS, OPERATOR_WRITE_ANSWERS
from entrypoints.http.operator_auth import provide_staff
from entrypoints.http.routes.operator._query import query_errors
from entrypoints.http.structs.fields import QueryInt64
from entrypoints.http.structs.operator_admin import StaffGrantedOut, StaffGrantIn, StaffMemberOut


@get("/staff/", sync_to_thread=True, responses=OPERATOR_READ_ANSWERS)
def list_staff(request: Request[Any, Any, Any], deps: NamedDependency[Deps]) -> list[StaffMemberOut]:
    """Every role with its user (admin), or the roles at the manager's venues."""
    return [StaffMemberOut.of(pair) for pair in list_venue_staff(deps, provide_staff(request))]


@post("/staff/", sync_to_thread=True, status_code=201, responses=OPERATOR_WRITE_ANSWERS)
def grant(
    request: Request[Any, Any, Any], deps: NamedDependency[Deps], data: JSONBody[StaffGrantIn]
) -> StaffGrantedOut:
    """Grant ``role`` at ``venue_ids`` to the user with ``email`` (created without a password)."""
    new = NewStaff(email=data.email, role=parse_role(data.role), venue_ids=data.venue_ids)
    done = grant_staff(deps, provide_staff(request), new)
    return StaffGrantedOut(
        user_id=done.user.id,
        email=done.user.email,
        created=done.created,
        granted=[StaffMemberOut.of((done.user, role)) for role in done.granted],
    )


@delete("/staff/{user_id:str}/", sync_to_thread=True, status_code=204, responses=OPERATOR_WRITE_ANSWERS)
def revoke(
    request: Request[Any, Any, Any],
    deps: NamedDependency[Deps],
    user_id: FromPath[str],
    venue: QueryInt64 = None,
) -> None:
    """Take the user's roles away: all of them, or those at ``venue`` (managers: desk roles at their
    own venues, ``venue`` required)."""
    with query_errors():
        remove_staff(deps, provide_staff(request), user_id, venue)


handlers = [list_staff, grant, revoke]
