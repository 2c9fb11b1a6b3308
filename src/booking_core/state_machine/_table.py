"""The booking's state machine as one table: for every stage and every event, what happens.

Rows are the stages a booking can be in (its status, with a lapsed hold told apart from a
cancellation); columns are the events that may reach it. A cell is an :class:`Outcome`, or a
:class:`When` that picks one of two by a fact of the moment. ``booking_core.state_machine.decide`` reads
the table; nothing else decides a transition.

Concurrent events commute (the final state depends on which arrived, not in which order), with two
exceptions that the contract makes a matter of arrival: after a booking's end, the completion sweep
and an operator's no-show (``completed`` is final), and an operator's command on a booking still
pending after its start because its hold outlasts the start (the payment may come first, or not).

A cancel by the venue's staff (``venue cancel``) is not bound by the customer's deadline: staff may
cancel any live booking until it ends, and choose how much of the payment goes back (all, part or
none; CONTRACT 7.4, 9.2). Its race with a customer's cancel, with an operator's no-show, and with
the payment of a booking still unpaid when staff chose a refund short of all of it, is a matter of
arrival too: each side chose for the booking as it found it, and the first one applied stands.

Provider events are about one payment; one that reports what that payment already records (a second
success, a failure after the success, a success after the refund, a partial refund no larger than one
recorded, a cancelled intent that was paid or cancelled already) changes nothing before the table is
consulted. An intent the provider cancelled leaves the booking as it is: the payment is marked
``canceled`` and the next payment intent request opens a new one. A refund reported before its success ends
the booking ``refunded`` as one reported after it does, but a booking whose payment was never reported
taken is not marked paid on the way: no ``paid_at``, no paid mail, no commission (CONTRACT 5).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass


class Event(enum.StrEnum):
    """What may happen to a booking."""

    PAYMENT_SUCCEEDED = "payment succeeded"
    PAYMENT_FAILED = "payment failed"
    REFUND_REPORTED = "refund reported"
    PARTIAL_REFUND_REPORTED = "partial refund reported"
    INTENT_CANCELLED = "intent cancelled"
    CANCEL = "cancel"
    VENUE_CANCEL = "venue cancel"
    HOLD_EXPIRY = "hold expiry"
    CONFIRM = "operator confirm"
    NO_SHOW = "operator no-show"
    COMPLETE = "completion sweep"


#: Events the payment provider reports (each about one payment of the booking).
PROVIDER_EVENTS = frozenset(
    {
        Event.PAYMENT_SUCCEEDED,
        Event.PAYMENT_FAILED,
        Event.REFUND_REPORTED,
        Event.PARTIAL_REFUND_REPORTED,
        Event.INTENT_CANCELLED,
    }
)


class Stage(enum.StrEnum):
    """A row of the table: the booking's status, a lapsed hold told apart from a cancellation."""

    PENDING = "pending"
    CONFIRMED = "confirmed"
    PAID = "paid"
    EXPIRED = "cancelled: hold lapsed"
    CANCELLED = "cancelled"
    COMPLETED = "completed"
    NO_SHOW = "no_show"
    REFUNDED = "refunded"


class Outcome(enum.StrEnum):
    """What an event does in a stage."""

    IGNORE = "nothing changes"
    REFUSE = "refused, naming the status"
    REFUSE_LATE = "refused, naming the time limit"
    WITHDRAW = "refused (cancelled already), the owner's reason recorded"
    RECORD_FAILURE = "payment failed; booking unchanged"
    RECORD_CANCELLED = "intent cancelled by the provider; booking unchanged, a new intent may be opened"
    BOOK = "paid"
    KEEP_PAYMENT = "payment kept; status unchanged"
    REFUND = "payment given back; booking unchanged"
    CANCEL = "cancelled"
    CANCEL_AND_REFUND = "cancelled; payment given back"
    CANCEL_AND_REFUND_PART = "cancelled; the part chosen given back, commission on what is kept"
    CANCEL_KEEPING_PAYMENT = "cancelled; payment and commission kept"
    EXPIRE = "cancelled: expired"
    CONFIRM = "confirmed"
    NO_SHOW = "no_show"
    COMPLETE = "completed"
    MARK_REFUNDED = "refunded"
    MARK_PART_REFUNDED = "refunded (the part asked for); commission on what is kept"
    RECORD_REFUND = "payment refunded; booking unchanged"
    RECORD_REST_REFUNDED = "the rest of a partly refunded payment given back; commission reversed"
    REDUCE = "part of the payment given back; booking unchanged, commission on what is kept"
    RECORD_PARTIAL_REFUND = "part of a payment given back; booking and commission unchanged"
    MARK_PAID_LATE = "the success of a payment refunded before it arrived: paid_at and the paid mails"


class Fact(enum.StrEnum):
    """A condition of the moment that a cell may depend on."""

    BEFORE_DEADLINE = "before the cancellation deadline"
    STARTED = "the booking has started"
    ENDED = "the booking has ended"
    TIME_FREE = "its time is ahead and free"
    PAYMENT_KEPT = "it is the payment the booking keeps (all or part of it)"
    PAID_BEFORE = "the booking holds another payment"
    REFUND_ALL = "all of it is to go back"
    REFUND_NONE = "none of it is to go back"
    ASKED_PART_BACK = "the part asked for is back"


@dataclass(frozen=True, slots=True)
class When:
    """``then`` when ``fact`` holds, else ``otherwise`` (which may ask another fact)."""

    fact: Fact
    then: Outcome
    otherwise: Outcome | When


Rule = Outcome | When

_CANCEL = When(Fact.BEFORE_DEADLINE, Outcome.CANCEL, Outcome.REFUSE_LATE)
_NO_SHOW = When(Fact.STARTED, Outcome.NO_SHOW, Outcome.REFUSE_LATE)
_COMPLETE = When(Fact.ENDED, Outcome.COMPLETE, Outcome.IGNORE)
_REFUND_OF_KEPT = When(Fact.PAYMENT_KEPT, Outcome.MARK_REFUNDED, Outcome.RECORD_REFUND)
_LATE_PAYMENT = When(Fact.PAID_BEFORE, Outcome.REFUND, Outcome.KEEP_PAYMENT)
# a partial refund the provider reports of its own accord never changes the booking's status
# (CONTRACT 5, 9.2); the commission follows only the money the booking keeps
_PARTIAL_REFUND = When(Fact.PAYMENT_KEPT, Outcome.REDUCE, Outcome.RECORD_PARTIAL_REFUND)
# the venue asked for part of the payment back: its report ends the booking ``refunded`` (CONTRACT 9.2)
_ASKED_PART = When(Fact.ASKED_PART_BACK, Outcome.MARK_PART_REFUNDED, _PARTIAL_REFUND)
# staff may cancel any live booking until it ends, whatever the customer's deadline (CONTRACT 7.4)
_VENUE_CANCEL = When(Fact.ENDED, Outcome.REFUSE_LATE, Outcome.CANCEL)
_VENUE_CANCEL_PAID = When(
    Fact.ENDED,
    Outcome.REFUSE_LATE,
    When(
        Fact.REFUND_ALL,
        Outcome.CANCEL_AND_REFUND,
        When(Fact.REFUND_NONE, Outcome.CANCEL_KEEPING_PAYMENT, Outcome.CANCEL_AND_REFUND_PART),
    ),
)

TABLE: Mapping[Stage, Mapping[Event, Rule]] = {
    Stage.PENDING: {
        Event.PAYMENT_SUCCEEDED: Outcome.BOOK,
        Event.PAYMENT_FAILED: Outcome.RECORD_FAILURE,
        Event.REFUND_REPORTED: Outcome.MARK_REFUNDED,
        Event.PARTIAL_REFUND_REPORTED: _PARTIAL_REFUND,
        Event.INTENT_CANCELLED: Outcome.RECORD_CANCELLED,
        Event.CANCEL: _CANCEL,
        Event.VENUE_CANCEL: _VENUE_CANCEL,
        Event.HOLD_EXPIRY: Outcome.IGNORE,
        Event.CONFIRM: Outcome.CONFIRM,
        Event.NO_SHOW: Outcome.REFUSE,
        Event.COMPLETE: Outcome.IGNORE,
    },
    Stage.CONFIRMED: {
        Event.PAYMENT_SUCCEEDED: Outcome.BOOK,
        Event.PAYMENT_FAILED: Outcome.RECORD_FAILURE,
        Event.REFUND_REPORTED: Outcome.MARK_REFUNDED,
        Event.PARTIAL_REFUND_REPORTED: _PARTIAL_REFUND,
        Event.INTENT_CANCELLED: Outcome.RECORD_CANCELLED,
        Event.CANCEL: _CANCEL,
        Event.VENUE_CANCEL: _VENUE_CANCEL,
        Event.HOLD_EXPIRY: Outcome.IGNORE,
        Event.CONFIRM: Outcome.REFUSE,
        Event.NO_SHOW: _NO_SHOW,
        Event.COMPLETE: _COMPLETE,
    },
    Stage.PAID: {
        Event.PAYMENT_SUCCEEDED: Outcome.REFUND,  # a second payment: the booking is paid already
        Event.PAYMENT_FAILED: Outcome.RECORD_FAILURE,
        Event.REFUND_REPORTED: _REFUND_OF_KEPT,
        Event.PARTIAL_REFUND_REPORTED: _PARTIAL_REFUND,
        Event.INTENT_CANCELLED: Outcome.RECORD_CANCELLED,
        Event.CANCEL: When(Fact.BEFORE_DEADLINE, Outcome.CANCEL_AND_REFUND, Outcome.REFUSE_LATE),
        Event.VENUE_CANCEL: _VENUE_CANCEL_PAID,
        Event.HOLD_EXPIRY: Outcome.IGNORE,
        Event.CONFIRM: Outcome.REFUSE,
        Event.NO_SHOW: _NO_SHOW,
        Event.COMPLETE: _COMPLETE,
    },
    Stage.EXPIRED: {
        Event.PAYMENT_SUCCEEDED: When(Fact.TIME_FREE, Outcome.BOOK, Outcome.REFUND),
        Event.PAYMENT_FAILED: Outcome.RECORD_FAILURE,
        Event.REFUND_REPORTED: Outcome.MARK_REFUNDED,
        Event.PARTIAL_REFUND_REPORTED: _PARTIAL_REFUND,
        Event.INTENT_CANCELLED: Outcome.RECORD_CANCELLED,
        Event.CANCEL: When(Fact.BEFORE_DEADLINE, Outcome.WITHDRAW, Outcome.REFUSE_LATE),
        Event.VENUE_CANCEL: Outcome.WITHDRAW,
        Event.HOLD_EXPIRY: Outcome.EXPIRE,
        Event.CONFIRM: Outcome.REFUSE,
        Event.NO_SHOW: Outcome.REFUSE,
        Event.COMPLETE: Outcome.IGNORE,
    },
    Stage.CANCELLED: {
        Event.PAYMENT_SUCCEEDED: Outcome.REFUND,
        Event.PAYMENT_FAILED: Outcome.RECORD_FAILURE,
        Event.REFUND_REPORTED: Outcome.MARK_REFUNDED,
        Event.PARTIAL_REFUND_REPORTED: _ASKED_PART,
        Event.INTENT_CANCELLED: Outcome.RECORD_CANCELLED,
        Event.CANCEL: Outcome.REFUSE,
        Event.VENUE_CANCEL: Outcome.REFUSE,
        Event.HOLD_EXPIRY: Outcome.IGNORE,
        Event.CONFIRM: Outcome.REFUSE,
        Event.NO_SHOW: Outcome.REFUSE,
        Event.COMPLETE: Outcome.IGNORE,
    },
    Stage.COMPLETED: {
        Event.PAYMENT_SUCCEEDED: _LATE_PAYMENT,
        Event.PAYMENT_FAILED: Outcome.RECORD_FAILURE,
        Event.REFUND_REPORTED: _REFUND_OF_KEPT,
        Event.PARTIAL_REFUND_REPORTED: _PARTIAL_REFUND,
        Event.INTENT_CANCELLED: Outcome.RECORD_CANCELLED,
        Event.CANCEL: Outcome.REFUSE,
        Event.VENUE_CANCEL: Outcome.REFUSE,
        Event.HOLD_EXPIRY: Outcome.IGNORE,
        Event.CONFIRM: Outcome.REFUSE,
        Event.NO_SHOW: Outcome.REFUSE,  # completed is final (contract): first come, first served
        Event.COMPLETE: Outcome.IGNORE,
    },
    Stage.NO_SHOW: {
        Event.PAYMENT_SUCCEEDED: _LATE_PAYMENT,
        Event.PAYMENT_FAILED: Outcome.RECORD_FAILURE,
        Event.REFUND_REPORTED: _REFUND_OF_KEPT,
        Event.PARTIAL_REFUND_REPORTED: _PARTIAL_REFUND,
        Event.INTENT_CANCELLED: Outcome.RECORD_CANCELLED,
        Event.CANCEL: Outcome.REFUSE,
        Event.VENUE_CANCEL: Outcome.REFUSE,
        Event.HOLD_EXPIRY: Outcome.IGNORE,
        Event.CONFIRM: Outcome.REFUSE,
        Event.NO_SHOW: Outcome.REFUSE,
        Event.COMPLETE: Outcome.IGNORE,
    },
    Stage.REFUNDED: {
        Event.PAYMENT_SUCCEEDED: Outcome.REFUND,  # another payment: the booking's money went back already
        Event.PAYMENT_FAILED: Outcome.RECORD_FAILURE,
        Event.REFUND_REPORTED: When(Fact.PAYMENT_KEPT, Outcome.RECORD_REST_REFUNDED, Outcome.RECORD_REFUND),
        Event.PARTIAL_REFUND_REPORTED: _PARTIAL_REFUND,
        Event.INTENT_CANCELLED: Outcome.RECORD_CANCELLED,
        Event.CANCEL: Outcome.REFUSE,
        Event.VENUE_CANCEL: Outcome.REFUSE,
        Event.HOLD_EXPIRY: Outcome.IGNORE,
        Event.CONFIRM: Outcome.REFUSE,
        Event.NO_SHOW: Outcome.REFUSE,
        Event.COMPLETE: Outcome.IGNORE,
    },
}
