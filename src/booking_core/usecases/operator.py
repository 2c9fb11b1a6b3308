"""What the service's operator does from the command line, and the worker's sweeps."""

from __future__ import annotations

from booking_core.accounts import ApprovalStatus, VenueMapping
from booking_core.booking import Booking
from booking_core.errors import InvalidTransition, NotFound
from booking_core.ports import UnitOfWork
from booking_core.usecases.bookings import expire_stale_holds
from booking_core.usecases.clients import parse_approval_status
from booking_core.usecases.deps import Deps


def _by_reference(uow: UnitOfWork, reference_code: str) -> Booking:
    booking = uow.bookings.get_by_reference(reference_code.strip().upper())
    if booking is None:
        raise NotFound(f"No booking with reference {reference_code}.")
    return booking


def confirm_booking(deps: Deps, reference_code: str) -> Booking:
    """Confirm a pending booking without payment (venue agreement)."""
    now = deps.clock.now()
    with deps.uow() as uow:
        pending = _by_reference(uow, reference_code)
        if pending.hold_expired(now):
            # its time may have been given to someone else already
            raise InvalidTransition("The hold of this booking has expired; it cannot be confirmed.")
        booking = pending.confirm(now)
        uow.bookings.save(booking)
        uow.commit()
    return booking


def mark_no_show(deps: Deps, reference_code: str) -> Booking:
    """Record that the user did not come (after the start)."""
    with deps.uow() as uow:
        booking = _by_reference(uow, reference_code).mark_no_show(deps.clock.now())
        uow.bookings.save(booking)
        uow.commit()
    return booking


def complete_past_bookings(deps: Deps) -> int:
    """Mark paid and confirmed bookings whose time has passed as completed."""
    now = deps.clock.now()
    with deps.uow() as uow:
        ended = uow.bookings.ended(now)
        for booking in ended:
            uow.bookings.save(booking.complete(now))
        uow.commit()
    return len(ended)


def expire_holds(deps: Deps) -> int:
    """Cancel every pending booking whose hold lapsed (reason ``expired``)."""
    with deps.uow() as uow:
        count = expire_stale_holds(uow, deps.clock.now())
        uow.commit()
    return count


def list_venue_mappings(deps: Deps, status: str | None = None) -> list[VenueMapping]:
    """Every client's venue mappings, optionally by approval status."""
    with deps.uow() as uow:
        return uow.venue_mappings.list(None, parse_approval_status(status))


def decide_venue_mapping(deps: Deps, mapping_id: str, status: ApprovalStatus) -> VenueMapping:
    """Approve or reject a client's venue mapping."""
    with deps.uow() as uow:
        mapping = uow.venue_mappings.get_by_id(mapping_id)
        if mapping is None:
            raise NotFound(f"No venue mapping with id {mapping_id}.")
        decided = mapping.decide(status)
        uow.venue_mappings.save(decided)
        uow.commit()
    return decided
