"""A new booking from a free cell of the day sheet (CONTRACT 8): the form, posted to the staff-booking use
case (:func:`booking_core.usecases.operator_bookings.create_staff_booking`); on success, the booking's page.

A refusal (the time was just taken, a rule broken) shows the form again with what was typed and the use
case's reason; nothing was booked.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from litestar import Request, get, post
from litestar.concurrency import sync_to_thread
from litestar.di import NamedDependency
from litestar.params import FromPath, FromQuery
from litestar.response import Redirect, Template

from booking_core.errors import NotFound
from booking_core.staff import Action, Staff
from booking_core.usecases import operator_bookings as staff_bookings
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_bookings import CustomerRef, StaffBookingRequest, StaffPayment
from booking_core.usecases.operator_venues import StaffVenue, staff_venues
from entrypoints.console.bookings import REFUSED, form_of, local_instant, reason_of
from entrypoints.console.pages import page
from entrypoints.console.session import signed_in_staff

AnyRequest = Request[Any, Any, Any]
_MINUTE = "%Y-%m-%dT%H:%M"


def venue_of(deps: Deps, staff: Staff, venue_id: int) -> StaffVenue:
    """The venue as the operator API's venue list shows it to ``staff`` (another reads as not found)."""
    for found in staff_venues(deps, staff):
        if found.venue.id == venue_id:
            return found
    raise NotFound("Venue not found.")


def _form_page(
    request: AnyRequest,
    deps: Deps,
    staff: Staff,
    venue_id: int,
    values: dict[str, Any],
    *,
    problem: str | None = None,
    status: int = 200,
) -> Template:
    found = venue_of(deps, staff, venue_id)
    return page(
        request,
        "new_booking.html",
        staff=staff,
        venue=found.venue,
        resources=[r for r in found.resources if r.is_available],
        values=values,
        manager=staff.may(Action.OVERRIDE, venue_id),
        problem=problem,
        status=status,
    )


@get("/venues/{venue_id:int}/bookings/new", sync_to_thread=True, name="console_new_booking")
def new_booking_form(
    request: AnyRequest,
    deps: NamedDependency[Deps],
    venue_id: FromPath[int],
    resource: FromQuery[str] = "",
    start: FromQuery[str] = "",
) -> Template:
    """The form, with the free cell's resource and start, and an end an hour later."""
    staff = signed_in_staff(request, deps)
    tz = venue_of(deps, staff, venue_id).venue.tz
    end = ""
    if start:
        end = (local_instant(start, tz, "start") + dt.timedelta(hours=1)).astimezone(tz).strftime(_MINUTE)
    values = {"resource": resource, "start": start, "end": end, "payment": "at_venue", "language": "de"}
    return _form_page(request, deps, staff, venue_id, values)


def _create(request: AnyRequest, deps: Deps, venue_id: int, form: dict[str, Any]) -> Template | Redirect:
    staff = signed_in_staff(request, deps)
    found = venue_of(deps, staff, venue_id)
    try:
        resource = next(r for r in found.resources if str(r.id) == form.get("resource"))
    except StopIteration:
        raise NotFound("Resource not found.") from None
    tz = found.venue.tz
    try:
        payment = StaffPayment(form.get("payment", "at_venue"))
    except ValueError:
        payment = StaffPayment.AT_VENUE
    try:
        made = staff_bookings.create_staff_booking(
            deps,
            staff,
            StaffBookingRequest(
                resource_id=resource.id,
                start=local_instant(form.get("start", ""), tz, "start"),
                end=local_instant(form.get("end", ""), tz, "end"),
                notes=form.get("notes", ""),
                customer=CustomerRef(
                    email=form.get("email", ""),
                    first_name=form.get("first_name", ""),
                    last_name=form.get("last_name", ""),
                    language=form.get("language") or None,
                ),
                payment=payment,
                override_rules=form.get("override_rules") == "true",
                price=form.get("price") or None,
            ),
        )
    except REFUSED as exc:
        return _form_page(request, deps, staff, venue_id, form, problem=reason_of(exc), status=409)
    return Redirect(f"/console/bookings/{made.booking.id}?done=create", status_code=303)


@post("/venues/{venue_id:int}/bookings/new", status_code=303)
async def create_booking(
    request: AnyRequest, deps: NamedDependency[Deps], venue_id: FromPath[int]
) -> Template | Redirect:
    """Book for the customer through the staff-booking use case."""
    form = {k: v if isinstance(v, str) else v[0] for k, v in (await form_of(request)()).items()}
    return await sync_to_thread(_create, request, deps, venue_id, form)


handlers = [new_booking_form, create_booking]
