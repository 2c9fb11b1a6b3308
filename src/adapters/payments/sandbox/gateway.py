"""The offline stand-in for the payment provider (``BOOKING_PAYMENT_PROVIDER=sandbox``).

Intents are answered without any network and without state: an intent's id is derived from its
idempotency key (like the real provider, the same key returns the same intent, so a retry never
opens a second one) and carries its amount and currency, ``pi_sandbox_<amount>_<currency>_<hex>``;
its client secret is derived from the id. So ``retrieve_intent`` answers the same in every process
and after a restart. A sandbox intent is never cancelled: it waits for payment until settled through
a signed ``payment_intent.succeeded`` webhook in Stripe's format (``booking sandbox pay``), exactly as
with the real provider, whose state the service keeps in its own database.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal

from adapters.payments.sandbox.signature import verify
from adapters.payments.stripe.amounts import stripe_currencies
from adapters.payments.stripe.events import read_event
from adapters.payments.stripe.signature import SIGNATURE_HEADER
from booking_core.errors import PaymentProviderError
from booking_core.ports import Currencies, PaymentEvent, ProviderIntent

_INTENT_ID = re.compile(r"pi_sandbox_(?P<amount>[1-9][0-9]*)_(?P<currency>[a-z]{3})_[0-9a-f]{24}")


class SandboxGateway:
    """A :class:`~booking_core.ports.PaymentGateway` that never leaves the process."""

    provider_name = "sandbox"

    def __init__(
        self,
        *,
        secret_key: str,
        publishable_key: str,
        webhook_secret: str = "",
        currencies: Currencies | None = None,
    ) -> None:
        self.publishable_key = publishable_key
        self._secret = secret_key.encode()
        self._webhook_secret = webhook_secret
        self._currencies = currencies or stripe_currencies()

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
        code = currency.lower()
        digest = self._derive("intent", f"{idempotency_key}:{amount_minor}:{code}")
        return self._intent(f"pi_sandbox_{amount_minor}_{code}_{digest}", amount_minor, code)

    def retrieve_intent(self, intent_id: str) -> ProviderIntent:
        """The intent, read from its id: it awaits payment (its settlement comes by webhook)."""
        found = _INTENT_ID.fullmatch(intent_id)
        if found is None:
            raise PaymentProviderError(f"The sandbox provider does not know intent {intent_id}.")
        return self._intent(intent_id, int(found["amount"]), found["currency"])

    def read_delivery(self, payload: bytes, headers: Mapping[str, str], now: datetime) -> PaymentEvent | None:
        """The event of one webhook delivery in Stripe's format, signed as Stripe signs, the
        signature's time checked against ``now`` (the service's clock)."""
        verify(payload, headers.get(SIGNATURE_HEADER), self._webhook_secret, now)
        return read_event(payload, self._currencies)

    def _intent(self, intent_id: str, amount_minor: int, currency: str) -> ProviderIntent:
        return ProviderIntent(
            id=intent_id,
            client_secret=f"{intent_id}_secret_{self._derive('secret', intent_id, 16)}",
            amount_minor=amount_minor,
            currency=currency,
            status="requires_payment_method",
        )

    def refund(
        self,
        intent_id: str,
        *,
        idempotency_key: str,
        amount: Decimal | None = None,
        currency: str | None = None,
    ) -> str:
        """Refund in full, or ``amount`` of the intent's amount (which its id carries, in minor units
        of its currency); the id is stable per idempotency key, like the provider's."""
        found = _INTENT_ID.fullmatch(intent_id)
        if not intent_id.startswith("pi_sandbox_"):
            raise PaymentProviderError(f"The sandbox provider cannot refund intent {intent_id}.")
        if amount is not None:
            code = currency or (found["currency"] if found else "")
            minor = self._currencies.unit(code).to_minor(amount)
            if minor <= 0 or (found is not None and minor > int(found["amount"])):
                raise PaymentProviderError(
                    f"The sandbox provider cannot refund {amount} of intent {intent_id}."
                )
        return f"re_sandbox_{self._derive('refund', idempotency_key)}"
