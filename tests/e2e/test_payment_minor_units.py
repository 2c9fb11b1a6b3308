"""Amounts in the currency's ISO 4217 minor unit, through the real Stripe SDK against the fake Stripe,
on SQLite and PostgreSQL: KWD 20.500 is 20500, JPY 20 is 20, EUR 20.50 is 2050, both ways (the
intent sent, the webhook's amount checked against the booking's total)."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import stripe

from adapters.catalog import validate_catalog, write_catalog
from adapters.passwords import Argon2Passwords
from adapters.sqla import make_engine
from tests.support.fake_stripe import FakeStripe, fake_stripe
from tests.support.http_fixtures import (
    BOOKINGS,
    NOW,
    Api,
    auth,
    book,
    clone_postgres,
    database_url,
    postgres_template,
    sqlite_template,
    start_on_fake_stripe,
)

__all__ = ["clone_postgres", "database_url", "postgres_template", "sqlite_template"]  # fixtures

WEBHOOK_SECRET = "whsec_minor_units"
ANNA = "user-token-anna"
SLOT = ("2026-06-02T10:00:00+02:00", "2026-06-02T11:00:00+02:00")


def _flat(name: str, currency: str, price: str) -> dict[str, Any]:
    """A court charged ``price`` per booking, open 08:00 to 22:00 every day."""
    day = [{"start_time": "08:00:00", "end_time": "22:00:00", "price_per_unit": price}]
    return {
        "name": name,
        "capacity": 4,
        "base_price": price,
        "currency": currency,
        "price_unit": "booking",
        "booking_interval_minutes": 30,
        "min_booking_duration_minutes": 60,
        "prevent_unbookable_gaps": False,
        "schedules": [{"day_of_week": d, "time_slots": day} for d in range(1, 8)],
    }


COURTS: Mapping[str, Any] = {
    "venues": [
        {
            "slug": "world-courts",
            "name": "World Courts",
            "venue_type": "tennis_club",
            "street_address": "Hauptstrasse 2",
            "city": "Berlin",
            "postal_code": "10115",
            "country": "DE",
            "latitude": "52.520008",
            "longitude": "13.404954",
            "timezone": "Europe/Berlin",
            "operator_email": "ops@world-courts.example",
            "resources": [
                _flat("Kuwait Court", "KWD", "20.500"),
                _flat("Tokyo Court", "JPY", "20"),
                _flat("Euro Court", "EUR", "20.50"),
            ],
        }
    ]
}


@pytest.fixture
def fake() -> Iterator[FakeStripe]:
    with fake_stripe() as server:
        yield server


@pytest.fixture
def api(database_url: str, fake: FakeStripe, tmp_path: Path) -> Iterator[Api]:
    engine = make_engine(database_url)
    try:
        write_catalog(engine, validate_catalog(dict(COURTS)), Argon2Passwords(), now=NOW)
    finally:
        engine.dispose()
    yield from start_on_fake_stripe(database_url, fake.url, tmp_path / "mail", webhook_secret=WEBHOOK_SECRET)


def deliver(api: Api, obj: Mapping[str, Any]) -> None:
    """Post ``payment_intent.succeeded`` for ``obj``, signed as Stripe signs it."""
    payload = json.dumps({"id": f"evt_{secrets.token_hex(8)}", "object": "event",
                          "type": "payment_intent.succeeded", "data": {"object": dict(obj)}})  # fmt: skip
    header = stripe.WebhookSignature.generate_signature_header(payload, WEBHOOK_SECRET, int(time.time()))
    answer = api.client.post(
        "/webhooks/provider/",
        content=payload.encode(),
        headers={"Stripe-Signature": header, "Content-Type": "application/json"},
    )
    assert answer.status_code == 200, answer.text


def status(api: Api, booking_id: str) -> str:
    detail: dict[str, Any] = api.client.get(f"{BOOKINGS}{booking_id}/", headers=auth(ANNA)).json()
    return str(detail["status"])


@pytest.mark.parametrize(
    ("court", "currency", "amount", "a_tenth"),
    [("Kuwait Court", "kwd", 20500, 2050), ("Tokyo Court", "jpy", 20, 2), ("Euro Court", "eur", 2050, 205)],
)
def test_the_intent_and_the_webhook_use_the_currencys_minor_unit(
    api: Api, fake: FakeStripe, court: str, currency: str, amount: int, a_tenth: int
) -> None:
    booking = book(api, ANNA, court, *SLOT)
    answer = api.client.post(f"{BOOKINGS}{booking['id']}/create-payment-intent/", headers=auth(ANNA))
    assert answer.status_code == 200, answer.text
    [created] = fake.posts("/v1/payment_intents")
    assert (created.params["amount"], created.params["currency"]) == (str(amount), currency)

    intent = fake.succeed(answer.json()["payment_intent_id"])
    deliver(api, {**intent, "amount": a_tenth, "amount_received": a_tenth})
    assert status(api, booking["id"]) == "pending"  # a tenth of the price is not the booking's total
    deliver(api, intent)
    assert status(api, booking["id"]) == "paid"


@pytest.mark.parametrize(
    ("court", "shown"), [("Kuwait Court", "20.500"), ("Tokyo Court", "20"), ("Euro Court", "20.50")]
)
def test_amounts_are_written_with_their_currencys_decimals(api: Api, court: str, shown: str) -> None:
    booking = book(api, ANNA, court, *SLOT)
    answer = api.client.post(f"{BOOKINGS}{booking['id']}/create-payment-intent/", headers=auth(ANNA))
    assert answer.status_code == 200, answer.text
    detail: dict[str, Any] = api.client.get(f"{BOOKINGS}{booking['id']}/", headers=auth(ANNA)).json()
    written = (booking["total_price"], answer.json()["amount"], detail["payment"]["amount"])
    assert written == (shown, shown, shown)
