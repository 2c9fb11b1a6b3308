"""Paying for bookings: opening provider intents and applying the provider's events."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from booking_core.accounts import Actor
from booking_core.booking import Booking, BookingStatus
from booking_core.commission import Commission, CommissionStatus, commission_amount, commission_month
from booking_core.errors import AlreadyPaid, InvalidTransition
from booking_core.outbox import MailTemplate
from booking_core.payments import Payment, PaymentStatus, to_minor_units
from booking_core.ports import OutboxMessage, UnitOfWork
from booking_core.usecases.bookings import owned_booking
from booking_core.usecases.deps import Deps

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class PaymentIntentView:
    """What the caller's frontend needs to confirm a payment with the provider."""

    payment: Payment
    publishable_key: str
    provider_account_id: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class PaymentEvent:
    """A provider event reduced to what the domain needs."""

    id: str
    type: str
    payment_intent_id: str
    booking_id: str | None
    amount_minor: int | None
    currency: str | None
    failure_message: str = ""


def create_payment_intent(
    deps: Deps,
    actor: Actor,
    booking_id: str,
    *,
    record: Callable[[UnitOfWork, PaymentIntentView], None] | None = None,
) -> PaymentIntentView:
    """Open (or reuse) a provider intent for the caller's pending booking.

    ``record`` runs in the same transaction just before it commits (see ``create_booking``).
    """
    now = deps.clock.now()
    with deps.uow() as uow:
        booking = owned_booking(uow, actor, booking_id)
        if booking.status is BookingStatus.PAID or booking.paid_at is not None:
            raise AlreadyPaid("This booking has already been paid.")
        if booking.hold_expired(now):
            raise InvalidTransition("The hold of this booking has expired (status 'cancelled'); book again.")
        if booking.status is not BookingStatus.PENDING:
            raise InvalidTransition(f"Cannot pay a booking with status '{booking.status}'.")
        resource = uow.resources.get(booking.resource_id)
        account = resource.venue.provider_account_id if resource else None
        existing = [p for p in uow.payments.for_booking(booking.id) if p.is_open]
        if existing and existing[-1].amount == booking.total_price:
            reused = PaymentIntentView(
                payment=existing[-1],
                publishable_key=deps.payments.publishable_key,
                provider_account_id=account,
            )
            if record is not None:
                record(uow, reused)
                uow.commit()
            return reused
        intent = deps.payments.create_intent(
            amount_minor=to_minor_units(booking.total_price, booking.currency),
            currency=booking.currency,
            booking_id=booking.id,
            idempotency_key=f"intent-{booking.id}-{len(existing)}",
            destination_account=account,
            reference_code=booking.reference_code,
        )
        payment = Payment(
            id=deps.ids.new_id(),
            booking_id=booking.id,
            provider=deps.payments.provider_name,
            payment_intent_id=intent.id,
            client_secret=intent.client_secret,
            amount=booking.total_price,
            currency=booking.currency,
            created_at=now,
        )
        uow.payments.add(payment)
        view = PaymentIntentView(
            payment=payment, publishable_key=deps.payments.publishable_key, provider_account_id=account
        )
        if record is not None:
            record(uow, view)
        uow.commit()
    return view


def apply_payment_event(deps: Deps, event: PaymentEvent) -> None:
    """Apply one provider event exactly once; unknown events and bookings are ignored."""
    now = deps.clock.now()
    with deps.uow() as uow:
        if not uow.payments.mark_event_processed(event.id, now):
            return
        payment = uow.payments.by_intent(event.payment_intent_id)
        booking_id = payment.booking_id if payment else event.booking_id
        booking = uow.bookings.get(booking_id) if booking_id else None
        if booking is None:
            log.warning("payment event %s names no known booking", event.id)
            uow.commit()
            return
        if event.type == "payment_intent.succeeded":
            _succeeded(deps, uow, booking, payment, event, now)
        elif event.type == "payment_intent.payment_failed" and payment is not None:
            uow.payments.save(
                replace(payment, status=PaymentStatus.FAILED, failure_message=event.failure_message)
            )
        elif event.type == "charge.refunded":
            _refunded(uow, booking, payment, now)
        uow.commit()


def _succeeded(
    deps: Deps, uow: UnitOfWork, booking: Booking, payment: Payment | None, event: PaymentEvent, now: datetime
) -> None:
    if event.amount_minor is None or event.amount_minor != to_minor_units(
        booking.total_price, booking.currency
    ):
        log.error(
            "payment %s amount %s does not match booking %s total %s",
            event.payment_intent_id,
            event.amount_minor,
            booking.id,
            booking.total_price,
        )
        return
    if payment is not None:
        uow.payments.save(replace(payment, status=PaymentStatus.SUCCEEDED, paid_at=now))
    if booking.status is BookingStatus.PENDING:
        paid = booking.mark_paid(now)
    elif (
        booking.status is BookingStatus.CANCELLED
        and booking.paid_at is None
        and _still_free(uow, booking, now)
    ):
        paid = booking.mark_paid_after_expiry(now)
    elif booking.status is BookingStatus.PAID:
        return
    else:
        # the time went to someone else (or the owner cancelled): give the money back at once
        deps.payments.refund(event.payment_intent_id, idempotency_key=f"refund-{booking.id}")
        if payment is not None:
            uow.payments.save(replace(payment, status=PaymentStatus.REFUND_PENDING, paid_at=now))
        return
    uow.bookings.save(paid)
    _record_commission(deps, uow, paid, now)
    for template in (MailTemplate.BOOKING_PAID_USER, MailTemplate.BOOKING_PAID_OPERATOR):
        uow.outbox.add(OutboxMessage.email(template, paid.id, id=deps.ids.new_id(), now=now))


def _still_free(uow: UnitOfWork, booking: Booking, now: datetime) -> bool:
    uow.resources.lock(booking.resource_id)
    others = uow.bookings.blocked_slots(booking.resource_id, booking.span, now)
    return not any(b.booking_id != booking.id and b.span.overlaps(booking.span) for b in others)


def _record_commission(deps: Deps, uow: UnitOfWork, booking: Booking, now: datetime) -> None:
    if booking.client_id is None or uow.commissions.for_booking(booking.id) is not None:
        return
    client = uow.clients.get(booking.client_id)
    resource = uow.resources.get(booking.resource_id)
    if client is None or resource is None:
        return
    uow.commissions.add(
        Commission(
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
    )


def _refunded(uow: UnitOfWork, booking: Booking, payment: Payment | None, now: datetime) -> None:
    if payment is not None:
        uow.payments.save(replace(payment, status=PaymentStatus.REFUNDED, refunded_at=now))
    if booking.status in {BookingStatus.CANCELLED, BookingStatus.PAID} and booking.paid_at is not None:
        uow.bookings.save(booking.mark_refunded(now))
    commission = uow.commissions.for_booking(booking.id)
    if commission is not None and commission.status is CommissionStatus.OPEN:
        uow.commissions.save(commission.reverse())
