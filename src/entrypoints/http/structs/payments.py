"""Payments as the booking detail and the create-payment-intent endpoint show them."""

from __future__ import annotations

from datetime import datetime

import msgspec

from booking_core.payments import Payment
from booking_core.usecases.payments import PaymentIntentView
from entrypoints.http.structs._format import amount_in, utc


class PaymentOut(msgspec.Struct, kw_only=True):
    """The latest payment of a booking (booking detail only)."""

    provider: str
    payment_intent_id: str
    status: str
    amount: str
    currency: str
    paid_at: datetime | None
    refunded_at: datetime | None
    #: How much of ``amount`` went back so far: part of it after a partial refund (CONTRACT 9.2).
    refunded_amount: str

    @classmethod
    def of(cls, p: Payment) -> PaymentOut:
        """The representation of ``p``."""
        return cls(
            provider=p.provider,
            payment_intent_id=p.payment_intent_id,
            status=str(p.status),
            amount=amount_in(p.amount, p.currency),
            currency=p.currency,
            paid_at=utc(p.paid_at),
            refunded_at=utc(p.refunded_at),
            refunded_amount=amount_in(p.refunded_amount, p.currency),
        )


class PaymentIntentOut(msgspec.Struct, kw_only=True, omit_defaults=True):
    """What the caller's frontend needs to confirm the payment with the provider's library."""

    client_secret: str
    payment_intent_id: str
    amount: str
    currency: str
    publishable_key: str
    provider_account_id: str | None = None

    @classmethod
    def of(cls, view: PaymentIntentView) -> PaymentIntentOut:
        """The representation of ``view``; ``provider_account_id`` only for connected accounts."""
        p = view.payment
        return cls(
            client_secret=p.client_secret,
            payment_intent_id=p.payment_intent_id,
            amount=amount_in(p.amount, p.currency),
            currency=p.currency,
            publishable_key=view.publishable_key,
            provider_account_id=view.provider_account_id or None,
        )
