"""Applying one event to one booking: lock it, decide with the state machine, store what follows.

Every path that changes a booking or its payment goes through here: the owner's cancel, the
provider's events, the worker's hold expiry and completion sweeps, the operator's commands. The
booking is re-read under its lock (:meth:`~booking_core.ports.Bookings.lock_for_change`) in the
transaction that stores the change, so concurrent events are applied one after another.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from decimal import Decimal

from booking_core.booking import Booking
from booking_core.commission import Commission, commission_amount, commission_month
from booking_core.commission_refunds import follow_refund
from booking_core.errors import InvalidTransition, NotFound
from booking_core.outbox import MailTemplate
from booking_core.payments import Payment, PaymentStatus, RefundRequest, refund_key
from booking_core.ports import OutboxMessage, UnitOfWork
from booking_core.state_machine import Change, Circumstances, CommissionAction, Event, decide
from booking_core.usecases.deps import Deps
from booking_core.usecases.refunds import send_refunds
from booking_core.usecases.retry import retried


def circumstances(
    uow: UnitOfWork, booking: Booking, now: datetime, *, time_free: Callable[[], bool] | None = None
) -> Circumstances:
    """The facts the state machine needs about ``booking``'s resource at ``now``."""
    resource = uow.resources.get(booking.resource_id)
    if resource is None:  # the catalog never deletes resources that have bookings
        raise NotFound("Resource not found.")
    found = Circumstances(
        now=now, deadline_hours=resource.cancellation_deadline_hours, timezone=resource.venue.timezone
    )
    return found if time_free is None else replace(found, time_free=time_free)


def store_change(
    deps: Deps, uow: UnitOfWork, before: Booking, paid_with: Payment | None, change: Change
) -> list[RefundRequest]:
    """Store ``change`` of ``before`` (and of its payment ``paid_with``) in the caller's unit of work:
    booking, payment, commission, notices and refund request. Returns the refund requests added,
    for the caller to send once the unit of work has committed."""
    now = deps.clock.now()
    if change.booking != before:
        uow.bookings.save(change.booking)
    if change.payment is not None and change.payment != paid_with:
        uow.payments.save(change.payment)
    for action in change.commission:
        _commission(deps, uow, change.booking, change.payment, action, now)
    for template in change.notices:  # one row per recipient, written by the transition that owns it
        details = notice_details(template, change.payment)
        message = OutboxMessage.email(
            template, change.booking.id, id=deps.ids.new_id(), now=now, details=details
        )
        uow.outbox.add(message)
    added: list[RefundRequest] = []
    if change.payment is not None and change.refund:
        request = RefundRequest(
            payment_id=change.payment.id,
            booking_id=change.booking.id,
            payment_intent_id=change.payment.payment_intent_id,
            idempotency_key=refund_key(change.payment),
            amount=change.refund_amount,
            requested_at=now,
            next_attempt_at=now,
        )
        if uow.refunds.add(request):
            added.append(request)
    if change.payment is not None and change.settles_refund:
        uow.refunds.accepted(change.payment.id, None, now)
    return added


def _commission(
    deps: Deps,
    uow: UnitOfWork,
    booking: Booking,
    payment: Payment | None,
    action: CommissionAction,
    now: datetime,
) -> None:
    """Earn the client's commission on ``booking``, or make its records follow a refund (CONTRACT 9.2)."""
    if booking.client_id is None:
        return
    resource = uow.resources.get(booking.resource_id)
    if resource is None:
        return
    records = uow.commissions.of_booking(booking.id)
    month_now = commission_month(now, resource.venue.timezone)
    if action is CommissionAction.EARN:
        client = uow.clients.get(booking.client_id)
        if records or client is None:
            return
        earned = Commission(
            id=deps.ids.new_id(),
            booking_id=booking.id,
            reference_code=booking.reference_code,
            client_id=client.id,
            base_amount=booking.total_price,
            commission_percent=client.commission_percent,
            amount=commission_amount(booking.total_price, client.commission_percent),
            currency=booking.currency,
            month=commission_month(booking.paid_at or now, resource.venue.timezone),
            created_at=now,
        )
        uow.commissions.add(earned)
        records = [earned]
        if payment is None or not payment.refunded_amount:
            return
        # part of the payment went back before its success was reported: earn on what is kept
    paid = payment.amount if payment is not None else booking.total_price
    # what goes back as decided counts at once (a venue's partial refund), not only what was reported
    refunded = payment.given_back if action is not CommissionAction.REVERSE and payment else paid
    correction = follow_refund(
        records, paid=paid, refunded=refunded, new_id=deps.ids.new_id, now=now, month=month_now
    )
    for record in correction.changed:
        uow.commissions.save(record)
    if correction.added is not None:
        uow.commissions.add(correction.added)


def notice_details(template: MailTemplate, payment: Payment | None) -> dict[str, str]:
    """What an email about a refund says beyond the booking: how much goes back (CONTRACT 6, 9.2)."""
    if payment is None or template not in _REFUND_NOTICES:
        return {}
    amount = payment.given_back if payment.taken else Decimal(0)
    return {"refund_amount": str(amount), "currency": payment.currency}


_REFUND_NOTICES = frozenset(
    {MailTemplate.BOOKING_REFUNDED_USER, MailTemplate.BOOKING_CANCELLED_BY_VENUE_USER}
)


def kept_payment(uow: UnitOfWork, booking_id: str) -> Payment | None:
    """The payment whose money the booking keeps (the one to give back when it is cancelled)."""
    kept = [p for p in uow.payments.for_booking(booking_id) if p.status is PaymentStatus.SUCCEEDED]
    return kept[-1] if kept else None


@retried
def apply_event(deps: Deps, booking_id: str, event: Event) -> Change:
    """Apply a payment-free ``event`` (operator command, sweep) to one booking in its own transaction.

    Raises:
        NotFound: no such booking.
        InvalidTransition: the state machine refuses ``event`` now (the message names the status).
    """
    now = deps.clock.now()
    with deps.uow() as uow:
        booking = uow.bookings.lock_for_change(booking_id)
        if booking is None:
            raise NotFound(f"Booking {booking_id} not found.")
        change = decide(booking, event, circumstances(uow, booking, now))
        if change.refusal is not None:
            raise InvalidTransition(change.refusal)
        refunds = store_change(deps, uow, booking, None, change) if change.changes_anything else []
        uow.commit()
    send_refunds(deps, refunds)
    return change
