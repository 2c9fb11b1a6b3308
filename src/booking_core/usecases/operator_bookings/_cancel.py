"""The venue cancels a booking, with the refund the staff member's role may choose (CONTRACT 7.4, 9.2)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from booking_core.audit import AuditAction
from booking_core.booking import CancellationReason
from booking_core.catalog import Resource
from booking_core.errors import ValidationFailed
from booking_core.payments import VENUE_PROVIDER, Payment
from booking_core.ports import PaymentEvent, UnitOfWork
from booking_core.refund_choice import RefundChoice
from booking_core.staff import Action, Staff
from booking_core.state_machine import Event
from booking_core.usecases.changes import kept_payment
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_bookings._common import (
    audit_booking,
    booking_of,
    resource_of,
    venue_of_booking,
)
from booking_core.usecases.payments import apply_payment_event
from booking_core.usecases.permissions import require
from booking_core.usecases.venue_cancel import VenueCancellation, cancel_booking_for_venue


@dataclass(frozen=True, slots=True, kw_only=True)
class StaffCancellation:
    """A booking the venue's staff cancelled, with its resource (for the local time of the answer)."""

    cancellation: VenueCancellation
    resource: Resource

    @property
    def refunded(self) -> bool:
        """Whether the booking had been paid, so that the answer names a refund (perhaps 0)."""
        return self.cancellation.booking.paid_at is not None


#: The refund choices a desk may make; the others (``none``, an amount) are overrides (CONTRACT 7.1).
_DESK_REFUNDS = frozenset({RefundChoice.POLICY, RefundChoice.FULL})
_VENUE_REASONS = frozenset(
    {CancellationReason.USER_REQUEST, CancellationReason.WEATHER, CancellationReason.OTHER}
)


def cancel_staff_booking(
    deps: Deps,
    staff: Staff | None,
    booking_id: str,
    *,
    reason: str | None = None,
    notes: str = "",
    refund: str = "policy",
    amount: str | None = None,
) -> StaffCancellation:
    """Cancel a booking for its venue, giving back what ``refund`` chooses of its payment (CONTRACT 7.4).

    ``policy`` and ``full`` are the desk's; ``none`` and ``amount`` need a manager. The money side
    (state machine, refund request, commission, the customer's mail) is
    :func:`~booking_core.usecases.venue_cancel.cancel_booking_for_venue`; the audit entry
    ``booking.cancel`` with the refund is written in its transaction.

    Raises:
        NotFound: the booking is unknown or of a venue staff do not see.
        PermissionDenied: the role may not cancel, or not choose this refund.
        ValidationFailed: ``reason``, ``refund`` or ``amount`` (more than was paid, say) named.
        InvalidTransition: the booking is not live (its status named).
    """
    with deps.uow() as uow:
        venue_id = venue_of_booking(uow, staff, booking_id, Action.OPERATE)
        resource = resource_of(uow, booking_of(uow, booking_id).resource_id, bookable=False)
        paid_with = kept_payment(uow, booking_id)
    choice = parse_refund_choice(refund)
    if choice not in _DESK_REFUNDS:
        require(staff, Action.OVERRIDE, venue_id)
    cause = parse_venue_reason(reason)
    money = parse_amount(amount)

    def audited(uow: UnitOfWork, done: VenueCancellation) -> None:
        details = {
            "refund": choice.value,
            "refund_amount": str(done.refund_amount),
            "currency": done.currency,
            "reason": cause.value,
        }
        audit_booking(deps, uow, staff, AuditAction.BOOKING_CANCEL, done.booking, resource, details)

    cancelled = cancel_booking_for_venue(
        deps, booking_id, reason=cause, notes=notes, refund=choice, amount=money, before_commit=audited
    )
    if paid_with is not None and paid_with.provider == VENUE_PROVIDER and cancelled.refund_amount > 0:
        _handed_back_at_the_desk(deps, paid_with, cancelled.refund_amount)
    return StaffCancellation(cancellation=cancelled, resource=resource)


def _handed_back_at_the_desk(deps: Deps, payment: Payment, amount: Decimal) -> None:
    """Report the refund of a payment taken at the venue as given back, as a provider reports its
    own: no provider is asked (:func:`~booking_core.usecases.refunds.send_refunds` leaves it), the
    staff member hands the money back, and the state machine settles the booking and its commission."""
    unit = deps.currencies.unit(payment.currency)
    whole = amount >= payment.amount
    apply_payment_event(
        deps,
        PaymentEvent(
            id=f"{payment.payment_intent_id}-refund",
            kind=Event.REFUND_REPORTED if whole else Event.PARTIAL_REFUND_REPORTED,
            payment_intent_id=payment.payment_intent_id,
            booking_id=payment.booking_id,
            amount_minor=unit.to_minor(payment.amount),
            currency=payment.currency,
            label="venue.refund",
            refunded_minor=unit.to_minor(amount),
        ),
    )


def parse_refund_choice(refund: str) -> RefundChoice:
    """A refund choice (400 naming ``refund`` otherwise)."""
    try:
        return RefundChoice(refund)
    except ValueError:
        raise ValidationFailed("Refund must be one of policy, full, none, amount.", field="refund") from None


def parse_venue_reason(reason: str | None) -> CancellationReason:
    """Why the venue cancels (``other`` unless given; 400 naming ``reason`` for an unknown one)."""
    if not reason:
        return CancellationReason.OTHER
    if reason not in _VENUE_REASONS:
        raise ValidationFailed("Reason must be one of user_request, weather, other.", field="reason")
    return CancellationReason(reason)


def parse_amount(amount: str | None) -> Decimal | None:
    """A refund amount as a decimal (400 naming ``amount`` when it is none); checked against the
    payment by the cancel itself."""
    if amount is None:
        return None
    try:
        return Decimal(amount.strip())
    except InvalidOperation:
        raise ValidationFailed("Amount must be a decimal number such as 20.00.", field="amount") from None
