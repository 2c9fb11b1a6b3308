"""The real payment provider (``BOOKING_PAYMENT_PROVIDER=stripe``) on the official SDK's ``StripeClient``.

Every call has explicit timeouts. The SDK retries a call (on a connection error, a timeout, a 409 or
a 5xx) only where a retry cannot charge or refund twice: reads, and writes that carry this service's
own idempotency key; the client's default is no retry at all. Anything the provider or the network
does wrong comes out as :class:`~booking_core.errors.PaymentProviderError`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any

import stripe

from adapters.payments.stripe.amounts import from_stripe, stripe_currencies, to_stripe
from adapters.payments.stripe.events import read_event
from adapters.payments.stripe.signature import SIGNATURE_HEADER, verify_with_stripe
from booking_core.errors import PaymentProviderError
from booking_core.ports import Currencies, PaymentEvent, ProviderIntent

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_SECONDS = 5.0
READ_TIMEOUT_SECONDS = 20.0
#: The status of an intent Stripe gave up (by request, or unpaid for too long).
CANCELED = "canceled"
#: Retries of a safe call; the SDK waits 0.5 s to 5 s between them, with jitter.
RETRIES = 1


class StripeGateway:
    """A :class:`~booking_core.ports.PaymentGateway` on Stripe's API.

    ``api_base`` replaces Stripe's address (tests point the real SDK at a local fake server).
    Amounts cross the port in ISO 4217 minor units and are written as Stripe writes them
    (:mod:`adapters.payments.stripe.amounts`). Webhook deliveries are signed with ``webhook_secret``.
    """

    provider_name = "stripe"

    def __init__(
        self,
        *,
        secret_key: str,
        publishable_key: str,
        api_base: str | None = None,
        timeout: tuple[float, float] = (CONNECT_TIMEOUT_SECONDS, READ_TIMEOUT_SECONDS),
        retries: int = RETRIES,
        webhook_secret: str = "",
        currencies: Currencies | None = None,
    ) -> None:
        self.publishable_key = publishable_key
        self._retries = retries
        self._webhook_secret = webhook_secret
        self._currencies = currencies or stripe_currencies()
        self._client = stripe.StripeClient(
            secret_key,
            base_addresses={"api": api_base} if api_base else None,
            http_client=stripe.RequestsClient(timeout=timeout),
            max_network_retries=0,
        )

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
        """A PaymentIntent for the booking; with ``destination_account`` a destination charge, the
        money going to the venue's connected account. The same key answers the same intent."""
        metadata = {"booking_id": booking_id}
        if reference_code:
            metadata["reference_code"] = reference_code
        amount = to_stripe(amount_minor, self._currencies.unit(currency))
        params: dict[str, Any] = {"amount": amount, "currency": currency.lower(), "metadata": metadata}
        if destination_account:
            params["transfer_data"] = {"destination": destination_account}
        with _provider_errors("create a payment intent"):
            intent = self._client.v1.payment_intents.create(
                params=params,  # type: ignore[arg-type]  # a TypedDict in the SDK, built up here
                options={"idempotency_key": idempotency_key, "max_network_retries": self._retries},
            )
        return self._intent(intent)

    def retrieve_intent(self, intent_id: str) -> ProviderIntent:
        """The intent as the provider has it now."""
        with _provider_errors("read a payment intent"):
            intent = self._client.v1.payment_intents.retrieve(
                intent_id, options={"max_network_retries": self._retries}
            )
        return self._intent(intent)

    def refund(
        self,
        intent_id: str,
        *,
        idempotency_key: str,
        amount: Decimal | None = None,
        currency: str | None = None,
    ) -> str:
        """Refund a succeeded intent, in full or ``amount`` of it (in ``currency``, the intent's when not
        given), sent as Stripe's ``amount`` in the minor unit Stripe writes that currency in; for a
        destination charge the transfer to the connected account is reversed too (in proportion), so
        the venue gives back what it received."""
        with _provider_errors("refund a payment"):
            intent = self._client.v1.payment_intents.retrieve(
                intent_id, options={"max_network_retries": self._retries}
            )
            params: dict[str, Any] = {"payment_intent": intent_id}
            if amount is not None:
                unit = self._currencies.unit(currency or intent.currency)
                params["amount"] = to_stripe(unit.to_minor(amount), unit)
            transfer = getattr(intent, "transfer_data", None)
            if transfer is not None and getattr(transfer, "destination", None):
                params["reverse_transfer"] = True
            refund = self._client.v1.refunds.create(
                params=params,  # type: ignore[arg-type]
                options={"idempotency_key": idempotency_key, "max_network_retries": self._retries},
            )
        return str(refund.id)

    def read_delivery(self, payload: bytes, headers: Mapping[str, str], now: datetime) -> PaymentEvent | None:
        """The event of one webhook delivery, once the SDK accepts its signature (against the real
        time: ``now`` is not the provider's)."""
        verify_with_stripe(payload, headers.get(SIGNATURE_HEADER), self._webhook_secret)
        return read_event(payload, self._currencies)

    def _intent(self, intent: stripe.PaymentIntent) -> ProviderIntent:
        minor = from_stripe(intent.amount, self._currencies.unit(intent.currency))
        if minor is None:
            raise PaymentProviderError(
                f"Stripe reported intent {intent.id} of {intent.amount} {intent.currency}"
            )
        return ProviderIntent(
            id=intent.id,
            client_secret=intent.client_secret or "",
            amount_minor=minor,
            currency=intent.currency,
            status=intent.status,
            cancelled=intent.status == CANCELED,
        )


class _provider_errors:  # noqa: N801 - used as a `with` statement, like contextlib's helpers
    """Turn the SDK's errors into PaymentProviderError, with a message fit for the API's caller."""

    def __init__(self, action: str) -> None:
        self._action = action

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: Any) -> None:
        if exc is None or not isinstance(exc, stripe.StripeError):
            return
        log.error("stripe: could not %s: %s (%s)", self._action, exc, getattr(exc, "request_id", None))
        if isinstance(exc, stripe.APIConnectionError):
            message = f"The payment provider could not be reached to {self._action}; please try again."
        else:
            detail = exc.user_message or getattr(exc, "code", None) or f"HTTP {exc.http_status}"
            message = f"The payment provider refused to {self._action}: {detail}."
        raise PaymentProviderError(message) from exc
