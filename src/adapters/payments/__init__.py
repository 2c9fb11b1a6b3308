"""Payment providers behind :class:`booking_core.ports.PaymentGateway`."""

from adapters.payments.sandbox import SandboxGateway
from adapters.payments.stripe import StripeGateway

__all__ = ["SandboxGateway", "StripeGateway"]
