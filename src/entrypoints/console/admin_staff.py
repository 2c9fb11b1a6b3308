"""Staff (CONTRACT 8): the roles of ``GET /operator/staff/``, a form granting one and a button taking roles
away, through the same use cases (:func:`booking_core.usecases.operator_platform.list_venue_staff`,
:func:`booking_core.usecases.staff.grant_staff` and ``remove_staff``).

Admins see and grant every role; a manager sees the staff of their venues and grants or takes away the
front desk there (CONTRACT 7.1); the desk gets the refusal page. A refused grant shows the form again as
typed, with the use case's reason; nothing was granted.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, get, post
from litestar.concurrency import sync_to_thread
from litestar.di import NamedDependency
from litestar.params import FromPath, FromQuery
from litestar.response import Redirect, Template

from booking_core.staff import Action, Role, Staff
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_platform import list_venue_staff
from booking_core.usecases.operator_venues import staff_venues
from booking_core.usecases.staff import NewStaff, grant_staff, parse_role, remove_staff
from entrypoints.console.bookings import REFUSED, form_of
from entrypoints.console.pages import page
from entrypoints.console.session import signed_in_staff

AnyRequest = Request[Any, Any, Any]
PATH = "/console/admin/staff"
_EMPTY_FORM: dict[str, Any] = {"role": Role.DESK.value, "venues": []}


def _removable(staff: Staff, role: Role, venue_id: int | None) -> bool:
    """Whether the remove button of a role is offered: the use case's rule, so no button is refused."""
    if staff.is_admin:
        return True
    return role is Role.DESK and venue_id is not None and staff.may(Action.MANAGE_VENUE, venue_id)


def _staff_page(
    request: AnyRequest,
    deps: Deps,
    staff: Staff,
    values: dict[str, Any],
    *,
    problem: str | None = None,
    done: str | None = None,
    status: int = 200,
) -> Template:
    members = list_venue_staff(deps, staff)  # the desk is refused here (403)
    venues = [v.venue for v in staff_venues(deps, staff)]
    return page(
        request,
        "staff.html",
        staff=staff,
        members=[(user, role, _removable(staff, role.role, role.venue_id)) for user, role in members],
        venue_names={v.id: v.name for v in venues},
        # where the form may grant: every venue for an admin, a manager's own venues
        grant_venues=[v for v in venues if staff.may(Action.MANAGE_VENUE, v.id)],
        roles=[r.value for r in Role] if staff.is_admin else [Role.DESK.value],
        values=values,
        problem=problem,
        done=done,
        status=status,
    )


@get("/admin/staff", sync_to_thread=True, name="console_staff")
def staff_list(
    request: AnyRequest, deps: NamedDependency[Deps], done: FromQuery[str | None] = None
) -> Template:
    """Every role with its user (admin), or the roles at the manager's venues, and the form to add one."""
    staff = signed_in_staff(request, deps)
    return _staff_page(request, deps, staff, _EMPTY_FORM, done=done)


def _grant(request: AnyRequest, deps: Deps, form: dict[str, Any]) -> Template | Redirect:
    staff = signed_in_staff(request, deps)
    chosen = form.get("venues", [])
    chosen = [chosen] if isinstance(chosen, str) else chosen
    values = {**form, "venues": chosen}
    try:
        new = NewStaff(
            email=str(form.get("email", "")),
            role=parse_role(str(form.get("role", ""))),
            venue_ids=[int(v) for v in chosen if v.isdigit()],
        )
        granted = grant_staff(deps, staff, new)
    except REFUSED as exc:
        return _staff_page(request, deps, staff, values, problem=str(exc), status=409)
    return Redirect(f"{PATH}?done={'created' if granted.created else 'granted'}", status_code=303)


@post("/admin/staff", status_code=303)
async def grant(request: AnyRequest, deps: NamedDependency[Deps]) -> Template | Redirect:
    """Grant the role at the chosen venues to the user with the email (created without a password)."""
    form = await form_of(request)()
    return await sync_to_thread(_grant, request, deps, form)


def _remove(request: AnyRequest, deps: Deps, user_id: str, venue: str) -> Template | Redirect:
    staff = signed_in_staff(request, deps)
    try:
        remove_staff(deps, staff, user_id, int(venue) if venue.isdigit() else None)
    except REFUSED as exc:
        return _staff_page(
            request, deps, staff, {"role": Role.DESK.value, "venues": []}, problem=str(exc), status=409
        )
    return Redirect(f"{PATH}?done=removed", status_code=303)


@post("/admin/staff/{user_id:str}/remove", status_code=303)
async def remove(
    request: AnyRequest, deps: NamedDependency[Deps], user_id: FromPath[str]
) -> Template | Redirect:
    """Take the user's roles away: those at the form's venue, or (admins, no venue) all of them."""
    form = await form_of(request)()
    return await sync_to_thread(_remove, request, deps, user_id, str(form.get("venue", "")))


handlers = [staff_list, grant, remove]
