"""Paying for bookings: opening provider intents and applying the provider's events."""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from booking_core.accounts import Actor
from booking_core.booking import Booking
from booking_core.claims import neighbourhood
from booking_core.payments import Payment, intent_key
from booking_core.ports import IdempotentRequest, PaymentEvent, UnitOfWork
from booking_core.rules import accepts_late_payment
from booking_core.state_machine import PROVIDER_EVENTS, Event, Outcome, decide, require_payable
from booking_core.usecases.bookings import expire_stale_holds, owned
from booking_core.usecases.changes import circumstances, store_change
from booking_core.usecases.deps import Deps
from booking_core.usecases.idempotency import remember_in
from booking_core.usecases.refunds import send_refunds
from booking_core.usecases.retry import retried

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class PaymentIntentView:
    """What the caller's frontend needs to confirm a payment with the provider."""

    payment: Payment
    publishable_key: str
    provider_account_id: str | None


class Delivery(enum.StrEnum):
    """What became of one delivered event (the webhook counts these)."""

    APPLIED = "applied"  #: it changed the booking or its payment
    IGNORED = "ignored"  #: nothing to change: what it reports is known already, or not acted on
    DUPLICATE = "duplicate"  #: this event id was applied before
    MISMATCH = "mismatch"  #: its intent, amount or currency are not the booking's payment's: refused
    UNKNOWN = "unknown"  #: it names no payment or booking of this service


@dataclass(frozen=True, slots=True, kw_only=True)
class EventResult:
    """The delivery's fate and, when applied, the state machine's outcomes."""

    delivery: Delivery
    outcomes: tuple[Outcome, ...] = ()


@retried
def create_payment_intent(
    deps: Deps,
    actor: Actor,
    booking_id: str,
    *,
    idempotency: IdempotentRequest[PaymentIntentView] | None = None,
) -> PaymentIntentView:
    """Open a provider intent for the caller's pending booking, or return the one still open.

    The booking is locked meanwhile, so concurrent calls return the same intent. The provider is
    asked whether the open intent is still open; one it cancelled is replaced. When the provider
    fails, nothing is stored (PaymentProviderError). With ``idempotency`` its answer is stored in
    the same transaction (:func:`~booking_core.usecases.idempotency.remember_in`).
    """
    now = deps.clock.now()
    with deps.uow() as uow:
        booking = owned(actor, uow.bookings.lock_for_payment(booking_id))  # the booking stays as it is
        require_payable(booking, now)
        resource = uow.resources.get(booking.resource_id)
        account = resource.venue.provider_account_id if resource else None
        earlier = uow.payments.for_booking(booking.id)
        payment = _still_open(deps, uow, earlier, booking) or _open(deps, uow, booking, len(earlier), account)
        view = PaymentIntentView(
            payment=payment, publishable_key=deps.payments.publishable_key, provider_account_id=account
        )
        remember_in(uow, idempotency, view, now)
        uow.commit()
    return view


def _still_open(deps: Deps, uow: UnitOfWork, earlier: Sequence[Payment], booking: Booking) -> Payment | None:
    latest = next((p for p in reversed(earlier) if p.is_open), None)
    if latest is None or (latest.amount, latest.currency) != (booking.total_price, booking.currency):
        return None
    if not deps.payments.retrieve_intent(latest.payment_intent_id).cancelled:
        return latest
    at = circumstances(uow, booking, deps.clock.now())
    store_change(deps, uow, booking, latest, decide(booking, Event.INTENT_CANCELLED, at, payment=latest))
    return None


def _open(deps: Deps, uow: UnitOfWork, booking: Booking, attempt: int, account: str | None) -> Payment:
    now = deps.clock.now()
    intent = deps.payments.create_intent(
        amount_minor=deps.currencies.unit(booking.currency).to_minor(booking.total_price),
        currency=booking.currency,
        booking_id=booking.id,
        idempotency_key=intent_key(booking.id, attempt, now),
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
    return payment


@retried
def apply_payment_event(deps: Deps, event: PaymentEvent) -> EventResult:
    """Apply one provider event once, under the booking's lock, as the state machine decides.

    An event whose intent, amount or currency are not the booking's own payment's changes nothing
    (logged, and reported as a mismatch). A payment that arrives for a booking that can no longer
    take it is refunded: the request is stored with the change and sent right after the commit.
    """
    if event.kind not in PROVIDER_EVENTS:
        return EventResult(delivery=Delivery.IGNORED)
    now = deps.clock.now()
    with deps.uow() as uow:
        payment = uow.payments.by_intent(event.payment_intent_id) if event.payment_intent_id else None
        problem = _mismatch(deps, uow, event, payment)
        if problem is not None:
            log.error("payment event %s refused: %s", event.id, problem)
            return EventResult(delivery=Delivery.MISMATCH)
        if payment is None:
            log.warning("payment event %s names no payment or booking of this service", event.id)
            return EventResult(delivery=Delivery.UNKNOWN)
        # resource first: a late payment may have to find out whether its time is still free
        booking = uow.bookings.lock_for_change(payment.booking_id, resource_first=True)
        if booking is None or not uow.payments.mark_event_processed(event.id, now):
            return EventResult(delivery=Delivery.DUPLICATE)
        payment = uow.payments.by_intent(payment.payment_intent_id) or payment  # as it is under the lock
        refunded = None
        if event.kind is Event.PARTIAL_REFUND_REPORTED:
            refunded = deps.currencies.unit(payment.currency).from_minor(event.refunded_minor or 0)
        at = circumstances(uow, booking, now, time_free=_time_free(uow, booking, now))
        failure = event.failure_message
        change = decide(booking, event.kind, at, payment=payment, failure=failure, refunded=refunded)
        refunds = store_change(deps, uow, booking, payment, change) if change.changes_anything else []
        uow.commit()
    send_refunds(deps, refunds)
    delivery = Delivery.APPLIED if change.changes_anything else Delivery.IGNORED
    return EventResult(delivery=delivery, outcomes=change.outcomes)


def _mismatch(deps: Deps, uow: UnitOfWork, event: PaymentEvent, payment: Payment | None) -> str | None:
    """Why ``event`` is not about ``payment`` (the payment its intent id names), if it is not."""
    if payment is None:
        named = uow.bookings.get(event.booking_id) if event.booking_id else None
        if named is None:
            return None
        return f"intent {event.payment_intent_id!r} is not a payment of booking {named.id}"
    if event.booking_id is not None and event.booking_id != payment.booking_id:
        owner = payment.booking_id
        return f"intent {payment.payment_intent_id} belongs to booking {owner}, not {event.booking_id}"
    unit = deps.currencies.unit(payment.currency)
    if not payment.matches(amount_minor=event.amount_minor, currency=event.currency, unit=unit):
        expected = f"{unit.to_minor(payment.amount)} {payment.currency}"
        reported = f"{event.amount_minor} {event.currency}"
        return f"{reported} reported for intent {payment.payment_intent_id} of {expected}"
    return None


def _time_free(uow: UnitOfWork, booking: Booking, now: datetime) -> Callable[[], bool]:
    """Whether the booking rules still accept ``booking``'s time now, for a payment that reached it
    after its hold lapsed (:func:`booking_core.rules.accepts_late_payment`: overlap, closures,
    opening hours and the gap rule, not the lead time).

    The caller holds the resource's lock (``lock_for_change(..., resource_first=True)``), the lock
    a booking of a resource with the gap rule takes before it reads its neighbours, so no booking
    next to this one can be stored between this check and the commit; overlap is guarded by the
    storage's constraint as for every booking.
    """

    def free() -> bool:
        resource = uow.resources.get(booking.resource_id)
        if resource is None or not (resource.is_active and resource.is_bookable):
            return False
        # lapsed holds no longer block, but the storage's overlap guard counts them until expired
        expire_stale_holds(uow, now, booking.resource_id, keep=booking.id)
        near = uow.bookings.blocked_slots(
            booking.resource_id, neighbourhood(resource, booking.span).span, now
        )
        others = [slot.span for slot in near if slot.booking_id != booking.id]
        return accepts_late_payment(resource, booking.span, others)

    return free
