"""``booking sandbox pay``: a correctly signed ``payment_intent.succeeded``, posted to the running
service exactly as the provider would post it."""

from __future__ import annotations

import json
import secrets
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

from adapters.payments.sandbox import sign
from adapters.payments.stripe import SIGNATURE_HEADER
from adapters.payments.stripe.amounts import to_stripe
from booking_core.booking import Booking
from booking_core.money import CurrencyUnit
from booking_core.payments import Payment

WEBHOOK_PATH = "/webhooks/provider/"
TIMEOUT_SECONDS = 30.0


class DeliveryFailed(Exception):
    """The service could not be reached or did not accept the event; the message is one line."""


@dataclass(frozen=True, slots=True)
class Delivery:
    """What was posted."""

    event_id: str
    url: str


def succeeded_event(
    booking: Booking, payment: Payment, unit: CurrencyUnit, *, event_id: str, created: int
) -> dict[str, object]:
    """The provider's event for a payment of ``payment`` in full (Stripe's shape and amounts);
    ``unit`` is the payment's currency's."""
    amount = to_stripe(unit.to_minor(payment.amount), unit)
    return {
        "id": event_id,
        "object": "event",
        "type": "payment_intent.succeeded",
        "created": created,
        "livemode": False,
        "data": {
            "object": {
                "id": payment.payment_intent_id,
                "object": "payment_intent",
                "amount": amount,
                "amount_received": amount,
                "currency": payment.currency.lower(),
                "status": "succeeded",
                "metadata": {"booking_id": booking.id, "reference_code": booking.reference_code},
            }
        },
    }


def service_url(host: str, port: int) -> str:
    """Where the service listening on ``host:port`` is reached from this machine."""
    if host in {"0.0.0.0", "", "::"}:  # noqa: S104 - a wildcard address is reached on loopback
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


def pay(
    booking: Booking, payment: Payment, unit: CurrencyUnit, *, base_url: str, webhook_secret: str
) -> Delivery:
    """Post the signed event to ``base_url``; raises DeliveryFailed unless the service answers 200."""
    now = int(time.time())
    event_id = f"evt_sandbox_{secrets.token_hex(12)}"
    body = json.dumps(succeeded_event(booking, payment, unit, event_id=event_id, created=now)).encode()
    url = base_url.rstrip("/") + WEBHOOK_PATH
    request = urllib.request.Request(  # noqa: S310 - the URL is http(s) by construction
        url,
        data=body,
        method="POST",
        headers={"Content-Type": "application/json", SIGNATURE_HEADER: sign(body, webhook_secret, now)},
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:  # noqa: S310
            answer.read()
    except urllib.error.HTTPError as error:
        detail = error.read(500).decode(errors="replace").strip()
        raise DeliveryFailed(f"the service at {base_url} answered {error.code}: {detail}") from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise DeliveryFailed(
            f"cannot reach the service at {base_url} ({reason}); is `booking serve` running there?"
        ) from None
    return Delivery(event_id=event_id, url=url)
