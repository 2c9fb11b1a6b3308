"""A booking moved by staff onto free time of its venue (CONTRACT 7.4), as a reclaim of its time."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from booking_core.audit import AuditAction
from booking_core.claims import neighbourhood
from booking_core.errors import InvalidTransition, NotFound
from booking_core.rules import (
    OVERRIDE,
    STAFF,
    accept_move,
    booking_span,
    validate_request,
)
from booking_core.staff import Action, Staff
from booking_core.state_machine import Stage, stage_of
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_bookings._common import (
    audit_booking,
    booking_of,
    locked,
    resource_of,
    times_of,
    venue_of_booking,
)
from booking_core.usecases.permissions import require
from booking_core.usecases.retry import retried
from booking_core.usecases.staff_notices import notify_moved
from booking_core.usecases.views import OpBookingView, op_booking_views


@dataclass(frozen=True, slots=True, kw_only=True)
class MoveRequest:
    """A booking's new time, on its own resource or (``resource_id``) another of the same venue."""

    resource_id: int | None = None
    start: datetime
    end: datetime
    override_rules: bool = False


@retried
def move_staff_booking(deps: Deps, staff: Staff | None, booking_id: str, cmd: MoveRequest) -> OpBookingView:
    """Move a live booking to another time (and resource of its venue): same id, reference, status and
    price; never onto taken or closed time. Audited as ``booking.move``; the customer gets the moved mail.

    Raises:
        NotFound: the booking, or the resource, is unknown or of a venue staff do not see.
        PermissionDenied: the role may not move, or not override the rules.
        InvalidTransition: the booking is not live (its status named).
        ValidationFailed: a rule is broken, or the time is taken (SlotUnavailable).
    """
    now = deps.clock.now()
    with deps.uow() as uow:
        venue_id = venue_of_booking(uow, staff, booking_id, Action.OPERATE)
        if cmd.override_rules:
            require(staff, Action.OVERRIDE, venue_id)
        target = resource_of(uow, cmd.resource_id) if cmd.resource_id is not None else None
        if target is not None and target.venue.id != venue_id:
            raise NotFound("Resource not found.")  # another venue's resource reads as unknown (7.1)
        span = booking_span(cmd.start, cmd.end)
        before = booking_of(uow, booking_id)
        resource = target or resource_of(uow, before.resource_id)
        # The booking's resource exclusively first (UnitOfWork's order) only where the gap rule
        # serializes claims of it; elsewhere the overlap constraint decides, as for a new booking.
        serialized = neighbourhood(resource, span).serialized
        booking = locked(uow, booking_id, resource_first=serialized and resource.id == before.resource_id)
        resource = target or resource_of(uow, booking.resource_id)  # as locked: a move may have come between
        if stage_of(booking, now) not in {Stage.PENDING, Stage.CONFIRMED, Stage.PAID}:
            raise InvalidTransition(f"Cannot move a booking with status '{booking.as_of(now).status}'.")
        rule_set = OVERRIDE if cmd.override_rules else STAFF
        opening = validate_request(
            resource, span, participant_count=booking.participant_count, now=now, rule_set=rule_set
        )
        moved = booking.move_to(resource.id, span, now)
        terms = accept_move(resource, span, opening, rule_set=rule_set)
        uow.bookings.reclaim(moved, neighbourhood(resource, span), terms, now=now)
        notify_moved(deps, uow, moved, booking.start, booking.end, old_resource_id=booking.resource_id)
        details = {
            "old": times_of(booking),
            "new": times_of(moved),
            "override_rules": cmd.override_rules,
        }
        audit_booking(deps, uow, staff, AuditAction.BOOKING_MOVE, moved, resource, details)
        (view,) = op_booking_views(uow, [moved], now)
        uow.commit()
    return view
