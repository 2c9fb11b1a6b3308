"""A venue's cancel giving back part of a payment, with ``BOOKING_PAYMENT_PROVIDER=stripe`` on SQLite and
PostgreSQL: the real SDK sends Stripe's ``amount`` to the local fake Stripe exactly once, whether the
call is retried by the SDK, sent again by the worker or sent by two senders at once; Stripe's report of
that part ends the booking ``refunded``, the commission on what the venue keeps."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from booking_core.booking import CancellationReason
from booking_core.errors import InvalidTransition
from booking_core.memory import FixedClock
from booking_core.refund_choice import RefundChoice
from booking_core.usecases.deps import Deps
from booking_core.usecases.refunds import retry_refunds
from booking_core.usecases.venue_cancel import cancel_booking_for_venue
from tests.e2e.test_payment_flow_stripe import CLIENT, PADEL, USER, WEBHOOK_SECRET, deliver
from tests.support.fake_stripe import FakeStripe, fake_stripe
from tests.support.http_fixtures import (
    BOOKINGS,
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


@pytest.fixture
def fake() -> Iterator[FakeStripe]:
    with fake_stripe() as server:
        yield server


@pytest.fixture
def api(database_url: str, fake: FakeStripe, tmp_path: Path) -> Iterator[Api]:
    yield from start_on_fake_stripe(database_url, fake.url, tmp_path / "mail", webhook_secret=WEBHOOK_SECRET)


def paid_booking(api: Api, fake: FakeStripe) -> tuple[str, str]:
    """A booking of Harbour Padel (30.00 USD, a destination charge) made through the partner, paid."""
    registered = api.client.post(
        f"{CLIENT}/users/register/",
        json={"external_id": "player-7", "email": "pia@example.com", "first_name": "Pia", "language": "en"},
        headers=auth(PARTNER),
    )
    assert registered.status_code == 201, registered.text
    booking_id = book(api, PARTNER, "Padel A", *PADEL, headers=USER)["id"]
    answer = api.client.post(
        f"{BOOKINGS}{booking_id}/create-payment-intent/", headers={**auth(PARTNER), **USER}
    )
    assert answer.status_code == 200, answer.text
    intent_id = answer.json()["payment_intent_id"]
    assert deliver(api, "payment_intent.succeeded", fake.succeed(intent_id)).status_code == 200
    return booking_id, intent_id


def detail(api: Api, booking_id: str) -> dict[str, object]:
    found = api.client.get(f"{BOOKINGS}{booking_id}/", headers={**auth(PARTNER), **USER})
    assert found.status_code == 200, found.text
    return dict(found.json())


def later(deps: Deps, minutes: int) -> Deps:
    return replace(deps, clock=FixedClock(deps.clock.now() + timedelta(minutes=minutes)))


def test_part_of_a_payment_goes_to_stripe_once_however_often_it_is_sent(api: Api, fake: FakeStripe) -> None:
    booking_id, intent_id = paid_booking(api, fake)
    deps = api.services.deps
    fake.fail_next(500, times=2, path="/v1/refunds")  # the SDK's call and its one retry both fail

    done = cancel_booking_for_venue(
        deps,
        booking_id,
        reason=CancellationReason.WEATHER,
        notes="the courts are flooded",
        refund=RefundChoice.AMOUNT,
        amount=Decimal("12.50"),
    )

    assert (done.booking.status.value, done.refund_amount, done.currency) == (
        "cancelled",
        Decimal("12.50"),
        "USD",
    )
    assert fake.refunds == {}  # left to the worker
    senders = [threading.Thread(target=retry_refunds, args=(later(deps, 5),)) for _ in range(3)]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join()
    assert retry_refunds(later(deps, 120)) == 0  # accepted: never sent again

    sent = fake.posts("/v1/refunds")
    assert len(sent) == 3  # two failures, then the worker's attempt (the other senders found it taken)
    assert {(r.params["amount"], r.params["payment_intent"], r.params["reverse_transfer"]) for r in sent} == {
        ("1250", intent_id, "true")
    }
    assert len({r.idempotency_key for r in sent}) == 1
    [refund] = fake.refunds.values()
    assert (refund["amount"], fake.intents[intent_id]["amount_refunded"]) == (1250, 1250)
    assert detail(api, booking_id)["status"] == "cancelled"

    # Stripe reports that part back (twice, as it may): refunded, the commission on the 17.50 kept
    charge = {
        "id": "ch_fake_1",
        "object": "charge",
        "payment_intent": intent_id,
        "amount": 3000,
        "amount_refunded": 1250,
        "currency": "usd",
        "refunded": False,
        "metadata": {"booking_id": booking_id},
    }
    assert deliver(api, "charge.refunded", charge).status_code == 200
    assert deliver(api, "charge.refunded", charge).status_code == 200
    found = detail(api, booking_id)
    assert found["status"] == "refunded"
    assert found["payment"]["refunded_amount"] == "12.50"  # type: ignore[index]
    commissions = api.client.get(f"{CLIENT}/commissions/?month=2026-06", headers=auth(PARTNER)).json()
    assert [(c["status"], c["base_amount"]) for c in commissions] == [("open", "17.50")]
    assert len(fake.refunds) == 1


def test_a_venue_keeping_the_payment_sends_nothing(api: Api, fake: FakeStripe) -> None:
    booking_id, _ = paid_booking(api, fake)
    deps = api.services.deps
    kept = cancel_booking_for_venue(
        deps, booking_id, reason=CancellationReason.OTHER, refund=RefundChoice.NONE
    )
    assert (kept.refund_amount, kept.refunds) == (Decimal("0.00"), ())
    assert fake.posts("/v1/refunds") == []
    found = detail(api, booking_id)
    assert (found["status"], found["payment"]["status"]) == ("cancelled", "succeeded")  # type: ignore[index]
    commissions = api.client.get(f"{CLIENT}/commissions/?month=2026-06", headers=auth(PARTNER)).json()
    assert [c["status"] for c in commissions] == ["open"]  # the venue keeps the money, the client its share


def test_concurrent_venue_cancels_of_one_booking_one_wins_one_refund(api: Api, fake: FakeStripe) -> None:
    booking_id, intent_id = paid_booking(api, fake)
    deps = api.services.deps
    start, answers = threading.Barrier(4), []

    def cancel(amount: str) -> None:
        start.wait()
        try:
            done = cancel_booking_for_venue(
                deps,
                booking_id,
                reason=CancellationReason.OTHER,
                refund=RefundChoice.AMOUNT,
                amount=Decimal(amount),
            )
            answers.append(str(done.refund_amount))
        except InvalidTransition as refused:
            answers.append(refused.message)

    staff = [threading.Thread(target=cancel, args=(amount,)) for amount in ("5.00", "6.00", "7.00", "8.00")]
    for thread in staff:
        thread.start()
    for thread in staff:
        thread.join()
    won = [a for a in answers if not a.startswith("Cannot")]
    assert len(won) == 1, answers
    assert answers.count("Cannot cancel a booking with status 'cancelled'.") == 3
    [refund] = fake.posts("/v1/refunds")
    assert refund.params["amount"] == str(int(Decimal(won[0]) * 100))
    assert fake.intents[intent_id]["amount_refunded"] == int(Decimal(won[0]) * 100)
