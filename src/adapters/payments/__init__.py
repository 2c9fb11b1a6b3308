"""Payment providers behind :class:`booking_core.ports.PaymentGateway`."""

from adapters.payments.sandbox import SandboxGateway
from adapters.payments.stripe import StripeGateway
from adapters.payments.stripe_amounts import StripeAmounts, stripe_currencies

__all__ = ["SandboxGateway", "StripeAmounts", "StripeGateway", "stripe_currencies"]
