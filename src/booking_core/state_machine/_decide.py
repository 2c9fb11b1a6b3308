"""One event for one booking: the table's outcome, and everything that outcome changes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

from booking_core.booking import Booking, BookingStatus, CancellationReason
from booking_core.errors import AlreadyPaid, InvalidTransition
from booking_core.outbox import MailTemplate
from booking_core.payments import Payment, PaymentStatus
from booking_core.state_machine._effects import Change, CommissionAction
from booking_core.state_machine._table import PROVIDER_EVENTS, TABLE, Event, Fact, Outcome, Rule, Stage


def _always_free() -> bool:
    return True


@dataclass(frozen=True, slots=True, kw_only=True)
class Circumstances:
    """The facts of the moment an event is decided in.

    ``time_free`` tells whether the booking rules still accept the booking's time: no other booking
    or closure takes it, and the gap rule allows what it leaves around it. It is asked only when a
    payment reaches a lapsed hold whose start is still ahead (the caller holds the resource's lock
    then, so the answer stands until the decision is stored).
    """

    now: datetime
    deadline_hours: int = 0
    timezone: str = "UTC"
    time_free: Callable[[], bool] = _always_free


@dataclass(frozen=True, slots=True, kw_only=True)
class CancelRequest:
    """Why the owner (or the venue's staff) cancels, and what goes back of the payment kept.

    ``refund`` is what the customer gets back of the kept payment's amount in all (what the provider
    already reported given back counts), as the venue chose it (:mod:`booking_core.refund_choice`);
    None gives back all of it, as an owner's cancel always does.
    """

    reason: CancellationReason = CancellationReason.USER_REQUEST
    notes: str = ""
    refund: Decimal | None = None


def stage_of(booking: Booking, now: datetime) -> Stage:
    """The row of the table ``booking`` is in at ``now`` (a pending hold that lapsed is expired)."""
    current = booking.as_of(now)
    if current.status is BookingStatus.CANCELLED:
        expired = current.cancellation_reason is CancellationReason.EXPIRED
        return Stage.EXPIRED if expired else Stage.CANCELLED
    return Stage(current.status.value)


def decide(
    booking: Booking,
    event: Event,
    at: Circumstances,
    *,
    payment: Payment | None = None,
    cancel: CancelRequest | None = None,
    failure: str = "",
    refunded: Decimal | None = None,
) -> Change:
    """What ``event`` does to ``booking`` (and, for provider events, to ``payment``, which it is about).

    For a cancel of a paid booking, ``payment`` is the payment it keeps (to be given back, all of it
    or what ``cancel.refund`` says). For a partial refund, ``refunded`` is how much of ``payment`` the
    provider reports given back in all.
    """
    if event in PROVIDER_EVENTS:
        if payment is None:
            raise ValueError(f"a {event} event is about a payment")
        if event is Event.PARTIAL_REFUND_REPORTED:
            if refunded is None:
                raise ValueError("a partial refund says how much was given back")
            refunded = min(refunded, payment.amount)
        if event is Event.PAYMENT_SUCCEEDED and payment.paid_mails_owed:
            return _paid_after_its_refund(booking, payment, at)
        if _already_known(event, payment, refunded):
            return Change(outcomes=(Outcome.IGNORE,), booking=booking, payment=payment)
        if refunded is not None:  # what the report says holds whatever the outcome
            payment = replace(payment, refunded_amount=refunded)
        if event is Event.REFUND_REPORTED and not payment.taken:
            # the success it refunds is still on its way: apply it first, so the order cannot matter,
            # but what marked the booking paid is not kept: it was never reported paid (CONTRACT 5)
            first = decide(booking, Event.PAYMENT_SUCCEEDED, at, payment=payment)
            both = first.then(decide(first.booking, event, at, payment=first.payment))
            return _never_paid(both, booking, payment)
    cancel = cancel or CancelRequest()
    rule = TABLE[stage_of(booking, at.now)][event]
    outcome = _pick(rule, booking.as_of(at.now), payment, at, cancel)
    return _apply(outcome, event, booking, payment, at, cancel, failure)


def require_payable(booking: Booking, now: datetime) -> None:
    """Raise unless a payment intent may be opened for ``booking``: it must be pending, its hold running."""
    stage = stage_of(booking, now)
    if stage is Stage.PAID:
        raise AlreadyPaid("This booking has already been paid.")
    if stage is Stage.EXPIRED:
        raise InvalidTransition("The hold of this booking has expired (status 'cancelled'); book again.")
    if stage is not Stage.PENDING:
        raise InvalidTransition(f"Cannot pay a booking with status '{booking.status}'.")


def _already_known(event: Event, payment: Payment, refunded: Decimal | None) -> bool:
    if event is Event.PAYMENT_SUCCEEDED:
        return payment.taken  # a success after the refund does not move the payment back
    if event in (Event.PAYMENT_FAILED, Event.INTENT_CANCELLED):
        return not payment.is_open  # neither undoes a success, nor a failure a cancellation
    refunded_all = payment.status is PaymentStatus.REFUNDED and payment.refunded_amount >= payment.amount
    if event is Event.PARTIAL_REFUND_REPORTED:
        # reports of one charge's refunds carry the running total: an older one arriving late is old news
        known = refunded is not None and refunded <= payment.refunded_amount
        return known or refunded_all
    return refunded_all  # a payment refunded in part (as the venue chose) may still be refunded in full


_PAID_NOTICES = (MailTemplate.BOOKING_PAID_USER, MailTemplate.BOOKING_PAID_OPERATOR)


def _paid_after_its_refund(booking: Booking, payment: Payment, at: Circumstances) -> Change:
    """The success of a payment whose refund was reported first and marked nothing paid (CONTRACT 5),
    where the success would have marked the booking paid (``paid_mails_owed``).

    Now that the payment is reported paid, what its success marks is marked: ``paid_at`` and the paid
    mails, so that the two events end as they do in their true order (CONTRACT 4.3). The commission
    was earned and reversed when the refund came, and the status stays ``refunded``.
    """
    return Change(
        outcomes=(Outcome.MARK_PAID_LATE,),
        booking=replace(booking, paid_at=booking.paid_at or at.now),
        payment=replace(payment, paid_at=at.now, paid_mails_owed=False),
        notices=_PAID_NOTICES,
    )


def _never_paid(change: Change, booking: Booking, payment: Payment) -> Change:
    """``change`` without the marks of a payment: no ``paid_at``, no paid mail, which the success owes
    when it comes. (A commission earned on the way is reversed by the refund, as in the true order.)"""
    owed = any(n in _PAID_NOTICES for n in change.notices)
    return replace(
        change,
        booking=replace(change.booking, paid_at=booking.paid_at),
        payment=replace(_required(change.payment), paid_at=payment.paid_at, paid_mails_owed=owed),
        notices=tuple(n for n in change.notices if n not in _PAID_NOTICES),
    )


def _pick(
    rule: Rule, booking: Booking, payment: Payment | None, at: Circumstances, cancel: CancelRequest
) -> Outcome:
    if isinstance(rule, Outcome):
        return rule
    now, chosen = at.now, cancel.refund
    holds = {
        Fact.BEFORE_DEADLINE: lambda: now < booking.cancellation_deadline(at.deadline_hours),
        Fact.STARTED: lambda: now >= booking.start,
        Fact.ENDED: lambda: now >= booking.end,
        Fact.TIME_FREE: lambda: now < booking.start and at.time_free(),
        Fact.PAYMENT_KEPT: lambda: payment is not None and payment.keeps_part,
        Fact.PAID_BEFORE: lambda: booking.paid_at is not None,
        Fact.REFUND_ALL: lambda: payment is None or chosen is None or chosen >= payment.amount,
        Fact.REFUND_NONE: lambda: chosen is not None and chosen <= 0,
        Fact.ASKED_PART_BACK: lambda: payment is not None and _asked_part_back(payment),
    }
    return _pick(rule.then if holds[rule.fact]() else rule.otherwise, booking, payment, at, cancel)


def _asked_part_back(payment: Payment) -> bool:
    """A refund of part of ``payment`` is pending, and the provider reports at least that part back."""
    asked = payment.refund_asked
    pending = payment.status is PaymentStatus.REFUND_PENDING
    return pending and asked is not None and payment.refunded_amount >= asked


def _apply(
    outcome: Outcome,
    event: Event,
    original: Booking,
    payment: Payment | None,
    at: Circumstances,
    cancel: CancelRequest,
    failure: str,
) -> Change:
    now, current = at.now, original.as_of(at.now)
    unchanged = Change(outcomes=(outcome,), booking=original, payment=payment)
    match outcome:
        case Outcome.IGNORE:
            return unchanged
        case Outcome.REFUSE | Outcome.REFUSE_LATE:
            return replace(unchanged, refusal=_refusal(outcome, event, current, at))
        case Outcome.WITHDRAW:
            withdrawn = current.withdraw(now, cancel.reason, cancel.notes)
            refusal = (
                "This booking is already cancelled (status 'cancelled'): its hold lapsed unpaid. "
                "A payment that still arrives will be refunded."
            )
            return replace(unchanged, booking=withdrawn, refusal=refusal, keep_when_refused=True)
        case Outcome.EXPIRE:
            if original.status is not BookingStatus.PENDING:
                return replace(unchanged, outcomes=(Outcome.IGNORE,))
            return replace(unchanged, booking=current)
        case Outcome.CONFIRM:
            return replace(unchanged, booking=current.confirm(now))
        case Outcome.NO_SHOW:
            return replace(unchanged, booking=current.mark_no_show(now))
        case Outcome.COMPLETE:
            return replace(unchanged, booking=current.complete(now))
        case Outcome.CANCEL:
            cancelled = current.cancel(now, cancel.reason, cancel.notes)
            return replace(unchanged, booking=cancelled, notices=(_cancel_notice(event),))
        case Outcome.CANCEL_AND_REFUND:
            cancelled = current.cancel(now, cancel.reason, cancel.notes)
            giving_back = payment is not None and payment.status is PaymentStatus.SUCCEEDED
            return replace(
                unchanged,
                booking=cancelled,
                payment=_moved(payment, PaymentStatus.REFUND_PENDING, now) if giving_back else payment,
                refund=giving_back,
                commission=(CommissionAction.REVERSE,),
                notices=(_cancel_notice(event),),
            )
        case Outcome.CANCEL_KEEPING_PAYMENT:
            cancelled = current.cancel(now, cancel.reason, cancel.notes)
            return replace(unchanged, booking=cancelled, notices=(_cancel_notice(event),))
        case Outcome.CANCEL_AND_REFUND_PART:
            return _cancel_and_refund_part(unchanged, current, _required(payment), at, cancel, event)
    return _apply_payment(outcome, unchanged, current, _required(payment), now, failure)


def _cancel_notice(event: Event) -> MailTemplate:
    if event is Event.VENUE_CANCEL:
        return MailTemplate.BOOKING_CANCELLED_BY_VENUE_USER
    return MailTemplate.BOOKING_CANCELLED_USER


def _cancel_and_refund_part(
    unchanged: Change,
    current: Booking,
    payment: Payment,
    at: Circumstances,
    cancel: CancelRequest,
    event: Event,
) -> Change:
    """Cancelled at once, part of ``payment`` (``cancel.refund`` in all) asked back from the provider;
    the booking is ``refunded`` when the provider reports that part back (CONTRACT 9.2), at once when
    it reported it before. The commission follows what the venue keeps as soon as it is decided."""
    now, asked = at.now, _required_amount(cancel.refund)
    cancelled = current.cancel(now, cancel.reason, cancel.notes)
    pending = replace(payment, status=PaymentStatus.REFUND_PENDING, refund_asked=asked)
    notices = (_cancel_notice(event),)
    if payment.refunded_amount >= asked:  # given back already (a refund made at the provider's dashboard)
        refunded = replace(pending, status=PaymentStatus.REFUNDED, refunded_at=now)
        return replace(
            unchanged,
            outcomes=(Outcome.CANCEL_AND_REFUND_PART, Outcome.MARK_PART_REFUNDED),
            booking=cancelled.mark_refunded(now),
            payment=refunded,
            commission=(CommissionAction.FOLLOW_REFUND,),
            notices=(*notices, MailTemplate.BOOKING_REFUNDED_USER),
        )
    return replace(
        unchanged,
        booking=cancelled,
        payment=pending,
        refund=True,
        refund_amount=asked - payment.refunded_amount,
        commission=(CommissionAction.FOLLOW_REFUND,),
        notices=notices,
    )


def _required_amount(amount: Decimal | None) -> Decimal:
    if amount is None:
        raise ValueError("a partial refund names its amount")
    return amount


def _apply_payment(
    outcome: Outcome, unchanged: Change, current: Booking, payment: Payment, now: datetime, failure: str
) -> Change:
    match outcome:
        case Outcome.RECORD_FAILURE:
            failed = replace(payment, status=PaymentStatus.FAILED, failure_message=failure)
            return replace(unchanged, payment=failed)
        case Outcome.RECORD_CANCELLED:
            return replace(unchanged, payment=replace(payment, status=PaymentStatus.CANCELED))
        case Outcome.BOOK:
            return replace(
                unchanged,
                booking=current.mark_paid(now),
                payment=_moved(payment, PaymentStatus.SUCCEEDED, now),
                commission=(CommissionAction.EARN,),
                notices=(MailTemplate.BOOKING_PAID_USER, MailTemplate.BOOKING_PAID_OPERATOR),
            )
        case Outcome.KEEP_PAYMENT:
            return replace(
                unchanged,
                booking=current.keep_payment(now),
                payment=_moved(payment, PaymentStatus.SUCCEEDED, now),
                commission=(CommissionAction.EARN,),
            )
        case Outcome.REFUND:
            # a lapsed hold is stored as expired on the way (its time went to someone else)
            moved = _moved(payment, PaymentStatus.REFUND_PENDING, now)
            return replace(unchanged, booking=current, payment=moved, refund=True)
        case Outcome.MARK_REFUNDED:
            return replace(
                unchanged,
                booking=current.mark_refunded(now),
                payment=_moved(payment, PaymentStatus.REFUNDED, now),
                settles_refund=True,
                commission=(CommissionAction.REVERSE,),
                notices=(MailTemplate.BOOKING_REFUNDED_USER,),
            )
        case Outcome.MARK_PART_REFUNDED:  # the amount given back is set by ``decide``, which knows it
            return replace(
                unchanged,
                booking=current.mark_refunded(now),
                payment=replace(payment, status=PaymentStatus.REFUNDED, refunded_at=now),
                settles_refund=True,
                commission=(CommissionAction.FOLLOW_REFUND,),
                notices=(MailTemplate.BOOKING_REFUNDED_USER,),
            )
        case Outcome.RECORD_REFUND:
            moved = _moved(payment, PaymentStatus.REFUNDED, now)
            return replace(unchanged, payment=moved, settles_refund=True)
        case Outcome.RECORD_REST_REFUNDED:
            moved = _moved(payment, PaymentStatus.REFUNDED, now)
            return replace(
                unchanged, payment=moved, settles_refund=True, commission=(CommissionAction.REVERSE,)
            )
        case Outcome.REDUCE:  # the amount given back is set by ``decide``, which knows it
            return replace(unchanged, commission=(CommissionAction.FOLLOW_REFUND,))
        case Outcome.RECORD_PARTIAL_REFUND:
            return unchanged
    raise AssertionError(f"no transition for {outcome!r}")  # pragma: no cover - the table is total


def _moved(payment: Payment | None, status: PaymentStatus, now: datetime) -> Payment:
    payment = _required(payment)
    if status is PaymentStatus.REFUNDED:
        # a refund reported for a payment never reported taken does not make it paid (CONTRACT 5)
        return replace(payment, status=status, refunded_at=now, refunded_amount=payment.amount)
    return replace(payment, status=status, paid_at=payment.paid_at or now)


def _required(payment: Payment | None) -> Payment:
    if payment is None:
        raise ValueError("this outcome changes a payment, and none was given")
    return payment


_VERBS = {
    Event.CANCEL: "cancel",
    Event.VENUE_CANCEL: "cancel",
    Event.CONFIRM: "confirm",
    Event.NO_SHOW: "no-show",
}


def _refusal(outcome: Outcome, event: Event, booking: Booking, at: Circumstances) -> str:
    if outcome is Outcome.REFUSE_LATE and event is Event.CANCEL:
        deadline = _local(booking.cancellation_deadline(at.deadline_hours), at.timezone)
        limit = f"{at.deadline_hours} hours before its start" if at.deadline_hours else "at its start"
        return f"This booking can no longer be cancelled: cancellation closed at {deadline} ({limit})."
    if outcome is Outcome.REFUSE_LATE and event is Event.VENUE_CANCEL:
        return f"Cannot cancel a booking that has ended ({_local(booking.end, at.timezone)})."
    if outcome is Outcome.REFUSE_LATE:
        return f"Cannot {_VERBS[event]} a booking before it starts ({_local(booking.start, at.timezone)})."
    if event is Event.CONFIRM and booking.cancellation_reason is CancellationReason.EXPIRED:
        return "The hold of this booking has expired (status 'cancelled'); it cannot be confirmed."
    return f"Cannot {_VERBS[event]} a booking with status '{booking.status}'."


def _local(instant: datetime, timezone: str) -> str:
    return instant.astimezone(ZoneInfo(timezone)).isoformat()
