"""What the service's operator does from the command line, and the worker's sweeps.

Each booking changes in a transaction of its own, locked and decided by the state machine
(:func:`booking_core.usecases.changes.apply_event`), like every other change of a booking.
"""

from __future__ import annotations

from booking_core.accounts import ApprovalStatus, VenueMapping
from booking_core.audit import AuditAction
from booking_core.booking import Booking
from booking_core.errors import NotFound
from booking_core.staff import Staff
from booking_core.state_machine import Event
from booking_core.usecases.audit import audit
from booking_core.usecases.changes import apply_event
from booking_core.usecases.clients import parse_approval_status
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_bookings import confirm_staff_booking, mark_booking_no_show


def _booking_id(deps: Deps, reference_code: str) -> str:
    with deps.read() as uow:
        booking = uow.bookings.get_by_reference(reference_code.strip().upper())
    if booking is None:
        raise NotFound(f"No booking with reference {reference_code}.")
    return booking.id


def confirm_booking(deps: Deps, reference_code: str) -> Booking:
    """Confirm a pending booking whose hold still runs, without payment (venue agreement): the
    staff's confirm (:func:`~booking_core.usecases.operator_bookings.confirm_staff_booking`) done
    from the command line, audited with no actor."""
    return confirm_staff_booking(deps, None, _booking_id(deps, reference_code)).booking


def mark_no_show(deps: Deps, reference_code: str) -> Booking:
    """Record that the user did not come (a paid or confirmed booking, after its start), as staff
    do (:func:`~booking_core.usecases.operator_bookings.mark_booking_no_show`), audited with no actor."""
    return mark_booking_no_show(deps, None, _booking_id(deps, reference_code)).booking


def complete_past_bookings(deps: Deps) -> int:
    """Mark paid and confirmed bookings whose time has passed as completed; returns how many."""
    with deps.read() as uow:
        ended = [b.id for b in uow.bookings.ended(deps.clock.now())]
    return _sweep(deps, ended, Event.COMPLETE)


def expire_holds(deps: Deps) -> int:
    """Cancel every pending booking whose hold lapsed (reason ``expired``); returns how many."""
    with deps.read() as uow:
        lapsed = [b.id for b in uow.bookings.expired_holds(deps.clock.now())]
    return _sweep(deps, lapsed, Event.HOLD_EXPIRY)


def _sweep(deps: Deps, booking_ids: list[str], event: Event) -> int:
    """Apply ``event`` to each booking on its own; one that another path changed meanwhile is
    re-decided on its new state (and usually left alone)."""
    changed = 0
    for booking_id in booking_ids:
        try:
            changed += apply_event(deps, booking_id, event).changes_anything
        except NotFound:  # gone meanwhile (never, as bookings are not deleted, but cheap to allow)
            continue
    return changed


def list_venue_mappings(deps: Deps, status: str | None = None) -> list[VenueMapping]:
    """Every client's venue mappings, optionally by approval status."""
    with deps.uow() as uow:
        return uow.venue_mappings.list(None, parse_approval_status(status))


def decide_venue_mapping(
    deps: Deps, mapping_id: str, status: ApprovalStatus, staff: Staff | None = None
) -> VenueMapping:
    """Approve or reject a client's venue mapping, with its audit entry in the same transaction
    (``staff`` None: the command line, whose entries have no actor)."""
    with deps.uow() as uow:
        mapping = uow.venue_mappings.get_by_id(mapping_id)
        if mapping is None:
            raise NotFound(f"No venue mapping with id {mapping_id}.")
        decided = mapping.decide(status)
        uow.venue_mappings.save(decided)
        audit(
            deps,
            uow,
            staff,
            AuditAction.VENUE_MAPPING_APPROVE
            if status is ApprovalStatus.APPROVED
            else AuditAction.VENUE_MAPPING_REJECT,
            venue_id=mapping.venue_id,
            object_type="venue_mapping",
            object_id=mapping.id,
            details={
                "client_id": mapping.client_id,
                "external_id": mapping.external_id,
                "old_status": str(mapping.approval_status),
                "new_status": str(decided.approval_status),
            },
        )
        uow.commit()
    return decided
