"""``POST /webhooks/provider/``: the payment provider's signed events (Stripe's format).

The signature header is ``Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`` with
the webhook secret, accepted for 300 seconds. With the ``stripe`` provider the SDK's own check
decides (against the real time); the ``sandbox`` provider checks the same scheme here, against the
service's clock. Only then is the body read as an event; the use case applies each event id once, so
redeliveries change nothing. Every delivery is answered 200 once it is verified and readable (a
payment the service cannot keep is refunded, not refused: the provider would only send it again), and
counted in ``booking_payment_events_total`` by type and outcome: ``applied``, ``ignored``,
``duplicate``, ``mismatch`` (intent, amount or currency not the booking's payment's: nothing changed,
and the log says why) or ``unknown``.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
from datetime import datetime
from typing import Any

import msgspec
import stripe
from anyio.to_thread import run_sync
from litestar import Request, Router, post
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.params import HeaderParameter
from prometheus_client import Counter

from adapters.payments.stripe_amounts import from_stripe
from booking_core.errors import BadRequest
from booking_core.money import UnknownCurrency
from booking_core.ports import Currencies
from booking_core.usecases.deps import Deps
from booking_core.usecases.payments import EVENT_TYPES, Delivery, PaymentEvent, apply_payment_event
from entrypoints.http.openapi import WEBHOOK_ANSWERS
from entrypoints.http.ratelimit import UNLIMITED_OPT_KEY

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "Stripe-Signature"
TOLERANCE_SECONDS = 300
INVALID_SIGNATURE = "invalid signature"
_TIMESTAMP = re.compile(r"[0-9]{1,12}")
HANDLED = frozenset(EVENT_TYPES)
#: Read from the request by the handler itself (after the raw body); declared for the document.
SIGNATURE_PARAMETER = HeaderParameter(
    annotation=str,
    name=SIGNATURE_HEADER,
    required=True,
    default=None,  # documented as required; a missing one is refused by ``verify``, like a wrong one
    description='`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` with the webhook secret',
)

EVENTS = Counter(
    "booking_payment_events",
    "Payment provider events delivered to the webhook, by type and what became of them.",
    ["type", "outcome"],
)


def sign(payload: bytes, secret: str, timestamp: int) -> str:
    """The signature header value for ``payload`` sent at ``timestamp`` (for senders and tests)."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + payload, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={mac}"


def verify(
    payload: bytes, header: str | None, secret: str, now: datetime, *, provider: str = "sandbox"
) -> None:
    """Raise BadRequest unless ``header`` signs ``payload`` with ``secret`` within the tolerance."""
    if provider == "stripe":
        _verify_with_stripe(payload, header, secret)
        return
    parts = [p.split("=", 1) for p in (header or "").split(",") if "=" in p]
    timestamps = [v.strip() for k, v in parts if k.strip() == "t"]
    signatures = [v.strip() for k, v in parts if k.strip() == "v1"]
    # ASCII digits of a plausible length: int() of thousands of digits fails, and a float of them
    # overflows
    if len(timestamps) != 1 or not _TIMESTAMP.fullmatch(timestamps[0]) or not signatures:
        raise BadRequest(INVALID_SIGNATURE)
    timestamp = int(timestamps[0])
    if abs(int(now.timestamp()) - timestamp) > TOLERANCE_SECONDS:
        raise BadRequest(INVALID_SIGNATURE)
    expected = sign(payload, secret, timestamp).split("v1=", 1)[1]
    # compare_digest refuses non-ASCII strings (a TypeError), and no real signature is one
    if not any(s.isascii() and hmac.compare_digest(expected, s) for s in signatures):
        raise BadRequest(INVALID_SIGNATURE)


def _verify_with_stripe(payload: bytes, header: str | None, secret: str) -> None:
    try:
        stripe.WebhookSignature.verify_header(payload, header, secret, TOLERANCE_SECONDS)
    except (stripe.SignatureVerificationError, UnicodeDecodeError, ValueError, TypeError):
        # the SDK decodes the body as UTF-8 before it checks anything, and its comparison refuses a
        # signature with characters beyond ASCII
        raise BadRequest(INVALID_SIGNATURE) from None


class _Event(msgspec.Struct):
    id: str
    type: str
    data: dict[str, Any]


def parse_event(payload: bytes, currencies: Currencies) -> PaymentEvent | None:
    """The domain's view of a provider event; None for event types the service ignores.

    Stripe writes ``amount`` in its own unit of the currency; the domain gets ISO 4217 minor units.
    """
    try:
        event = msgspec.json.decode(payload, type=_Event)
    except msgspec.DecodeError:
        raise BadRequest("invalid payload") from None
    if event.type not in HANDLED:
        return None
    obj = event.data.get("object")
    if not isinstance(obj, dict):
        raise BadRequest("invalid payload")
    metadata = _object(obj.get("metadata"))
    intent_id = obj.get("payment_intent") if event.type == "charge.refunded" else obj.get("id")
    error = _object(obj.get("last_payment_error"))
    currency = str(obj["currency"]) if obj.get("currency") else None
    amount = _integer(obj.get("amount"))
    refunded = _integer(obj.get("amount_refunded"))
    return PaymentEvent(
        id=event.id,
        type=event.type,
        payment_intent_id=str(intent_id or ""),
        booking_id=str(metadata["booking_id"]) if metadata.get("booking_id") else None,
        amount_minor=_amount_minor(amount, currency, currencies),
        currency=currency,
        failure_message=str(error.get("message") or ""),
        partial_refund=event.type == "charge.refunded" and _partial(amount, refunded, obj.get("refunded")),
        refunded_minor=_amount_minor(refunded, currency, currencies),
    )


def _amount_minor(amount: int | None, currency: str | None, currencies: Currencies) -> int | None:
    """A Stripe amount in ISO minor units; None when there is none (the event then mismatches)."""
    if amount is None or currency is None:
        return None
    try:
        return from_stripe(amount, currencies.unit(currency))
    except UnknownCurrency:
        return None


def _integer(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _partial(amount: int | None, refunded: int | None, flag: object) -> bool:
    """Whether a refunded charge gave back only part of its amount (CONTRACT 5).

    ``amount_refunded`` (the running total) decides, whatever the ``refunded`` flag says; a charge that
    names no such total is refunded in full unless it says ``"refunded": false``.
    """
    if amount is not None and refunded is not None:
        return refunded < amount
    return flag is False


def _object(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def handle_event(deps: NamedDependency[Deps], payload: bytes, signature: str | None, secret: str) -> None:
    """Verify, parse and apply one delivery, and count what became of it."""
    verify(payload, signature, secret, deps.clock.now(), provider=deps.payments.provider_name)
    event = parse_event(payload, deps.currencies)
    if event is None:
        return
    result = apply_payment_event(deps, event)
    EVENTS.labels(type=event.type, outcome=result.delivery.value).inc()
    if result.delivery is Delivery.MISMATCH:
        log.warning("webhook: event %s (%s) does not match its booking's payment", event.id, event.type)


class Received(msgspec.Struct):
    """Acknowledgement of a delivery."""

    received: bool = True


@post(
    "/webhooks/provider/",
    status_code=200,
    opt={UNLIMITED_OPT_KEY: True},
    tags=["payments"],
    responses=WEBHOOK_ANSWERS,
)
async def provider_webhook(
    request: Request[Any, Any, Any], deps: NamedDependency[Deps], state: State
) -> Received:
    """Apply one signed provider event; unknown event types are acknowledged and ignored."""
    payload = await request.body()
    signature = request.headers.get(SIGNATURE_HEADER)
    await run_sync(handle_event, deps, payload, signature, state.webhook_secret)
    return Received()


#: The webhook with its signature header declared (Litestar takes parameters from routers, not handlers).
router = Router(
    path="/", route_handlers=[provider_webhook], parameters={"stripe_signature": SIGNATURE_PARAMETER}
)
