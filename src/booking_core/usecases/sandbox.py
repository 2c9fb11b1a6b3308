"""Settling a payment without a provider account: what ``booking sandbox pay`` needs to know."""

from __future__ import annotations

from booking_core.booking import Booking
from booking_core.errors import NoOpenPaymentIntent, NotFound
from booking_core.payments import Payment
from booking_core.usecases.deps import Deps


def open_intent(deps: Deps, booking_id: str) -> tuple[Booking, Payment]:
    """The booking and its newest payment intent that can still be paid.

    Raises NotFound for an unknown booking and NoOpenPaymentIntent when it has no such intent.
    """
    with deps.read() as uow:
        booking = uow.bookings.get(booking_id.strip())
        if booking is None:
            raise NotFound(f"No booking with id {booking_id}.")
        payments = [p for p in uow.payments.for_booking(booking.id) if p.is_open]
    if not payments:
        raise NoOpenPaymentIntent(booking.id, booking.status)
    return booking, payments[-1]
