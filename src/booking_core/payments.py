"""Payments of bookings through the provider, in the domain's terms."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from booking_core.money import CurrencyUnit


class PaymentStatus(enum.StrEnum):
    """Where a payment stands."""

    REQUIRES_PAYMENT = "requires_payment"
    FAILED = "failed"
    SUCCEEDED = "succeeded"
    REFUND_PENDING = "refund_pending"
    REFUNDED = "refunded"
    #: The provider cancelled the intent before it was paid; a new one replaced it.
    CANCELED = "canceled"


#: The provider of a payment staff took at the venue (cash, card terminal, other): no provider is
#: asked for it, and what the venue gives back of it is handed back at the desk (CONTRACT 7.4).
VENUE_PROVIDER = "venue"
_VENUE_INTENT = "venue-"


def venue_intent_id(payment_id: str) -> str:
    """The intent id of a payment taken at the venue (unique like a provider's, never a provider's)."""
    return f"{_VENUE_INTENT}{payment_id}"


def is_venue_intent(payment_intent_id: str) -> bool:
    """Whether ``payment_intent_id`` is that of a payment taken at the venue."""
    return payment_intent_id.startswith(_VENUE_INTENT)


#: Statuses of a payment whose money the provider has taken (and may be giving back).
TAKEN_STATUSES = frozenset({PaymentStatus.SUCCEEDED, PaymentStatus.REFUND_PENDING, PaymentStatus.REFUNDED})


@dataclass(frozen=True, slots=True, kw_only=True)
class Payment:
    """One provider payment intent for a booking."""

    id: str
    booking_id: str
    provider: str
    payment_intent_id: str
    client_secret: str
    amount: Decimal
    currency: str
    status: PaymentStatus = PaymentStatus.REQUIRES_PAYMENT
    failure_message: str = ""
    paid_at: datetime | None = None
    refunded_at: datetime | None = None
    #: How much of ``amount`` the provider reported given back so far (all of it once ``refunded``).
    refunded_amount: Decimal = Decimal("0.00")
    #: Its refund was reported before its success, which would have marked the booking paid: the paid
    #: mails are owed to the success when it comes (CONTRACT 4.3, 5).
    paid_mails_owed: bool = False
    #: The refund decided for it, as what the customer gets back of ``amount`` in all; None: all of it.
    #: Read while a refund is pending; a venue may choose to give back only part (CONTRACT 9.2).
    refund_asked: Decimal | None = None
    created_at: datetime

    @property
    def is_open(self) -> bool:
        """True while the intent can still be paid."""
        return self.status in {PaymentStatus.REQUIRES_PAYMENT, PaymentStatus.FAILED}

    @property
    def taken(self) -> bool:
        """True once the provider reported the money taken (whatever happened to it since)."""
        return self.status in TAKEN_STATUSES

    @property
    def given_back(self) -> Decimal:
        """How much of ``amount`` goes back to the customer: reported so far, or decided and pending."""
        if self.status is PaymentStatus.REFUND_PENDING:
            asked = self.amount if self.refund_asked is None else self.refund_asked
            return max(self.refunded_amount, asked)
        return self.refunded_amount

    @property
    def kept_amount(self) -> Decimal:
        """What the venue keeps of ``amount`` once :attr:`given_back` is back (never below nothing)."""
        return max(self.amount - self.given_back, Decimal(0)).quantize(self.amount)

    @property
    def keeps_part(self) -> bool:
        """True for a taken payment the venue keeps all or part of (its commission follows it)."""
        return self.taken and self.kept_amount > 0

    def matches(self, *, amount_minor: int | None, currency: str | None, unit: CurrencyUnit) -> bool:
        """Whether a provider report of ``amount_minor`` in ``currency`` is about this payment's money.

        ``unit`` is the minor unit of the payment's own currency.
        """
        return (
            amount_minor == unit.to_minor(self.amount)
            and currency is not None
            and currency.upper() == self.currency.upper()
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class RefundRequest:
    """The service's request to the provider to give one payment back, in full or (``amount``) in
    part: at most one per payment, ever.

    It is stored in the transaction that decides the refund and sent after that commits; until the
    provider accepts it (``accepted_at``) or reports the refund, the worker sends it again from
    ``next_attempt_at`` on, with the same idempotency key.
    """

    payment_id: str
    booking_id: str
    payment_intent_id: str
    idempotency_key: str
    #: How much to give back now; None: all the provider still holds of the payment.
    amount: Decimal | None = None
    requested_at: datetime
    next_attempt_at: datetime
    attempts: int = 0
    accepted_at: datetime | None = None
    provider_refund_id: str | None = None
    last_error: str = ""


def intent_key(booking_id: str, attempt: int, now: datetime) -> str:
    """Idempotency key of the ``attempt``-th intent of a booking (0 for the first).

    Requests for one booking are serialized by its lock, so the key only has to make a retry after a
    crash return the intent already opened. It moves on each minute so that a provider error, which
    the provider remembers for the key, does not answer every retry of that booking.
    """
    return f"booking-{booking_id}-intent-{attempt}-{now.strftime('%Y%m%d%H%M')}"


def refund_key(payment: Payment) -> str:
    """Idempotency key of the one refund of a booking's payment."""
    return f"booking-{payment.booking_id}-refund-{payment.payment_intent_id}"
