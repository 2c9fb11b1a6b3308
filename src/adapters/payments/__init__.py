"""Payment providers behind :class:`booking_core.ports.PaymentGateway`."""

from adapters.payments.sandbox import SandboxGateway

__all__ = ["SandboxGateway"]
