"""The payment provider failing, over HTTP on SQLite and PostgreSQL, with the real ``stripe`` SDK against
the local fake Stripe (``tests.support.fake_stripe``) told to answer 5xx or to hang past the timeout.

Covered elsewhere, and not repeated here: a 5xx or a dropped connection on create-payment-intent
(``test_payment_flow_stripe.py::test_a_provider_failure_is_500_with_json_and_a_retry_later_works``),
the gateway's own mapping of error answers, timeouts and lost connections and its one retry with the
same idempotency key (``test_stripe_gateway.py``), and a refund the provider refuses, sent again by
the worker (``test_http_payments.py::test_a_refund_the_provider_refuses_is_sent_again_by_the_worker``,
on the offline provider). Here: create-payment-intent timing out, and the refund of a cancellation
meeting a 5xx or a timeout of the real API.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from entrypoints.worker import run_once
from tests.e2e.test_payment_flow_stripe import WEBHOOK_SECRET, deliver
from tests.support.fake_stripe import FakeStripe, fake_stripe
from tests.support.http_fixtures import (
    ANNA,
    BOOKINGS,
    Api,
    auth,
    book,
    clone_postgres,
    database_url,
    postgres_template,
    sqlite_template,
    start_on_fake_stripe,
)
from tests.support.ledger import assert_consistent, read

__all__ = ["clone_postgres", "database_url", "postgres_template", "sqlite_template"]  # fixtures

MORNING = ("2026-06-02T10:00:00+02:00", "2026-06-02T11:00:00+02:00")
#: Short enough for a test, long enough for the fake's ordinary answers on a busy machine.
TIMEOUT_SECONDS = 1.0
HANG_SECONDS = 1.6


@pytest.fixture
def fake() -> Iterator[FakeStripe]:
    with fake_stripe() as server:
        yield server


@pytest.fixture
def api(database_url: str, fake: FakeStripe, tmp_path: Path) -> Iterator[Api]:
    yield from start_on_fake_stripe(
        database_url,
        fake.url,
        tmp_path / "mail",
        webhook_secret=WEBHOOK_SECRET,
        timeout=(TIMEOUT_SECONDS, TIMEOUT_SECONDS),
    )


def _detail(api: Api, booking_id: str) -> dict[str, object]:
    answer = api.client.get(f"{BOOKINGS}{booking_id}/", headers=auth(ANNA))
    assert answer.status_code == 200, answer.text
    detail: dict[str, object] = answer.json()
    return detail


def test_an_intent_request_that_times_out_is_500_json_and_the_retry_gets_the_providers_intent(
    api: Api, fake: FakeStripe
) -> None:
    created = book(api, ANNA, "Court 1", *MORNING)
    url = f"{BOOKINGS}{created['id']}/create-payment-intent/"
    fake.stall_next(HANG_SECONDS, times=2, path="/v1/payment_intents")  # the call and the SDK's one retry
    refused = api.client.post(url, headers=auth(ANNA))
    assert refused.status_code == 500
    assert list(refused.json()) == ["error"]
    assert "payment provider" in refused.json()["error"]
    detail = _detail(api, created["id"])
    assert (detail["status"], detail["payment"]) == ("pending", None)

    answer = api.client.post(url, headers=auth(ANNA))
    assert answer.status_code == 200, answer.text
    # the provider opened the intent while the service had stopped waiting: the retry, with the same
    # idempotency key, gets that one back instead of opening a second
    assert list(fake.intents) == [answer.json()["payment_intent_id"]]
    assert len({r.idempotency_key for r in fake.posts("/v1/payment_intents")}) == 1
    detail = _detail(api, created["id"])
    assert detail["status"] == "pending"
    assert isinstance(detail["payment"], dict)
    assert detail["payment"]["payment_intent_id"] == answer.json()["payment_intent_id"]


@pytest.mark.parametrize("fault", ["5xx", "timeout"])
def test_a_refund_the_provider_fails_is_sent_again_and_given_once(
    api: Api, fake: FakeStripe, fault: str
) -> None:
    created = book(api, ANNA, "Court 1", *MORNING)
    intent = api.client.post(f"{BOOKINGS}{created['id']}/create-payment-intent/", headers=auth(ANNA)).json()
    paid = fake.succeed(intent["payment_intent_id"])
    assert deliver(api, "payment_intent.succeeded", paid).status_code == 200
    if fault == "5xx":
        fake.fail_next(503, times=2, path="/v1/refunds")
    else:
        fake.stall_next(HANG_SECONDS, times=2, path="/v1/refunds")

    cancelled = api.client.post(f"{BOOKINGS}{created['id']}/cancel/", headers=auth(ANNA), json={})
    assert cancelled.status_code == 200, cancelled.text  # the cancellation does not wait for the provider
    assert cancelled.json()["status"] == "cancelled"
    detail = _detail(api, created["id"])
    assert isinstance(detail["payment"], dict)
    assert (detail["status"], detail["payment"]["status"]) == ("cancelled", "refund_pending")
    url = api.services.settings.database_url
    story = read(url, [created["id"]])[created["id"]]
    assert len(story.refund_requests) == 1

    assert run_once(api.services).refunds == 0  # not due yet: the next attempt waits a little
    api.clock.advance(minutes=5)
    assert run_once(api.services).refunds == 1
    api.clock.advance(hours=1)
    assert run_once(api.services).refunds == 0  # accepted: never sent again
    # one refund at the provider, every request for it with the same key (a refund that went
    # through while the service stopped waiting is answered again, not made twice)
    assert len(fake.refunds) == 1
    assert len({r.idempotency_key for r in fake.posts("/v1/refunds")}) == 1

    [refund] = fake.refunds.values()
    charge = {
        "id": "ch_fake_faults",
        "object": "charge",
        "payment_intent": intent["payment_intent_id"],
        "amount": refund["amount"],
        "currency": refund["currency"],
        "refunded": True,
        "metadata": {"booking_id": created["id"]},
    }
    assert deliver(api, "charge.refunded", charge).status_code == 200
    detail = _detail(api, created["id"])
    assert isinstance(detail["payment"], dict)
    assert (detail["status"], detail["payment"]["status"]) == ("refunded", "refunded")
    assert_consistent(read(url))
