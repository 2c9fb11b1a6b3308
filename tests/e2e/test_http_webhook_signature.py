"""The sandbox provider's webhook signature check (Stripe's scheme, against the service's clock):
malformed headers are a 400 with the contract's body, never a 500."""

from __future__ import annotations

import json

import pytest

from adapters.payments.sandbox import sign
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
)
from tests.support.http_fixtures import api as api

__all__ = ["api", "clone_postgres", "database_url", "postgres_template", "sqlite_template"]  # fixtures


@pytest.mark.parametrize(
    "timestamp",
    [
        "9" * 400,  # an int far beyond a float: the old check overflowed
        "9" * 5000,  # beyond int()'s digit limit
        "-5",
        "+1700000000",
        "12.5",
        "",
    ],
)
def test_a_malformed_timestamp_is_400_and_changes_nothing(api: Api, timestamp: str) -> None:
    created = book(api, ANNA, "Court 1", "2026-06-02T10:00:00+02:00", "2026-06-02T11:00:00+02:00")
    intent = {"id": "pi_x", "amount": 2000, "currency": "eur", "metadata": {"booking_id": created["id"]}}
    body = json.dumps(
        {"id": "evt_t", "type": "payment_intent.succeeded", "data": {"object": intent}}
    ).encode()
    real = sign(body, api.services.settings.stripe_webhook_secret, int(api.clock.now().timestamp()))
    header = f"t={timestamp},{real.split(',', 1)[1]}"
    response = api.client.post("/webhooks/provider/", content=body, headers={"Stripe-Signature": header})
    assert (response.status_code, response.json()) == (400, {"error": "invalid signature"})
    assert api.client.get(f"{BOOKINGS}{created['id']}/", headers=auth(ANNA)).json()["status"] == "pending"


def test_a_signature_from_the_future_beyond_the_tolerance_is_refused(api: Api) -> None:
    body = b'{"id": "evt_f", "type": "customer.created", "data": {"object": {}}}'
    secret = api.services.settings.stripe_webhook_secret
    now = int(api.clock.now().timestamp())
    ahead = api.client.post(
        "/webhooks/provider/", content=body, headers={"Stripe-Signature": sign(body, secret, now + 301)}
    )
    within = api.client.post(
        "/webhooks/provider/", content=body, headers={"Stripe-Signature": sign(body, secret, now + 299)}
    )
    assert (ahead.status_code, within.status_code) == (400, 200)


def test_a_signature_with_bytes_beyond_ascii_is_400(api: Api) -> None:
    body = b'{"id": "evt_n", "type": "customer.created", "data": {"object": {}}}'
    header = f"t={int(api.clock.now().timestamp())},v1=".encode() + "é".encode("latin-1")
    response = api.client.post("/webhooks/provider/", content=body, headers={"Stripe-Signature": header})
    assert (response.status_code, response.json()) == (400, {"error": "invalid signature"})
