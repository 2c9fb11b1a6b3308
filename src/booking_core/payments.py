"""Payments of bookings through the provider, in the domain's terms."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

# ISO 4217 currencies whose minor unit is not the cent.
_ZERO_DECIMAL = frozenset(
    {
        "BIF",
        "CLP",
        "DJF",
        "GNF",
        "JPY",
        "KMF",
        "KRW",
        "MGA",
        "PYG",
        "RWF",
        "UGX",
        "VND",
        "VUV",
        "XAF",
        "XOF",
        "XPF",
    }
)


class PaymentStatus(enum.StrEnum):
    """Where a payment stands."""

    REQUIRES_PAYMENT = "requires_payment"
    FAILED = "failed"
    SUCCEEDED = "succeeded"
    REFUND_PENDING = "refund_pending"
    REFUNDED = "refunded"


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
    created_at: datetime

    @property
    def is_open(self) -> bool:
        """True while the intent can still be paid."""
        return self.status in {PaymentStatus.REQUIRES_PAYMENT, PaymentStatus.FAILED}


def to_minor_units(amount: Decimal, currency: str) -> int:
    """``amount`` in the currency's smallest unit, as the provider expects."""
    exponent = 0 if currency.upper() in _ZERO_DECIMAL else 2
    return int(amount.scaleb(exponent).to_integral_value())


def from_minor_units(amount_minor: int, currency: str) -> Decimal:
    """The provider's minor-unit amount as a Decimal in major units."""
    exponent = 0 if currency.upper() in _ZERO_DECIMAL else 2
    return Decimal(amount_minor).scaleb(-exponent).quantize(Decimal(1).scaleb(-exponent))
