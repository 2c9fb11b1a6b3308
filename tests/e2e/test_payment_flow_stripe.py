"""The whole paid booking with ``BOOKING_PAYMENT_PROVIDER=stripe``, over HTTP on SQLite and PostgreSQL:
the real SDK talks to a local fake Stripe, webhooks are signed as Stripe signs them, the worker sends
the email through the file transport, and cancelling refunds through the provider."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator, Mapping
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any, cast

import pytest
import stripe

from entrypoints.worker import run_once
from tests.support.fake_stripe import FakeStripe, fake_stripe
from tests.support.http_fixtures import (
    BOOKINGS,
    FAKE_STRIPE_PUBLISHABLE_KEY,
    PARTNER,
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

WEBHOOK_SECRET = "whsec_flow_test"
CLIENT = "/api/v1/client"
USER = {"X-User-External-ID": "player-7"}
PADEL = ("2026-06-03T18:00:00-04:00", "2026-06-03T19:00:00-04:00")  # Harbour Padel, New York


@pytest.fixture
def fake() -> Iterator[FakeStripe]:
    with fake_stripe() as server:
        yield server


@pytest.fixture
def api(database_url: str, fake: FakeStripe, tmp_path: Path) -> Iterator[Api]:
    yield from start_on_fake_stripe(database_url, fake.url, tmp_path / "mail", webhook_secret=WEBHOOK_SECRET)


def deliver(api: Api, event_type: str, obj: Mapping[str, Any]) -> Any:
    """Post an event signed as Stripe signs it (the SDK's own helper, at the real time)."""
    payload = json.dumps({"id": f"evt_{secrets.token_hex(8)}", "object": "event", "type": event_type,
                          "data": {"object": dict(obj)}})  # fmt: skip
    header = stripe.WebhookSignature.generate_signature_header(payload, WEBHOOK_SECRET, int(time.time()))
    return api.client.post(
        "/webhooks/provider/",
        content=payload.encode(),
        headers={"Stripe-Signature": header, "Content-Type": "application/json"},
    )


def _all_mail(directory: Path) -> list[tuple[str, EmailMessage]]:
    found = (
        cast(EmailMessage, message_from_bytes(p.read_bytes(), policy=policy.default))
        for p in directory.glob("*.eml")
    )
    return [(m["To"].addresses[0].addr_spec, m) for m in found]


def _mail(directory: Path) -> dict[str, EmailMessage]:
    return dict(_all_mail(directory))


def test_book_pay_mail_cancel_refund_with_stripe(api: Api, fake: FakeStripe, tmp_path: Path) -> None:
    registered = api.client.post(
        f"{CLIENT}/users/register/",
        json={"external_id": "player-7", "email": "pia@example.com", "first_name": "Pia", "language": "de"},
        headers=auth(PARTNER),
    )
    assert registered.status_code == 201, registered.text
    booking = book(api, PARTNER, "Padel A", *PADEL, headers=USER)
    booking_id = booking["id"]

    # the intent: a destination charge to the venue's connected account
    answer = api.client.post(
        f"{BOOKINGS}{booking_id}/create-payment-intent/", headers={**auth(PARTNER), **USER}
    )
    assert answer.status_code == 200, answer.text
    intent = answer.json()
    assert intent["provider_account_id"] == "acct_harbour"
    assert intent["publishable_key"] == FAKE_STRIPE_PUBLISHABLE_KEY
    assert (intent["amount"], intent["currency"]) == ("30.00", "USD")
    [created] = fake.posts("/v1/payment_intents")
    assert created.params == {
        "amount": "3000",
        "currency": "usd",
        "metadata[booking_id]": booking_id,
        "metadata[reference_code]": booking["reference_code"],
        "transfer_data[destination]": "acct_harbour",
    }
    assert created.idempotency_key is not None
    assert booking_id in created.idempotency_key
    assert intent["client_secret"] == fake.intents[intent["payment_intent_id"]]["client_secret"]

    # the customer pays in the browser; Stripe reports it
    paid_intent = fake.succeed(intent["payment_intent_id"])
    assert deliver(api, "payment_intent.succeeded", paid_intent).status_code == 200
    detail = api.client.get(f"{BOOKINGS}{booking_id}/", headers={**auth(PARTNER), **USER}).json()
    assert detail["status"] == "paid"
    assert detail["payment"]["provider"] == "stripe"

    # the worker sends both emails
    services = api.services
    assert run_once(services).mail.sent == 2
    mail = _mail(tmp_path / "mail")
    assert set(mail) == {"pia@example.com", "ops@harbour.example"}
    assert "Buchung bestätigt" in mail["pia@example.com"]["Subject"]
    assert [a.get_content_type() for a in mail["pia@example.com"].iter_attachments()] == ["text/calendar"]
    operator_text = mail["ops@harbour.example"].get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert "pia@example.com" in operator_text
    assert booking["reference_code"] in operator_text
    commissions = api.client.get(f"{CLIENT}/commissions/?month=2026-06", headers=auth(PARTNER)).json()
    assert [(c["booking_id"], c["status"]) for c in commissions] == [(booking_id, "open")]

    # cancelling a paid booking refunds through the provider, the transfer to the venue reversed
    cancelled = api.client.post(f"{BOOKINGS}{booking_id}/cancel/", headers={**auth(PARTNER), **USER})
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["status"] == "cancelled"
    [refund] = fake.posts("/v1/refunds")
    assert refund.params == {"payment_intent": intent["payment_intent_id"], "reverse_transfer": "true"}
    assert refund.idempotency_key is not None
    assert booking_id in refund.idempotency_key

    # Stripe reports the refund: refunded, and the commission reversed
    charge = {
        "id": "ch_fake_1",
        "object": "charge",
        "payment_intent": intent["payment_intent_id"],
        "amount": 3000,
        "amount_refunded": 3000,
        "currency": "usd",
        "refunded": True,
        "metadata": {"booking_id": booking_id},
    }
    assert deliver(api, "charge.refunded", charge).status_code == 200
    detail = api.client.get(f"{BOOKINGS}{booking_id}/", headers={**auth(PARTNER), **USER}).json()
    assert detail["status"] == "refunded"
    commissions = api.client.get(f"{CLIENT}/commissions/?month=2026-06", headers=auth(PARTNER)).json()
    assert [c["status"] for c in commissions] == ["reversed"]
    # the user hears of the cancellation and of the refund, once each; the operator of neither
    assert run_once(services).mail.sent == 2
    assert run_once(services).mail.sent == 0
    subjects = sorted((to, m["Subject"]) for to, m in _all_mail(tmp_path / "mail"))
    assert [to for to, _ in subjects].count("ops@harbour.example") == 1
    user_subjects = [subject for to, subject in subjects if to == "pia@example.com"]
    assert len(user_subjects) == 3
    assert sum("Buchung storniert" in s for s in user_subjects) == 1
    assert sum(f"Erstattung zur Buchung {booking['reference_code']}" in s for s in user_subjects) == 1


def test_a_provider_failure_is_500_with_json_and_a_retry_later_works(api: Api, fake: FakeStripe) -> None:
    created = book(
        api, "user-token-anna", "Court 1", "2026-06-02T10:00:00+02:00", "2026-06-02T11:00:00+02:00"
    )
    url = f"{BOOKINGS}{created['id']}/create-payment-intent/"
    for failure in (lambda: fake.fail_next(500, times=2), lambda: fake.drop_next(times=2)):
        failure()
        refused = api.client.post(url, headers=auth("user-token-anna"))
        assert refused.status_code == 500
        assert "payment provider" in refused.json()["error"]
        detail = api.client.get(f"{BOOKINGS}{created['id']}/", headers=auth("user-token-anna")).json()
        assert (detail["status"], detail["payment"]) == ("pending", None)
    answer = api.client.post(url, headers=auth("user-token-anna"))
    assert answer.status_code == 200, answer.text
    assert answer.json()["payment_intent_id"] in fake.intents


def test_stripe_webhooks_are_checked_by_the_sdk(api: Api) -> None:
    created = book(
        api, "user-token-anna", "Court 1", "2026-06-02T10:00:00+02:00", "2026-06-02T11:00:00+02:00"
    )
    intent = {"id": "pi_x", "amount": 2000, "currency": "eur", "metadata": {"booking_id": created["id"]}}
    event = json.dumps({"id": "evt_x", "type": "payment_intent.succeeded", "data": {"object": intent}})
    now = int(time.time())
    stale = stripe.WebhookSignature.generate_signature_header(event, WEBHOOK_SECRET, now - 301)
    wrong = stripe.WebhookSignature.generate_signature_header(event, "whsec_other", int(time.time()))
    for header in (stale, wrong, "t=" + "9" * 400 + ",v1=00", "t=" + "9" * 5000 + ",v1=00", "garbage", ""):
        response = api.client.post(
            "/webhooks/provider/", content=event.encode(), headers={"Stripe-Signature": header}
        )
        assert (response.status_code, response.json()) == (400, {"error": "invalid signature"}), header[:40]
    beyond_ascii = f"t={now},v1=".encode() + "é".encode("latin-1")
    response = api.client.post(
        "/webhooks/provider/", content=event.encode(), headers={"Stripe-Signature": beyond_ascii}
    )
    assert (response.status_code, response.json()) == (400, {"error": "invalid signature"})
    not_utf8 = b"\xff\xfe" + event.encode()
    header = f"t={int(time.time())},v1=00"
    response = api.client.post("/webhooks/provider/", content=not_utf8, headers={"Stripe-Signature": header})
    assert (response.status_code, response.json()) == (400, {"error": "invalid signature"})
    detail = api.client.get(f"{BOOKINGS}{created['id']}/", headers=auth("user-token-anna")).json()
    assert detail["status"] == "pending"
