"""Stripe's events as the domain's :class:`~booking_core.ports.PaymentEvent` (the sandbox speaks them too).

Stripe writes ``amount`` in its own unit of the currency (:mod:`adapters.payments.stripe.amounts`);
the domain gets ISO 4217 minor units.
"""

from __future__ import annotations

from typing import Any

import msgspec

from adapters.payments.stripe.amounts import from_stripe
from booking_core.errors import BadRequest
from booking_core.money import UnknownCurrency
from booking_core.ports import Currencies, PaymentEvent
from booking_core.state_machine import Event

INVALID_PAYLOAD = "invalid payload"
REFUNDED = "charge.refunded"
#: The event types the service acts on, and what each is in the state machine.
EVENT_KINDS = {
    "payment_intent.succeeded": Event.PAYMENT_SUCCEEDED,
    "payment_intent.payment_failed": Event.PAYMENT_FAILED,
    REFUNDED: Event.REFUND_REPORTED,
}


class _Event(msgspec.Struct):
    id: str
    type: str
    data: dict[str, Any]


def read_event(payload: bytes, currencies: Currencies) -> PaymentEvent | None:
    """The domain's view of a Stripe event; None for event types the service ignores.

    Raises BadRequest ``invalid payload`` for a body that is not such an event.
    """
    try:
        event = msgspec.json.decode(payload, type=_Event)
    except msgspec.DecodeError:
        raise BadRequest(INVALID_PAYLOAD) from None
    kind = EVENT_KINDS.get(event.type)
    if kind is None:
        return None
    obj = event.data.get("object")
    if not isinstance(obj, dict):
        raise BadRequest(INVALID_PAYLOAD)
    metadata = _object(obj.get("metadata"))
    intent_id = obj.get("payment_intent") if event.type == REFUNDED else obj.get("id")
    error = _object(obj.get("last_payment_error"))
    currency = str(obj["currency"]) if obj.get("currency") else None
    amount = _integer(obj.get("amount"))
    refunded = _integer(obj.get("amount_refunded"))
    if kind is Event.REFUND_REPORTED and _partial(amount, refunded, obj.get("refunded")):
        kind = Event.PARTIAL_REFUND_REPORTED
    return PaymentEvent(
        id=event.id,
        kind=kind,
        label=event.type,
        payment_intent_id=str(intent_id or ""),
        booking_id=str(metadata["booking_id"]) if metadata.get("booking_id") else None,
        amount_minor=_amount_minor(amount, currency, currencies),
        currency=currency,
        failure_message=str(error.get("message") or ""),
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
