"""The offline stand-in for the payment provider (``BOOKING_PAYMENT_PROVIDER=sandbox``).

Intents are answered without any network: ids ``pi_sandbox_<hex>`` and client secrets
``<id>_secret_<hex>``. Like the real provider, the same idempotency key returns the same intent (the
id is derived from the key), so a retry never opens a second one. Settlement happens through a signed
``payment_intent.succeeded`` webhook (``booking sandbox pay``), exactly as with the real provider.
"""

from __future__ import annotations

import hashlib
import hmac
import threading

from booking_core.errors import PaymentProviderError
from booking_core.ports import ProviderIntent


class SandboxGateway:
    """A :class:`~booking_core.ports.PaymentGateway` that never leaves the process."""

    provider_name = "sandbox"

    def __init__(self, *, secret_key: str, publishable_key: str) -> None:
        self.publishable_key = publishable_key
        self._secret = secret_key.encode()
        self._lock = threading.Lock()
        # Intents this process opened; a restart forgets them (the database keeps the payments).
        self._intents: dict[str, ProviderIntent] = {}

    def _derive(self, label: str, value: str, length: int = 24) -> str:
        return hmac.new(self._secret, f"{label}:{value}".encode(), hashlib.sha256).hexdigest()[:length]

    def create_intent(
        self,
        *,
        amount_minor: int,
        currency: str,
        booking_id: str,
        idempotency_key: str,
        destination_account: str | None,
        reference_code: str = "",
    ) -> ProviderIntent:
        """Open (or, for a repeated idempotency key, return) an intent awaiting payment."""
        if amount_minor <= 0:
            raise PaymentProviderError("The sandbox provider refuses an amount that is not positive.")
        intent_id = f"pi_sandbox_{self._derive('intent', idempotency_key)}"
        intent = ProviderIntent(
            id=intent_id,
            client_secret=f"{intent_id}_secret_{self._derive('secret', intent_id, 16)}",
            amount_minor=amount_minor,
            currency=currency.lower(),
            status="requires_payment_method",
        )
        with self._lock:
            return self._intents.setdefault(intent_id, intent)

    def retrieve_intent(self, intent_id: str) -> ProviderIntent:
        """The intent as this process knows it."""
        with self._lock:
            intent = self._intents.get(intent_id)
        if intent is None:
            raise PaymentProviderError(f"The sandbox provider does not know intent {intent_id}.")
        return intent

    def refund(self, intent_id: str, *, idempotency_key: str) -> str:
        """Refund in full; the id is stable per idempotency key, like the provider's."""
        if not intent_id.startswith("pi_sandbox_"):
            raise PaymentProviderError(f"The sandbox provider cannot refund intent {intent_id}.")
        return f"re_sandbox_{self._derive('refund', idempotency_key)}"
