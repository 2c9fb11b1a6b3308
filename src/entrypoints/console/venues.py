"""The venues a member of staff works at, and each venue's day sheet (CONTRACT 8)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from litestar import Request, get
from litestar.di import NamedDependency
from litestar.params import FromPath, FromQuery
from litestar.response import Template

from booking_core.staff import Action
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_venues import staff_venues
from entrypoints.console.day import day_columns, today_at
from entrypoints.console.pages import ConsoleError, page
from entrypoints.console.session import signed_in_staff
from entrypoints.console.sheet import layout


@get("/", sync_to_thread=True, name="console_home")
def venue_list(request: Request[Any, Any, Any], deps: NamedDependency[Deps]) -> Template:
    """What ``GET /operator/venues/`` shows: the staff member's venues with their role and resources."""
    staff = signed_in_staff(request, deps)
    found = staff_venues(deps, staff)
    # who may edit a venue's catalog is offered its resources' settings (the page asks the use case again)
    manages = {v.venue.id for v in found if staff.may(Action.MANAGE_VENUE, v.venue.id)}
    return page(request, "venues.html", staff=staff, venues=found, manages=manages)


def _day(raw: str | None) -> dt.date | None:
    if not raw:
        return None
    try:
        return dt.date.fromisoformat(raw)
    except ValueError:
        raise ConsoleError(400, "bad_date") from None


@get("/venues/{venue_id:int}/day", sync_to_thread=True, name="console_day")
def day_sheet(
    request: Request[Any, Any, Any],
    deps: NamedDependency[Deps],
    venue_id: FromPath[int],
    date: FromQuery[str | None] = None,
    cancelled: FromQuery[bool] = False,
) -> Template:
    """The venue's day: resources as columns, time as rows, bookings and closed time, the line at now."""
    staff = signed_in_staff(request, deps)
    view = day_columns(deps, staff, venue_id, _day(date), include_cancelled=cancelled)
    day = view.day
    return page(
        request,
        "day.html",
        staff=staff,
        view=view,
        sheet=layout(view, deps.clock.now()),
        today=today_at(deps, view.venue),
        previous=day - dt.timedelta(days=1),
        next=day + dt.timedelta(days=1),
        reported=staff.may(Action.MANAGE_VENUE, venue_id),
    )


handlers = [venue_list, day_sheet]
