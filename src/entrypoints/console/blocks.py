"""Closing time (CONTRACT 8): a block on resources of a venue through the block use case
(:func:`booking_core.usecases.operator_blocks.create_blocks`).

Bookings in the way are listed, nothing written, with a second button that places the block with
``on_conflict`` ``cancel``: the use case cancels them and refunds the paid ones in full.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, get, post
from litestar.concurrency import sync_to_thread
from litestar.di import NamedDependency
from litestar.params import FromPath
from litestar.response import Redirect, Template

from booking_core.catalog import BlockReason
from booking_core.staff import Staff
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_blocks import (
    BlockOverlapsBookings,
    BookingInTheWay,
    NewBlock,
    create_blocks,
)
from entrypoints.console.bookings import REFUSED, form_of, local_instant
from entrypoints.console.new_booking import venue_of
from entrypoints.console.pages import page
from entrypoints.console.session import signed_in_staff

AnyRequest = Request[Any, Any, Any]


def _form_page(
    request: AnyRequest,
    deps: Deps,
    staff: Staff,
    venue_id: int,
    values: dict[str, Any],
    *,
    problem: str | None = None,
    conflicts: tuple[BookingInTheWay, ...] = (),
    status: int = 200,
) -> Template:
    found = venue_of(deps, staff, venue_id)
    return page(
        request,
        "new_block.html",
        staff=staff,
        venue=found.venue,
        tz=found.venue.tz,
        resources=[r for r in found.resources if r.is_available],
        reasons=[r.value for r in BlockReason],
        values=values,
        problem=problem,
        conflicts=conflicts,
        status=status,
    )


@get("/venues/{venue_id:int}/blocks/new", sync_to_thread=True, name="console_new_block")
def new_block_form(request: AnyRequest, deps: NamedDependency[Deps], venue_id: FromPath[int]) -> Template:
    """The form: resources, from, to, reason, note."""
    staff = signed_in_staff(request, deps)
    return _form_page(request, deps, staff, venue_id, {"resources": [], "reason": "maintenance"})


def _create(request: AnyRequest, deps: Deps, venue_id: int, form: dict[str, Any]) -> Template | Redirect:
    staff = signed_in_staff(request, deps)
    tz = venue_of(deps, staff, venue_id).venue.tz
    chosen = form.get("resources", [])
    chosen = [chosen] if isinstance(chosen, str) else chosen
    values = {**form, "resources": chosen}
    try:
        start = local_instant(str(form.get("start", "")), tz, "start")
        create_blocks(
            deps,
            staff,
            venue_id,
            NewBlock(
                resource_ids=tuple(int(r) for r in chosen if r.isdigit()),
                start=start,
                end=local_instant(str(form.get("end", "")), tz, "end"),
                reason=str(form.get("reason", "other")),
                note=str(form.get("note", "")),
                on_conflict="cancel" if form.get("on_conflict") == "cancel" else "refuse",
            ),
        )
    except BlockOverlapsBookings as exc:
        return _form_page(
            request, deps, staff, venue_id, values, problem=str(exc), conflicts=exc.conflicts, status=409
        )
    except REFUSED as exc:
        return _form_page(request, deps, staff, venue_id, values, problem=str(exc), status=409)
    return Redirect(
        f"/console/venues/{venue_id}/day?date={start.astimezone(tz).date().isoformat()}", status_code=303
    )


@post("/venues/{venue_id:int}/blocks/new", status_code=303)
async def create_block(
    request: AnyRequest, deps: NamedDependency[Deps], venue_id: FromPath[int]
) -> Template | Redirect:
    """Close the time; bookings in the way refuse it, or with the second button are cancelled."""
    form = await form_of(request)()
    return await sync_to_thread(_create, request, deps, venue_id, form)


handlers = [new_block_form, create_block]
