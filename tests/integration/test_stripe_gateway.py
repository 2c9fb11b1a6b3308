"""The Stripe gateway: the real ``stripe`` SDK against a local fake server that records what it gets,
and against ``localstripe`` (a Stripe emulator from PyPI) for the plain intent and refund calls."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
import stripe

from adapters.payments import StripeGateway
from booking_core.errors import PaymentProviderError
from tests.support.fake_stripe import FakeStripe, fake_stripe

SECRET = "sk_test_fake"


@pytest.fixture
def fake() -> Iterator[FakeStripe]:
    with fake_stripe() as server:
        yield server


def _gateway(url: str, **options: float | int | tuple[float, float]) -> StripeGateway:
    return StripeGateway(secret_key=SECRET, publishable_key="pk_test_fake", api_base=url, **options)  # type: ignore[arg-type]


def test_create_intent_sends_minor_units_currency_metadata_and_the_idempotency_key(fake: FakeStripe) -> None:
    intent = _gateway(fake.url).create_intent(
        amount_minor=4050,
        currency="EUR",
        booking_id="b-1",
        idempotency_key="intent-b-1-0",
        destination_account=None,
        reference_code="ABCD2345",
    )
    [request] = fake.posts("/v1/payment_intents")
    assert request.params == {
        "amount": "4050",
        "currency": "eur",
        "metadata[booking_id]": "b-1",
        "metadata[reference_code]": "ABCD2345",
    }
    assert request.idempotency_key == "intent-b-1-0"
    assert request.headers["authorization"] == f"Bearer {SECRET}"
    assert (intent.id, intent.amount_minor, intent.currency) == (fake.intents[intent.id]["id"], 4050, "eur")
    assert intent.client_secret.startswith(intent.id)


def test_a_venue_with_a_connected_account_gets_a_destination_charge(fake: FakeStripe) -> None:
    _gateway(fake.url).create_intent(
        amount_minor=3200,
        currency="USD",
        booking_id="b-2",
        idempotency_key="intent-b-2-0",
        destination_account="acct_harbour",
    )
    [request] = fake.posts("/v1/payment_intents")
    assert request.params["transfer_data[destination]"] == "acct_harbour"
    assert "stripe-account" not in request.headers  # the platform charges, the venue receives


def test_the_same_idempotency_key_answers_the_same_intent(fake: FakeStripe) -> None:
    gateway = _gateway(fake.url)
    args = {"amount_minor": 100, "currency": "eur", "booking_id": "b", "destination_account": None}
    first = gateway.create_intent(idempotency_key="intent-b-0", **args)  # type: ignore[arg-type]
    again = gateway.create_intent(idempotency_key="intent-b-0", **args)  # type: ignore[arg-type]
    other = gateway.create_intent(idempotency_key="intent-b-1", **args)  # type: ignore[arg-type]
    assert first == again
    assert other.id != first.id


def test_refund_carries_its_key_and_reverses_the_transfer_of_a_destination_charge(fake: FakeStripe) -> None:
    gateway = _gateway(fake.url)
    plain = gateway.create_intent(
        amount_minor=2000, currency="eur", booking_id="p", idempotency_key="i-p", destination_account=None
    )
    connected = gateway.create_intent(
        amount_minor=3200, currency="usd", booking_id="c", idempotency_key="i-c", destination_account="acct_1"
    )
    fake.succeed(plain.id)
    fake.succeed(connected.id)
    assert gateway.refund(plain.id, idempotency_key="refund-p").startswith("re_fake_")
    gateway.refund(connected.id, idempotency_key="refund-c")
    first, second = fake.posts("/v1/refunds")
    assert (first.params, first.idempotency_key) == ({"payment_intent": plain.id}, "refund-p")
    assert (second.params, second.idempotency_key) == (
        {"payment_intent": connected.id, "reverse_transfer": "true"},
        "refund-c",
    )


def test_retrieve_intent(fake: FakeStripe) -> None:
    gateway = _gateway(fake.url)
    created = gateway.create_intent(
        amount_minor=500, currency="eur", booking_id="r", idempotency_key="i-r", destination_account=None
    )
    fake.succeed(created.id)
    assert gateway.retrieve_intent(created.id).status == "succeeded"
    with pytest.raises(PaymentProviderError):
        gateway.retrieve_intent("pi_unknown")


def test_an_intent_stripe_cancelled_is_read_as_cancelled(fake: FakeStripe) -> None:
    gateway = _gateway(fake.url)
    created = gateway.create_intent(
        amount_minor=500, currency="eur", booking_id="c", idempotency_key="i-c", destination_account=None
    )
    assert gateway.retrieve_intent(created.id).cancelled is False
    fake.cancel(created.id)
    assert gateway.retrieve_intent(created.id).cancelled is True


@pytest.mark.parametrize("status", [500, 402])
def test_an_error_answer_is_a_provider_error(fake: FakeStripe, status: int) -> None:
    fake.fail_next(status, times=5)
    with pytest.raises(PaymentProviderError, match="refused"):
        _gateway(fake.url).create_intent(
            amount_minor=100, currency="eur", booking_id="x", idempotency_key="k", destination_account=None
        )


def test_a_server_error_is_retried_once_with_the_same_idempotency_key(fake: FakeStripe) -> None:
    fake.fail_next(500)
    intent = _gateway(fake.url).create_intent(
        amount_minor=100,
        currency="eur",
        booking_id="x",
        idempotency_key="intent-x-0",
        destination_account=None,
    )
    attempts = fake.posts("/v1/payment_intents")
    assert [r.idempotency_key for r in attempts] == ["intent-x-0", "intent-x-0"]
    assert intent.id in fake.intents


def test_a_timeout_is_a_provider_error_within_the_set_timeout(fake: FakeStripe) -> None:
    fake.stall_next(3.0, times=2)
    gateway = _gateway(fake.url, timeout=(1.0, 0.5), retries=0)
    started = time.monotonic()
    with pytest.raises(PaymentProviderError, match="could not be reached"):
        gateway.create_intent(
            amount_minor=100, currency="eur", booking_id="x", idempotency_key="k", destination_account=None
        )
    assert time.monotonic() - started < 2.5


def test_a_lost_connection_is_a_provider_error(fake: FakeStripe) -> None:
    fake.drop_next(times=3)
    with pytest.raises(PaymentProviderError, match="could not be reached"):
        _gateway(fake.url).retrieve_intent("pi_x")


def test_nothing_listening_is_a_provider_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(PaymentProviderError):
        _gateway(f"http://127.0.0.1:{port}", retries=0).retrieve_intent("pi_x")


# --------------------------------------------------------------------------- localstripe


@pytest.fixture(scope="module")
def localstripe() -> Iterator[str]:
    """localstripe on a free port, in its own process."""
    command = shutil.which("localstripe", path=str(Path(sys.executable).parent))
    if command is None:
        pytest.fail("localstripe is a dev dependency; run `make install`")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [command, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("localstripe did not start")
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_localstripe_accepts_the_gateways_intent_and_refund(localstripe: str) -> None:
    gateway = _gateway(localstripe)
    intent = gateway.create_intent(
        amount_minor=2550,
        currency="EUR",
        booking_id="b-local",
        idempotency_key="intent-b-local-0",
        destination_account=None,
        reference_code="LOCAL234",
    )
    assert (intent.amount_minor, intent.currency, intent.status) == (2550, "eur", "requires_payment_method")
    # the customer's side, as Stripe.js would do it in the browser
    client = stripe.StripeClient(SECRET, base_addresses={"api": localstripe})
    card = client.v1.payment_methods.create(
        params={
            "type": "card",
            "card": {"number": "4242424242424242", "exp_month": 12, "exp_year": 2040, "cvc": "123"},
        }
    )
    client.v1.payment_intents.update(intent.id, params={"payment_method": card.id})
    client.v1.payment_intents.confirm(intent.id)
    assert gateway.retrieve_intent(intent.id).status == "succeeded"
    stored = client.v1.payment_intents.retrieve(intent.id)
    assert stored.metadata.to_dict() == {"booking_id": "b-local", "reference_code": "LOCAL234"}
    refund_id = gateway.refund(intent.id, idempotency_key="refund-b-local")
    refund = client.v1.refunds.retrieve(refund_id)
    assert (refund.amount, refund.status) == (2550, "succeeded")


def test_a_partial_refund_sends_its_amount_as_stripe_writes_it_once_per_key(fake: FakeStripe) -> None:
    gateway = _gateway(fake.url)
    euros = gateway.create_intent(
        amount_minor=3000, currency="eur", booking_id="e", idempotency_key="i-e", destination_account=None
    )
    kronur = gateway.create_intent(
        amount_minor=5000, currency="isk", booking_id="k", idempotency_key="i-k", destination_account=None
    )
    fake.succeed(euros.id)
    fake.succeed(kronur.id)
    first = gateway.refund(euros.id, idempotency_key="refund-e", amount=Decimal("12.50"), currency="EUR")
    again = gateway.refund(euros.id, idempotency_key="refund-e", amount=Decimal("12.50"), currency="EUR")
    gateway.refund(kronur.id, idempotency_key="refund-k", amount=Decimal(1200))  # the intent's currency
    assert first == again
    assert [r.params.get("amount") for r in fake.posts("/v1/refunds")] == ["1250", "1250", "120000"]
    assert [r["amount"] for r in fake.refunds.values()] == [1250, 120000]  # one refund per key
    with pytest.raises(PaymentProviderError, match="refused"):  # more than is left of the payment
        gateway.refund(euros.id, idempotency_key="refund-e-2", amount=Decimal("17.51"), currency="EUR")
