"""The payment path over HTTP on both databases, one request at a time, with a provider the test controls.

Races across processes are in ``test_http_payment_races``; this module covers what a single request
decides: refunds that the provider refuses at first, intents the provider cancelled, provider outages,
payments that reach lapsed holds, mismatched events and their metric, and refusal messages.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from prometheus_client import REGISTRY

from adapters.payments import SandboxGateway
from booking_core.errors import InvalidTransition
from booking_core.memory import InMemoryPaymentGateway
from booking_core.usecases import operator
from entrypoints.bootstrap import Services
from entrypoints.worker import run_once
from tests.support.http_fixtures import (
    ANNA,
    BEN,
    BOOKINGS,
    PARTNER,
    Api,
    auth,
    book,
    clone_postgres,
    database_url,
    post_event,
    postgres_template,
    sqlite_template,
    start,
)
from tests.support.ledger import assert_consistent, read

__all__ = ["clone_postgres", "database_url", "postgres_template", "sqlite_template"]

MORNING = ("2026-06-02T10:00:00+02:00", "2026-06-02T11:00:00+02:00")


@pytest.fixture
def provider() -> InMemoryPaymentGateway:
    return InMemoryPaymentGateway()


@pytest.fixture
def app(database_url: str, provider: InMemoryPaymentGateway) -> Iterator[Api]:
    """The app with a payment provider the test can break, cancel intents of, and read."""

    def with_provider(services: Services) -> Services:
        # the webhook's deliveries are read as the sandbox reads them (Stripe's format)
        reader = SandboxGateway(
            secret_key="sk_test",
            publishable_key=provider.publishable_key,
            webhook_secret=services.settings.stripe_webhook_secret,
            currencies=services.deps.currencies,
        )
        provider.deliveries = reader.read_delivery
        return replace(services, deps=replace(services.deps, payments=provider))

    yield from start(database_url, customize=with_provider)


def intent(api: Api, booking_id: str, token: str = ANNA) -> Any:
    return api.client.post(f"{BOOKINGS}{booking_id}/create-payment-intent/", headers=auth(token))


def event(api: Api, kind: str, booking_id: str, intent_id: str, **changes: Any) -> Any:
    obj: dict[str, Any] = {"amount": 2000, "currency": "eur", "metadata": {"booking_id": booking_id}}
    if kind == "charge.refunded":
        obj |= {"id": f"ch_{secrets.token_hex(4)}", "payment_intent": intent_id, "refunded": True}
    else:
        obj["id"] = intent_id
    answer = post_event(
        api, {"id": f"evt_{secrets.token_hex(8)}", "type": kind, "data": {"object": obj | changes}}
    )
    assert answer.status_code == 200, answer.text
    return answer


def detail(api: Api, booking_id: str, token: str = ANNA) -> Any:
    return api.client.get(f"{BOOKINGS}{booking_id}/", headers=auth(token)).json()


def templates(api: Api, booking_id: str) -> list[str]:
    story = read(api.services.settings.database_url, [booking_id])[booking_id]
    return sorted(story.notices.elements())


def test_a_refund_the_provider_refuses_is_sent_again_by_the_worker(
    app: Api, provider: InMemoryPaymentGateway
) -> None:
    created = book(app, ANNA, "Court 1", *MORNING)
    pi = intent(app, created["id"]).json()["payment_intent_id"]
    event(app, "payment_intent.succeeded", created["id"], pi)
    provider.fail_refunds = True
    cancelled = app.client.post(f"{BOOKINGS}{created['id']}/cancel/", headers=auth(ANNA))
    assert cancelled.status_code == 200
    assert cancelled.json()["status"] == "cancelled"
    assert (provider.refund_calls, provider.refunds) == (1, [])
    assert detail(app, created["id"])["payment"]["status"] == "refund_pending"
    assert run_once(app.services).refunds == 0  # not due yet: the next attempt waits a little
    provider.fail_refunds = False
    app.clock.advance(minutes=1)
    assert run_once(app.services).refunds == 1
    assert run_once(app.services).refunds == 0  # accepted: never sent again
    assert provider.refunds == [pi]
    event(app, "charge.refunded", created["id"], pi)
    shown = detail(app, created["id"])
    assert (shown["status"], shown["payment"]["status"]) == ("refunded", "refunded")
    assert templates(app, created["id"]) == [
        "booking_cancelled_user",
        "booking_paid_operator",
        "booking_paid_user",
        "booking_refunded_user",
    ]
    assert_consistent(read(app.services.settings.database_url))


def test_provider_failure_answers_500_changes_nothing_and_a_retry_works(
    app: Api, provider: InMemoryPaymentGateway
) -> None:
    created = book(app, ANNA, "Court 1", *MORNING)
    provider.fail = True
    failed = intent(app, created["id"])
    assert failed.status_code == 500
    assert set(failed.json()) == {"error"}
    assert detail(app, created["id"])["payment"] is None
    assert detail(app, created["id"])["status"] == "pending"
    provider.fail = False
    assert intent(app, created["id"]).status_code == 200


def test_an_intent_the_provider_cancelled_is_replaced(app: Api, provider: InMemoryPaymentGateway) -> None:
    created = book(app, ANNA, "Court 1", *MORNING)
    first = intent(app, created["id"]).json()["payment_intent_id"]
    assert intent(app, created["id"]).json()["payment_intent_id"] == first  # still open: reused
    provider.cancel_intent(first)
    second = intent(app, created["id"]).json()["payment_intent_id"]
    assert second != first
    assert detail(app, created["id"])["payment"]["payment_intent_id"] == second
    story = read(app.services.settings.database_url, [created["id"]])[created["id"]]
    assert sorted(story.payments.values()) == ["canceled", "requires_payment"]


def test_a_late_payment_books_a_lapsed_hold_whose_time_is_free_and_refunds_a_taken_one(
    app: Api, provider: InMemoryPaymentGateway
) -> None:
    free = book(app, ANNA, "Court 1", "2026-06-02T13:00:00+02:00", "2026-06-02T14:00:00+02:00")
    taken = book(app, ANNA, "Court 1", *MORNING)
    intents = {b["id"]: intent(app, b["id"]).json()["payment_intent_id"] for b in (free, taken)}
    app.clock.advance(minutes=16)
    book(app, BEN, "Court 1", *MORNING)  # the lapsed hold's time goes to Ben
    for booking_id, pi in intents.items():
        event(app, "payment_intent.succeeded", booking_id, pi)
    assert (detail(app, free["id"])["status"], detail(app, free["id"])["cancelled_at"]) == ("paid", None)
    shown = detail(app, taken["id"])
    assert (shown["status"], shown["payment"]["status"]) == ("cancelled", "refund_pending")
    assert provider.refunds == [intents[taken["id"]]]
    assert_consistent(read(app.services.settings.database_url))


def test_cancelling_a_lapsed_hold_is_refused_and_its_late_payment_refunded(
    app: Api, provider: InMemoryPaymentGateway
) -> None:
    created = book(app, ANNA, "Court 1", *MORNING)
    pi = intent(app, created["id"]).json()["payment_intent_id"]
    app.clock.advance(minutes=16)
    refused = app.client.post(f"{BOOKINGS}{created['id']}/cancel/", headers=auth(ANNA))
    assert refused.status_code == 400
    assert "status 'cancelled'" in refused.json()["error"]
    event(app, "payment_intent.succeeded", created["id"], pi)
    assert detail(app, created["id"])["payment"]["status"] == "refund_pending"
    assert provider.refunds == [pi]


def test_mismatched_events_change_nothing_and_are_counted(app: Api) -> None:
    created = book(app, ANNA, "Court 1", *MORNING)
    pi = intent(app, created["id"]).json()["payment_intent_id"]
    labels = {"type": "payment_intent.succeeded", "outcome": "mismatch"}
    before = REGISTRY.get_sample_value("booking_payment_events_total", labels) or 0
    event(app, "payment_intent.succeeded", created["id"], pi, currency="usd")
    event(app, "payment_intent.succeeded", created["id"], pi, amount=1)
    event(app, "payment_intent.succeeded", created["id"], "pi_not_this_bookings")
    assert REGISTRY.get_sample_value("booking_payment_events_total", labels) == before + 3
    assert detail(app, created["id"])["status"] == "pending"
    metrics = app.client.get("/metrics").text
    assert 'booking_payment_events_total{outcome="mismatch",type="payment_intent.succeeded"}' in metrics


def test_a_cancel_inside_the_deadline_names_the_deadline(app: Api) -> None:
    # Padel A: cancellation closes 24 hours before the start (New York time)
    created = book(app, ANNA, "Padel A", "2026-06-01T10:00:00-04:00", "2026-06-01T11:00:00-04:00")
    refused = app.client.post(f"{BOOKINGS}{created['id']}/cancel/", headers=auth(ANNA))
    assert refused.status_code == 400
    assert refused.json() == {
        "error": "This booking can no longer be cancelled: cancellation closed at "
        "2026-05-31T10:00:00-04:00 (24 hours before its start)."
    }


def test_operator_commands_follow_the_state_machine(app: Api) -> None:
    created = book(app, ANNA, "Court 1", *MORNING)
    deps = app.services.deps
    assert operator.confirm_booking(deps, created["reference_code"]).status.value == "confirmed"
    with pytest.raises(InvalidTransition, match="Cannot confirm a booking with status 'confirmed'"):
        operator.confirm_booking(deps, created["reference_code"])
    with pytest.raises(InvalidTransition, match="before it starts"):
        operator.mark_no_show(deps, created["reference_code"])
    app.clock.advance(days=1, hours=2, minutes=30)  # 10:30 on the day: started
    assert operator.mark_no_show(deps, created["reference_code"]).status.value == "no_show"
    app.clock.advance(hours=1)
    assert operator.complete_past_bookings(deps) == 0


def test_a_late_payment_expires_the_lapsed_hold_in_its_way_and_books_its_time(app: Api) -> None:
    first = book(app, ANNA, "Court 1", *MORNING)
    pi = intent(app, first["id"]).json()["payment_intent_id"]
    app.clock.advance(minutes=16)
    second = book(app, BEN, "Court 1", *MORNING)  # Anna's hold lapsed: Ben takes the time ...
    app.clock.advance(minutes=16)  # ... and lets his hold lapse too, before anyone sweeps it
    event(app, "payment_intent.succeeded", first["id"], pi)
    assert detail(app, first["id"])["status"] == "paid"
    assert detail(app, second["id"], BEN)["status"] == "cancelled"
    assert_consistent(read(app.services.settings.database_url))


EARLY = ("2026-06-02T08:00:00+02:00", "2026-06-02T09:00:00+02:00")


def _lapsed_hold_then_neighbour(app: Api, neighbour: tuple[str, str]) -> tuple[str, str]:
    """Anna's hold of 08:00-09:00 with an open intent lapses; Ben books ``neighbour`` meanwhile."""
    lapsed = book(app, ANNA, "Court 1", *EARLY)
    pi = intent(app, lapsed["id"]).json()["payment_intent_id"]
    app.clock.advance(minutes=16)
    book(app, BEN, "Court 1", *neighbour)
    return lapsed["id"], pi


def test_a_late_payment_whose_time_would_now_leave_a_forbidden_gap_is_refunded(
    app: Api, provider: InMemoryPaymentGateway
) -> None:
    # Ben's 09:30-10:30 would leave 09:00-09:30: shorter than Court 1's minimum booking of 60 minutes
    booking_id, pi = _lapsed_hold_then_neighbour(
        app, ("2026-06-02T09:30:00+02:00", "2026-06-02T10:30:00+02:00")
    )
    fresh = book(app, BEN, "Court 1", *EARLY, expect=400)  # a new booking of that time is refused ...
    assert fresh == {
        "non_field_errors": ["This booking would leave a 30-minute gap; the minimum booking is 60 minutes."]
    }
    event(app, "payment_intent.succeeded", booking_id, pi)  # ... and so is the late payment: 200
    shown = detail(app, booking_id)
    assert (shown["status"], shown["payment"]["status"]) == ("cancelled", "refund_pending")
    assert (provider.refund_calls, provider.refunds) == (1, [pi])
    assert_consistent(read(app.services.settings.database_url))


def test_a_late_payment_whose_time_leaves_no_forbidden_gap_is_booked(
    app: Api, provider: InMemoryPaymentGateway
) -> None:
    # Ben's 10:00-11:00 leaves 09:00-10:00: a whole minimum booking
    booking_id, pi = _lapsed_hold_then_neighbour(
        app, ("2026-06-02T10:00:00+02:00", "2026-06-02T11:00:00+02:00")
    )
    event(app, "payment_intent.succeeded", booking_id, pi)
    shown = detail(app, booking_id)
    assert (shown["status"], shown["payment"]["status"]) == ("paid", "succeeded")
    assert provider.refund_calls == 0


# --------------------------------------------------------------------------- refunds and commissions

CLIENT_COMMISSIONS = "/api/v1/client/commissions/?month=2026-06"
AS_U1 = {"X-User-External-ID": "u1"}


def client_booking_paid(app: Api) -> tuple[str, str]:
    """A booking of Court 1 (20.00) made and paid through the partner (10 percent): its id and intent."""
    registered = app.client.post(
        "/api/v1/client/users/register/",
        json={"external_id": "u1", "email": "u1@example.com"},
        headers=auth(PARTNER),
    )
    assert registered.status_code == 201, registered.text
    created = book(app, PARTNER, "Court 1", *MORNING, headers=AS_U1)
    answer = app.client.post(
        f"{BOOKINGS}{created['id']}/create-payment-intent/", headers=auth(PARTNER, **AS_U1)
    )
    assert answer.status_code == 200, answer.text
    pi = answer.json()["payment_intent_id"]
    event(app, "payment_intent.succeeded", created["id"], pi)
    return created["id"], pi


def refund_reported(
    app: Api, booking_id: str, pi: str, refunded_minor: int, event_id: str | None = None
) -> None:
    """A ``charge.refunded`` naming only the running total refunded, without the ``refunded`` flag."""
    charge = {
        "id": "ch_1",
        "payment_intent": pi,
        "amount": 2000,
        "amount_refunded": refunded_minor,
        "currency": "eur",
        "metadata": {"booking_id": booking_id},
    }
    body = {
        "id": event_id or f"evt_{secrets.token_hex(8)}",
        "type": "charge.refunded",
        "data": {"object": charge},
    }
    answer = post_event(app, body)
    assert answer.status_code == 200, answer.text


def commissions(app: Api) -> list[tuple[str, str, str]]:
    answer = app.client.get(CLIENT_COMMISSIONS, headers=auth(PARTNER))
    assert answer.status_code == 200, answer.text
    return [(r["amount"], r["base_amount"], r["status"]) for r in answer.json()]


def test_a_charge_refunded_in_part_keeps_the_booking_paid_and_reduces_its_open_commission(app: Api) -> None:
    """Finding 10: 1.00 of 20.00 refunded without the ``refunded`` flag was taken as a full refund."""
    booking_id, pi = client_booking_paid(app)

    refund_reported(app, booking_id, pi, 100, event_id="evt_part_1")
    refund_reported(app, booking_id, pi, 100, event_id="evt_part_1")  # delivered twice

    shown = app.client.get(f"{BOOKINGS}{booking_id}/", headers=auth(PARTNER, **AS_U1)).json()
    assert (shown["status"], shown["payment"]["status"]) == ("paid", "succeeded")
    assert shown["payment"]["refunded_amount"] == "1.00"
    assert commissions(app) == [("1.90", "19.00", "open")]
    refund_reported(app, booking_id, pi, 2000)  # then the rest
    shown = app.client.get(f"{BOOKINGS}{booking_id}/", headers=auth(PARTNER, **AS_U1)).json()
    assert (shown["status"], shown["payment"]["refunded_amount"]) == ("refunded", "20.00")
    assert commissions(app) == [("1.90", "19.00", "reversed")]
    assert_consistent(read(app.services.settings.database_url))


def test_a_refund_after_a_payout_adds_a_negative_open_record(app: Api) -> None:
    """Finding 1: a refund after a payout left the commission ``paid_out`` with nothing to correct it."""
    booking_id, pi = client_booking_paid(app)
    with app.services.deps.uow() as uow:  # the month's payout paid it
        [record] = uow.commissions.of_booking(booking_id)
        uow.commissions.save(record.pay_out())
        uow.commit()
    app.clock.advance(minutes=1)

    refund_reported(app, booking_id, pi, 100)
    assert commissions(app) == [("2.00", "20.00", "paid_out"), ("-0.10", "-1.00", "open")]
    refund_reported(app, booking_id, pi, 100)  # the same total again: nothing more
    assert commissions(app) == [("2.00", "20.00", "paid_out"), ("-0.10", "-1.00", "open")]
    event(app, "charge.refunded", booking_id, pi)  # the rest, in full

    assert commissions(app) == [("2.00", "20.00", "paid_out"), ("-2.00", "-20.00", "open")]
    shown = app.client.get(f"{BOOKINGS}{booking_id}/", headers=auth(PARTNER, **AS_U1)).json()
    assert shown["status"] == "refunded"
    assert_consistent(read(app.services.settings.database_url))


def test_a_refund_for_a_booking_never_paid_sets_no_paid_at_and_sends_no_paid_mail(app: Api) -> None:
    """Finding 10: such a refund set ``paid_at`` and queued both paid mails."""
    created = book(app, ANNA, "Court 1", *MORNING)
    pi = intent(app, created["id"]).json()["payment_intent_id"]

    event(app, "charge.refunded", created["id"], pi)

    shown = detail(app, created["id"])
    assert (shown["status"], shown["paid_at"], shown["payment"]["paid_at"]) == ("refunded", None, None)
    assert templates(app, created["id"]) == ["booking_refunded_user"]
    event(app, "payment_intent.succeeded", created["id"], pi)  # the success it refunded, late:
    shown = detail(app, created["id"])  # now it was paid, and ends as the two in their true order
    assert (shown["status"], shown["paid_at"] is not None) == ("refunded", True)
    assert sorted(templates(app, created["id"])) == [
        "booking_paid_operator",
        "booking_paid_user",
        "booking_refunded_user",
    ]
    assert_consistent(read(app.services.settings.database_url))
