"""Stripe (``BOOKING_PAYMENT_PROVIDER=stripe``): its API calls, its amounts and its signed webhooks."""

from adapters.payments.stripe.amounts import StripeAmounts, stripe_currencies
from adapters.payments.stripe.gateway import CONNECT_TIMEOUT_SECONDS, READ_TIMEOUT_SECONDS, StripeGateway
from adapters.payments.stripe.signature import SIGNATURE_HEADER

__all__ = [
    "CONNECT_TIMEOUT_SECONDS",
    "READ_TIMEOUT_SECONDS",
    "SIGNATURE_HEADER",
    "StripeAmounts",
    "StripeGateway",
    "stripe_currencies",
]
