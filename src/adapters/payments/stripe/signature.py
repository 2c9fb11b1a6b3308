"""Stripe's webhook signature: ``Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">``
with the webhook secret, accepted for 300 seconds. With the real provider the SDK's own check decides,
against the real time."""

from __future__ import annotations

import stripe

from booking_core.errors import BadRequest

SIGNATURE_HEADER = "Stripe-Signature"
TOLERANCE_SECONDS = 300
INVALID_SIGNATURE = "invalid signature"


def verify_with_stripe(payload: bytes, header: str | None, secret: str) -> None:
    """Raise BadRequest ``invalid signature`` unless the SDK accepts ``header`` for ``payload``."""
    try:
        stripe.WebhookSignature.verify_header(payload, header, secret, TOLERANCE_SECONDS)
    except (stripe.SignatureVerificationError, UnicodeDecodeError, ValueError, TypeError):
        # the SDK decodes the body as UTF-8 before it checks anything, and its comparison refuses a
        # signature with characters beyond ASCII
        raise BadRequest(INVALID_SIGNATURE) from None
