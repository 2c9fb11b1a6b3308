"""Each payment provider's package reads its own webhook into provider-neutral events (issue 24):
the signature, the wire format and Stripe's amounts stay in ``adapters.payments``; the core names no
provider's event types."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import booking_core
from adapters.payments import SandboxGateway, StripeGateway, stripe_currencies
from adapters.payments.sandbox import sign
from booking_core.errors import BadRequest
from booking_core.state_machine import Event

SECRET = "whsec_test"
NOW = datetime(2026, 6, 2, 8, 0, tzinfo=UTC)


def _sandbox() -> SandboxGateway:
    return SandboxGateway(
        secret_key="sk_test", publishable_key="pk_test", webhook_secret=SECRET, currencies=stripe_currencies()
    )


def _body(kind: str, **obj: Any) -> bytes:
    return json.dumps({"id": "evt_1", "type": kind, "data": {"object": obj}}).encode()


def _signed(body: bytes, at: datetime = NOW) -> dict[str, str]:
    return {"Stripe-Signature": sign(body, SECRET, int(at.timestamp()))}


def test_a_partial_refund_is_read_as_the_neutral_kind_in_iso_minor_units() -> None:
    # ISK: Stripe writes two decimals, ISO 4217 none; 500 of Stripe's refunded is 5 kronur
    body = _body(
        "charge.refunded", id="ch_1", payment_intent="pi_1", amount=2000, amount_refunded=500, currency="isk"
    )
    event = _sandbox().read_delivery(body, _signed(body), NOW)
    assert event is not None
    assert (event.kind, event.label, event.payment_intent_id) == (
        Event.PARTIAL_REFUND_REPORTED,
        "charge.refunded",
        "pi_1",
    )
    assert (event.amount_minor, event.refunded_minor) == (20, 5)


def test_a_success_and_a_failure_are_read_as_their_kinds() -> None:
    ok = _body(
        "payment_intent.succeeded", id="pi_2", amount=2000, currency="eur", metadata={"booking_id": "b"}
    )
    failed = _body("payment_intent.payment_failed", id="pi_2", last_payment_error={"message": "declined"})
    gateway = _sandbox()
    success = gateway.read_delivery(ok, _signed(ok), NOW)
    failure = gateway.read_delivery(failed, _signed(failed), NOW)
    assert success is not None
    assert failure is not None
    assert (success.kind, success.booking_id, success.amount_minor) == (Event.PAYMENT_SUCCEEDED, "b", 2000)
    assert (failure.kind, failure.failure_message) == (Event.PAYMENT_FAILED, "declined")


def test_an_event_type_the_service_does_not_act_on_is_none() -> None:
    body = _body("customer.created", id="cus_1")
    assert _sandbox().read_delivery(body, _signed(body), NOW) is None


@pytest.mark.parametrize(
    ("headers", "body", "error"),
    [
        ({}, _body("payment_intent.succeeded", id="pi"), "invalid signature"),
        (_signed(b"other"), _body("payment_intent.succeeded", id="pi"), "invalid signature"),
        (_signed(b"{", NOW), b"{", "invalid payload"),
    ],
)
def test_a_delivery_the_sandbox_cannot_trust_or_read_is_refused(
    headers: dict[str, str], body: bytes, error: str
) -> None:
    with pytest.raises(BadRequest, match=error):
        _sandbox().read_delivery(body, headers, NOW)


def test_stripe_checks_its_signature_with_the_sdk_against_the_real_time() -> None:
    gateway = StripeGateway(secret_key="sk_test", publishable_key="pk_test", webhook_secret=SECRET)
    body = _body("payment_intent.succeeded", id="pi_3", amount=2000, currency="eur")
    now = int(time.time())
    event = gateway.read_delivery(body, {"Stripe-Signature": sign(body, SECRET, now)}, NOW)
    assert event is not None
    assert event.kind is Event.PAYMENT_SUCCEEDED
    with pytest.raises(BadRequest, match="invalid signature"):
        gateway.read_delivery(body, {"Stripe-Signature": sign(body, SECRET, now - 301)}, NOW)


def test_the_core_names_no_provider_event_type() -> None:
    core = Path(booking_core.__file__).parent
    named = [
        path.relative_to(core).as_posix()
        for path in sorted(core.rglob("*.py"))
        if any(name in path.read_text() for name in ("payment_intent.", "charge.refunded"))
    ]
    assert named == []
