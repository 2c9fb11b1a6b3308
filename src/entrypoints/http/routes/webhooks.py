"""``POST /webhooks/provider/``: the payment provider's signed events.

The route only carries the delivery: the configured provider's package
(:meth:`~booking_core.ports.PaymentGateway.read_delivery`, :mod:`adapters.payments`) verifies its
signature and reads it into a provider-neutral event, or refuses it with 400 ``invalid signature`` or
``invalid payload``; the use case applies each event id once, so redeliveries change nothing. Every
delivery is answered 200 once it is verified and readable (a payment the service cannot keep is
refunded, not refused: the provider would only send it again), and counted in
``booking_payment_events_total`` by the provider's event type and the outcome: ``applied``,
``ignored``, ``duplicate``, ``mismatch`` (intent, amount or currency not the booking's payment's:
nothing changed, and the log says why) or ``unknown``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import msgspec
from anyio.to_thread import run_sync
from litestar import Request, Router, post
from litestar.di import NamedDependency
from litestar.params import HeaderParameter
from prometheus_client import Counter

from adapters.payments.stripe import SIGNATURE_HEADER
from booking_core.usecases.deps import Deps
from booking_core.usecases.payments import Delivery, apply_payment_event
from entrypoints.http.openapi import WEBHOOK_ANSWERS
from entrypoints.http.ratelimit import UNLIMITED_OPT_KEY

log = logging.getLogger(__name__)

#: Read from the request by the provider's package (after the raw body); declared for the document.
SIGNATURE_PARAMETER = HeaderParameter(
    annotation=str,
    name=SIGNATURE_HEADER,
    required=True,
    default=None,  # documented as required; a missing one is refused like a wrong one
    description='`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` with the webhook secret',
)

EVENTS = Counter(
    "booking_payment_events",
    "Payment provider events delivered to the webhook, by type and what became of them.",
    ["type", "outcome"],
)


def handle_delivery(deps: NamedDependency[Deps], payload: bytes, headers: Mapping[str, str]) -> None:
    """Read one delivery through the provider, apply its event, and count what became of it."""
    event = deps.payments.read_delivery(payload, headers, deps.clock.now())
    if event is None:
        return
    result = apply_payment_event(deps, event)
    EVENTS.labels(type=event.label, outcome=result.delivery.value).inc()
    if result.delivery is Delivery.MISMATCH:
        log.warning("webhook: event %s (%s) does not match its booking's payment", event.id, event.label)


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
async def provider_webhook(request: Request[Any, Any, Any], deps: NamedDependency[Deps]) -> Received:
    """Apply one signed provider event; unknown event types are acknowledged and ignored."""
    payload = await request.body()
    await run_sync(handle_delivery, deps, payload, request.headers)
    return Received()


#: The webhook with its signature header declared (Litestar takes parameters from routers, not handlers).
router = Router(
    path="/", route_handlers=[provider_webhook], parameters={"stripe_signature": SIGNATURE_PARAMETER}
)
