"""Payment providers behind :class:`booking_core.ports.PaymentGateway`, one package each: its outbound
calls and its inbound webhook (signature and wire format)."""

from adapters.payments.sandbox import SandboxGateway
from adapters.payments.stripe import StripeAmounts, StripeGateway, stripe_currencies

__all__ = ["SandboxGateway", "StripeAmounts", "StripeGateway", "stripe_currencies"]
