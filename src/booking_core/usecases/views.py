"""Read models the use cases return: a booking with what its representations need."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from booking_core.accounts import Actor, Client, User
from booking_core.booking import Booking
from booking_core.catalog import Resource
from booking_core.errors import NotFound
from booking_core.payments import Payment, PaymentStatus
from booking_core.ports import UnitOfWork


@dataclass(frozen=True, slots=True, kw_only=True)
class BookingView:
    """A booking with its resource (and venue), latest payment and client."""

    booking: Booking
    resource: Resource
    payment: Payment | None
    client: Client | None
    external_user_id: str | None
    now: datetime

    @property
    def can_cancel(self) -> bool:
        """Whether the owner may still cancel."""
        return self.booking.can_cancel(self.now, self.resource.cancellation_deadline_hours)

    @property
    def is_upcoming(self) -> bool:
        """Whether the booking is live and lies ahead."""
        return self.booking.is_upcoming(self.now)


def booking_view(uow: UnitOfWork, booking: Booking, now: datetime) -> BookingView:
    """Assemble the view of ``booking`` inside an open unit of work (see :func:`booking_views`)."""
    (view,) = booking_views(uow, [booking], now)
    return view


def booking_views(uow: UnitOfWork, bookings: Sequence[Booking], now: datetime) -> list[BookingView]:
    """The views of ``bookings`` inside an open unit of work, with a few statements for a whole page
    instead of a few per booking: the payments and the clients' user mappings are read at once.

    A pending booking whose hold lapsed is shown as the expired booking it is, even before the
    worker's sweep has stored that.
    """
    payments = uow.payments.for_bookings([b.id for b in bookings])
    # one statement each for the whole page, however many clients made its bookings
    clients = uow.clients.get_many({b.client_id for b in bookings if b.client_id is not None})
    external = uow.user_mappings.for_pairs(
        {(b.client_id, b.user_id) for b in bookings if b.client_id is not None and b.client_id in clients}
    )
    views = []
    for booking in bookings:
        resource = uow.resources.get(booking.resource_id)
        if resource is None:  # the catalog never deletes resources that have bookings
            raise NotFound("Resource not found.")
        client = clients.get(booking.client_id) if booking.client_id is not None else None
        mapping = external.get((client.id, booking.user_id)) if client is not None else None
        views.append(
            BookingView(
                booking=booking.as_of(now),
                resource=resource,
                payment=current_payment(payments.get(booking.id, ())),
                client=client,
                external_user_id=mapping.external_id if mapping else None,
                now=now,
            )
        )
    return views


def current_payment(payments: Sequence[Payment]) -> Payment | None:
    """The payment a booking shows: the latest that the provider did not cancel (and was replaced)."""
    live = [p for p in payments if p.status is not PaymentStatus.CANCELED] or list(payments)
    return live[-1] if live else None


def can_see(actor: Actor, booking: Booking) -> bool:
    """Object-level authorization: a client sees only its bookings, a user only their own."""
    if actor.client_id is not None:
        if booking.client_id != actor.client_id:
            return False
        return actor.user_id is None or booking.user_id == actor.user_id
    return actor.user_id is not None and booking.user_id == actor.user_id


def can_act(actor: Actor, booking: Booking) -> bool:
    """Whether ``actor`` may change ``booking``: its owner, directly or through its client."""
    return actor.user_id is not None and can_see(actor, booking)


@dataclass(frozen=True, slots=True, kw_only=True)
class OpBookingView:
    """A booking as venue staff see it (CONTRACT 7.2's op-booking): the booking's view and its customer."""

    view: BookingView
    customer: User

    @property
    def booking(self) -> Booking:
        """The booking (as of the view's moment)."""
        return self.view.booking


def op_booking_views(uow: UnitOfWork, bookings: Sequence[Booking], now: datetime) -> list[OpBookingView]:
    """:func:`booking_views` of ``bookings`` with their customers, read in one step for the page."""
    customers = uow.users.get_many({b.user_id for b in bookings})
    views = booking_views(uow, bookings, now)
    missing = [v.booking.user_id for v in views if v.booking.user_id not in customers]
    if missing:  # users are never deleted while they have bookings
        raise NotFound("Customer not found.")
    return [OpBookingView(view=v, customer=customers[v.booking.user_id]) for v in views]
