"""What every staff use case of a booking shares: the venue check, the locked booking, the audit entry."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from booking_core.audit import AuditAction
from booking_core.booking import Booking
from booking_core.catalog import Resource
from booking_core.errors import NotFound
from booking_core.ports import UnitOfWork
from booking_core.staff import Action, Staff
from booking_core.usecases.audit import audit
from booking_core.usecases.deps import Deps
from booking_core.usecases.permissions import require

BOOKING_NOT_FOUND = "Booking not found."


def venue_of_booking(uow: UnitOfWork, staff: Staff | None, booking_id: str, action: Action) -> int:
    """The venue of a booking staff may take ``action`` on: a booking of a venue they do not see reads
    as not found, an action their role may not take is refused (403)."""
    booking = booking_of(uow, booking_id)
    venue_id = resource_of(uow, booking.resource_id, bookable=False).venue.id
    if staff is not None and not staff.sees(venue_id):
        raise NotFound(BOOKING_NOT_FOUND)
    require(staff, action, venue_id)
    return venue_id


def booking_of(uow: UnitOfWork, booking_id: str) -> Booking:
    """The booking (not locked); an unknown one is not found."""
    booking = uow.bookings.get(booking_id)
    if booking is None:
        raise NotFound(BOOKING_NOT_FOUND)
    return booking


def locked(uow: UnitOfWork, booking_id: str, *, resource_first: bool = False) -> Booking:
    """The booking re-read under its lock (:meth:`~booking_core.ports.Bookings.lock_for_change`)."""
    booking = uow.bookings.lock_for_change(booking_id, resource_first=resource_first)
    if booking is None:  # bookings are never deleted
        raise NotFound(BOOKING_NOT_FOUND)
    return booking


def resource_of(uow: UnitOfWork, resource_id: int, *, bookable: bool = True) -> Resource:
    """A resource, unknown ones not found; with ``bookable`` (to book time on it) inactive ones neither.

    A booking's own resource is read with ``bookable`` False: a resource the catalog deactivated
    after the booking was made still has it checked in, confirmed, paid or cancelled.
    """
    resource = uow.resources.get(resource_id)
    if resource is None or (bookable and not resource.is_available):
        raise NotFound("Resource not found.")
    return resource


def times_of(booking: Booking) -> dict[str, Any]:
    """Where and when ``booking`` is, for an audit entry."""
    return {
        "resource_id": booking.resource_id,
        "start_datetime": booking.start.isoformat(),
        "end_datetime": booking.end.isoformat(),
    }


def audit_booking(
    deps: Deps,
    uow: UnitOfWork,
    staff: Staff | None,
    action: AuditAction,
    booking: Booking,
    resource: Resource,
    details: Mapping[str, Any],
) -> None:
    """The audit entry of a change of ``booking`` (its venue that of ``resource``)."""
    audit(
        deps,
        uow,
        staff,
        action,
        venue_id=resource.venue.id,
        object_type="booking",
        object_id=booking.id,
        details={"reference_code": booking.reference_code, **details},
    )
