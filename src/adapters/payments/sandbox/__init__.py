"""The offline stand-in for Stripe (``BOOKING_PAYMENT_PROVIDER=sandbox``): intents and signed webhooks."""

from adapters.payments.sandbox.gateway import SandboxGateway
from adapters.payments.sandbox.signature import sign

__all__ = ["SandboxGateway", "sign"]
