"""The venue cancels a booking, giving back all, part or none of its payment (CONTRACT 7.3, 7.4, 9.2).

:func:`cancel_for_venue` works inside a unit of work the caller holds open, so a block that cancels
the bookings in its way (a rain-out) and the operator's cancel share it; :func:`cancel_booking_for_venue`
is the cancel of one booking in a transaction of its own. Either way the booking is locked and re-read,
the state machine decides (``Event.VENUE_CANCEL``: any live booking, whatever the customer's deadline),
and what follows is stored with the change: the refund request of the part chosen, the commission on
what the venue keeps, the customer's mail. The refund request is sent once the transaction commits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from booking_core.booking import Booking, CancellationReason
from booking_core.errors import InvalidTransition, NotFound
from booking_core.payments import Payment, RefundRequest
from booking_core.ports import UnitOfWork
from booking_core.refund_choice import RefundChoice, chosen_refund, default_policy
from booking_core.state_machine import CancelRequest, Change, Event, decide
from booking_core.usecases.changes import circumstances, kept_payment, store_change
from booking_core.usecases.deps import Deps
from booking_core.usecases.refunds import send_refunds
from booking_core.usecases.retry import retried


@dataclass(frozen=True, slots=True, kw_only=True)
class VenueCancellation:
    """A booking the venue cancelled: the booking as stored, what the customer gets back of its
    payment (0 when nothing, or nothing was paid) in ``currency``, and the refund requests to send
    once the unit of work commits (:func:`~booking_core.usecases.refunds.send_refunds`)."""

    booking: Booking
    refund_amount: Decimal
    currency: str
    refunds: tuple[RefundRequest, ...] = ()


def cancel_for_venue(
    deps: Deps,
    uow: UnitOfWork,
    booking_id: str,
    *,
    reason: CancellationReason,
    notes: str,
    refund: RefundChoice,
    amount: Decimal | None,
    now: datetime,
) -> VenueCancellation:
    """Cancel one booking for its venue in the caller's open ``uow`` (which the caller commits).

    The refund is ``refund`` (``amount`` with :attr:`RefundChoice.AMOUNT`) of the payment the booking
    keeps; the venue-cancellation mail is queued. The caller sends ``refunds`` after its commit.

    Raises:
        NotFound: no such booking.
        ValidationFailed: (field ``amount``) an amount the choice does not allow.
        InvalidTransition: the booking is not live (its status named), or has ended.
    """
    before, kept, change, refunded = _decided(deps, uow, booking_id, reason, notes, refund, amount, now)
    if change.refusal is not None:
        raise InvalidTransition(change.refusal)
    requests = store_change(deps, uow, before, kept, change)
    return VenueCancellation(
        booking=change.booking, refund_amount=refunded, currency=before.currency, refunds=tuple(requests)
    )


#: What the operator's route does inside the transaction before it commits (the audit entry).
BeforeCommit = Callable[[UnitOfWork, VenueCancellation], None]


@retried
def cancel_booking_for_venue(
    deps: Deps,
    booking_id: str,
    *,
    reason: CancellationReason,
    notes: str = "",
    refund: RefundChoice,
    amount: Decimal | None = None,
    before_commit: BeforeCommit | None = None,
) -> VenueCancellation:
    """Cancel one booking for its venue in a transaction of its own, then send its refund.

    ``before_commit`` runs in the same transaction once the cancellation is stored (the operator's
    route writes its audit entry there); whatever it raises undoes the cancellation. Raises as
    :func:`cancel_for_venue`. A lapsed hold is refused (status ``cancelled``) but keeps the venue's
    reason, so that a payment still arriving is refunded.
    """
    now = deps.clock.now()
    with deps.uow() as uow:
        before, kept, change, refunded = _decided(deps, uow, booking_id, reason, notes, refund, amount, now)
        if change.refusal is not None:
            if change.keep_when_refused:
                store_change(deps, uow, before, kept, change)
                uow.commit()
            raise InvalidTransition(change.refusal)
        requests = store_change(deps, uow, before, kept, change)
        cancellation = VenueCancellation(
            booking=change.booking, refund_amount=refunded, currency=before.currency, refunds=tuple(requests)
        )
        if before_commit is not None:
            before_commit(uow, cancellation)
        uow.commit()
    send_refunds(deps, cancellation.refunds)
    return cancellation


def _decided(
    deps: Deps,
    uow: UnitOfWork,
    booking_id: str,
    reason: CancellationReason,
    notes: str,
    refund: RefundChoice,
    amount: Decimal | None,
    now: datetime,
) -> tuple[Booking, Payment | None, Change, Decimal]:
    """The booking under its lock, its kept payment, the state machine's decision and the refund chosen."""
    booking = uow.bookings.lock_for_change(booking_id)
    if booking is None:
        raise NotFound("Booking not found.")
    kept = kept_payment(uow, booking.id)
    at = circumstances(uow, booking, now)
    refused = decide(
        booking, Event.VENUE_CANCEL, at, payment=kept, cancel=CancelRequest(reason=reason, notes=notes)
    )
    if (
        refused.refusal is not None
    ):  # a booking that is not live is refused naming its status, whatever the choice
        return booking, kept, refused, Decimal(0)
    unit = deps.currencies.unit(booking.currency)
    chosen = chosen_refund(
        refund,
        amount=amount,
        paid=kept.amount if kept is not None else Decimal(0).quantize(unit.minor),
        unit=unit,
        start=booking.start,
        now=now,
        policy=default_policy(at.deadline_hours),  # the resource's own tiers, once it has them (9.1)
    )
    cancel = CancelRequest(reason=reason, notes=notes, refund=chosen)
    change = decide(booking, Event.VENUE_CANCEL, at, payment=kept, cancel=cancel)
    return booking, kept, change, chosen
