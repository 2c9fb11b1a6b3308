"""A booking's page (CONTRACT 8): its customer, payment, status and audit history, and the actions of
CONTRACT 7.4 as forms, each calling the operator use case of :mod:`booking_core.usecases.operator_bookings`.

A refused action (the time was just taken, the booking is already cancelled, an amount above what was
paid) shows the page again with the use case's reason; the use case changed nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any
from uuid import UUID
from zoneinfo import ZoneInfo

from litestar import Request, get, post
from litestar.concurrency import sync_to_thread
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException
from litestar.params import FromPath, FromQuery
from litestar.response import Redirect, Template

from booking_core.errors import BadRequest, SlotUnavailable, ValidationFailed
from booking_core.staff import Action, Staff
from booking_core.usecases import operator_bookings as staff_bookings
from booking_core.usecases.audit import list_audit
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_bookings import MoveRequest
from entrypoints.console.pages import page
from entrypoints.console.session import signed_in_staff

AnyRequest = Request[Any, Any, Any]
#: what a refused action answers: the time is taken or a rule broken (409/400)
REFUSED = (ValidationFailed, BadRequest)


def reason_of(exc: Exception) -> str:
    """The use case's reason; a time just taken is ``taken``, which the page says in its language."""
    return "taken" if isinstance(exc, SlotUnavailable) else str(exc)


def local_instant(raw: str, tz: ZoneInfo, field: str) -> dt.datetime:
    """A ``datetime-local`` field (``2026-06-05T17:30``) as an instant where the venue is."""
    try:
        moment = dt.datetime.fromisoformat(raw)
    except ValueError:
        raise ValidationFailed(f"{field} is not a date and time.", field=field) from None
    return moment.replace(tzinfo=tz) if moment.tzinfo is None else moment


def form_of(request: AnyRequest) -> Callable[[], Any]:
    """The form of a POST, as ``{name: value}`` (strings only); several values of a name as a list."""

    async def read() -> dict[str, Any]:
        form = await request.form()
        found: dict[str, Any] = {}
        for key in form:
            values = [v for v in form.getall(key) if isinstance(v, str)]
            found[key] = values if len(values) > 1 else (values[0] if values else "")
        return found

    return read


def booking_page(
    request: AnyRequest,
    deps: Deps,
    staff: Staff,
    booking_id: str,
    *,
    problem: str | None = None,
    status: int = 200,
    done: str | None = None,
) -> Template:
    """The booking's page, with the refusal ``problem`` of an action (the use case's reason)."""
    detail = staff_bookings.staff_booking(deps, staff, booking_id)
    history = list_audit(deps, staff, venue_id=detail.venue_id, object_id=booking_id).items
    return page(
        request,
        "booking.html",
        staff=staff,
        detail=detail,
        booking=detail.op.booking,
        resource=detail.op.view.resource,
        tz=detail.op.view.resource.tz,
        history=history,
        manager=staff.may(Action.OVERRIDE, detail.venue_id),
        problem=problem,
        done=done,
        status=status,
    )


@get("/bookings/{booking_id:uuid}", sync_to_thread=True, name="console_booking")
def booking(
    request: AnyRequest,
    deps: NamedDependency[Deps],
    booking_id: FromPath[UUID],
    done: FromQuery[str | None] = None,
) -> Template:
    """The booking's page."""
    staff = signed_in_staff(request, deps)
    return booking_page(request, deps, staff, str(booking_id), done=done)


def _act(
    request: AnyRequest, deps: Deps, booking_id: str, name: str, run: Callable[[Staff], object]
) -> Template | Redirect:
    staff = signed_in_staff(request, deps)
    try:
        run(staff)
    except REFUSED as exc:
        return booking_page(request, deps, staff, booking_id, problem=reason_of(exc), status=409)
    return Redirect(f"/console/bookings/{booking_id}?done={name}", status_code=303)


@post("/bookings/{booking_id:uuid}/{action:str}", status_code=303)
async def booking_action(
    request: AnyRequest, deps: NamedDependency[Deps], booking_id: FromPath[UUID], action: FromPath[str]
) -> Template | Redirect:
    """One action of CONTRACT 7.4 on the booking, through its use case."""
    form = await form_of(request)()
    key = str(booking_id)

    def run(staff: Staff) -> object:
        match action:
            case "check-in":
                return staff_bookings.check_in_booking(deps, staff, key)
            case "no-show":
                return staff_bookings.mark_booking_no_show(deps, staff, key)
            case "confirm":
                return staff_bookings.confirm_staff_booking(deps, staff, key)
            case "record-payment":
                return staff_bookings.record_venue_payment(deps, staff, key, str(form.get("method", "")))
            case "cancel":
                refund = str(form.get("refund", "policy"))
                return staff_bookings.cancel_staff_booking(
                    deps,
                    staff,
                    key,
                    reason=str(form.get("reason") or "") or None,
                    notes=str(form.get("notes", "")),
                    refund=refund,
                    amount=(str(form.get("amount") or "") or None) if refund == "amount" else None,
                )
            case "move":
                tz = staff_bookings.staff_booking(deps, staff, key).op.view.resource.tz
                resource = str(form.get("resource") or "")
                return staff_bookings.move_staff_booking(
                    deps,
                    staff,
                    key,
                    MoveRequest(
                        resource_id=int(resource) if resource.isdigit() else None,
                        start=local_instant(str(form.get("start", "")), tz, "start"),
                        end=local_instant(str(form.get("end", "")), tz, "end"),
                        override_rules=form.get("override_rules") == "true",
                    ),
                )
        raise NotFoundException()

    return await sync_to_thread(_act, request, deps, key, action, run)


handlers = [booking, booking_action]
