"""Direct users' bookings over HTTP: create, read, pay, cancel, idempotency and ownership."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from typing import Any

import pytest

from booking_core.errors import PaymentProviderError
from booking_core.ports import ProviderIntent
from entrypoints.bootstrap import Services
from tests.support.http_fixtures import (
    ANNA,
    BEN,
    BOOKINGS,
    Api,
    api,
    auth,
    book,
    clone_postgres,
    database_url,
    loaded_sqlite_url,
    pay,
    post_event,
    postgres_template,
    sqlite_template,
    start,
)

__all__ = [
    "api",
    "clone_postgres",
    "database_url",
    "loaded_sqlite_url",
    "postgres_template",
    "sqlite_template",
]

PERMISSION = {"detail": "You do not have permission to perform this action."}
ITEM_FIELDS = {
    "id",
    "reference_code",
    "resource",
    "resource_name",
    "venue_name",
    "venue_address",
    "start_datetime",
    "end_datetime",
    "duration_minutes",
    "participant_count",
    "price_per_unit",
    "pricing_unit",
    "total_price",
    "currency",
    "status",
    "can_cancel",
    "is_upcoming",
    "notes",
    "confirmed_at",
    "paid_at",
    "cancelled_at",
    "created_at",
    "updated_at",
}
DETAIL_FIELDS = ITEM_FIELDS | {"payment", "client"}
MORNING = ("2026-06-03T10:00:00+02:00", "2026-06-03T11:00:00+02:00")


def _utc(value: str) -> bool:
    offset = datetime.fromisoformat(value).utcoffset()
    return offset is not None and offset.total_seconds() == 0


def test_create_answers_201_with_a_pending_booking(api: Api) -> None:
    created = book(api, ANNA, "Court 1", *MORNING, participant_count=2, notes="bring balls")
    assert set(created) == ITEM_FIELDS
    assert created == created | {
        "resource": api.resources["Court 1"],
        "resource_name": "Court 1",
        "venue_name": "Center Court Club",
        "venue_address": "Hauptstrasse 1, 10115 Berlin",
        "start_datetime": "2026-06-03T10:00:00+02:00",
        "end_datetime": "2026-06-03T11:00:00+02:00",
        "duration_minutes": 60,
        "participant_count": 2,
        "price_per_unit": "20.00",
        "pricing_unit": "hour",
        "total_price": "20.00",
        "currency": "EUR",
        "status": "pending",
        "can_cancel": True,
        "is_upcoming": True,
        "notes": "bring balls",
        "confirmed_at": None,
        "paid_at": None,
        "cancelled_at": None,
    }
    assert len(created["reference_code"]) == 8
    assert _utc(created["created_at"])
    assert _utc(created["updated_at"])


def test_datetimes_are_given_in_the_venue_offset(api: Api) -> None:
    berlin = book(api, ANNA, "Court 1", "2026-06-03T08:00:00Z", "2026-06-03T09:00:00Z")
    assert (berlin["start_datetime"], berlin["end_datetime"]) == (
        "2026-06-03T10:00:00+02:00",
        "2026-06-03T11:00:00+02:00",
    )
    new_york = book(api, ANNA, "Padel A", "2026-06-03T14:00:00+02:00", "2026-06-03T15:00:00+02:00")
    assert new_york["start_datetime"] == "2026-06-03T08:00:00-04:00"
    assert new_york["currency"] == "USD"


def test_datetimes_without_seconds_are_accepted(api: Api) -> None:
    created = book(api, ANNA, "Court 1", "2026-06-03T10:00+02:00", "2026-06-03T11:00+02:00")
    assert created["start_datetime"] == "2026-06-03T10:00:00+02:00"


def test_participant_count_defaults_to_one(api: Api) -> None:
    assert book(api, ANNA, "Court 1", *MORNING)["participant_count"] == 1


def test_list_upcoming_and_detail(api: Api) -> None:
    mine = book(api, ANNA, "Court 1", *MORNING)
    book(api, BEN, "Court 2", *MORNING)
    listed = api.client.get(BOOKINGS, headers=auth(ANNA))
    assert listed.status_code == 200
    assert [b["id"] for b in listed.json()] == [mine["id"]]
    assert set(listed.json()[0]) == ITEM_FIELDS
    upcoming = api.client.get(f"{BOOKINGS}upcoming/", headers=auth(ANNA))
    assert upcoming.status_code == 200
    assert [b["id"] for b in upcoming.json()] == [mine["id"]]
    detail = api.client.get(f"{BOOKINGS}{mine['id']}/", headers=auth(ANNA))
    assert detail.status_code == 200
    body = detail.json()
    assert set(body) == DETAIL_FIELDS
    assert body["resource"] == {
        "id": api.resources["Court 1"],
        "name": "Court 1",
        "venue_name": "Center Court Club",
        "venue_slug": "center-court",
    }
    assert body["payment"] is None
    assert body["client"] is None


def test_upcoming_leaves_out_past_and_cancelled_bookings(api: Api) -> None:
    soon = book(api, ANNA, "Court 1", "2026-06-01T10:00:00+02:00", "2026-06-01T11:00:00+02:00")
    later = book(api, ANNA, "Court 1", "2026-06-04T10:00:00+02:00", "2026-06-04T11:00:00+02:00")
    dropped = book(api, ANNA, "Court 1", "2026-06-05T14:00:00+02:00", "2026-06-05T15:00:00+02:00")
    pay(api, ANNA, soon["id"])
    pay(api, ANNA, later["id"])  # an unpaid hold would lapse within the four hours below
    assert api.client.post(f"{BOOKINGS}{dropped['id']}/cancel/", headers=auth(ANNA)).status_code == 200
    api.clock.advance(hours=4)  # 12:00 in Berlin: the first booking has passed
    upcoming = api.client.get(f"{BOOKINGS}upcoming/", headers=auth(ANNA)).json()
    assert [b["id"] for b in upcoming] == [later["id"]]
    everything = api.client.get(BOOKINGS, headers=auth(ANNA)).json()
    assert {b["id"] for b in everything} == {soon["id"], later["id"], dropped["id"]}
    past = next(b for b in everything if b["id"] == soon["id"])
    assert (past["is_upcoming"], past["can_cancel"]) == (False, False)


def test_another_users_booking_reads_as_404_and_cannot_be_cancelled_or_paid(api: Api) -> None:
    annas = book(api, ANNA, "Court 1", *MORNING)
    detail = api.client.get(f"{BOOKINGS}{annas['id']}/", headers=auth(BEN))
    assert detail.status_code == 404
    assert detail.json() == {"detail": "Not found."}
    cancel = api.client.post(f"{BOOKINGS}{annas['id']}/cancel/", headers=auth(BEN))
    assert cancel.status_code == 403
    assert cancel.json() == PERMISSION
    intent = api.client.post(f"{BOOKINGS}{annas['id']}/create-payment-intent/", headers=auth(BEN))
    assert intent.status_code == 403
    assert intent.json() == PERMISSION
    assert api.client.get(BOOKINGS, headers=auth(BEN)).json() == []


def test_unknown_booking_is_404(api: Api) -> None:
    unknown = "00000000-0000-4000-8000-000000000000"
    assert api.client.get(f"{BOOKINGS}{unknown}/", headers=auth(ANNA)).status_code == 404
    assert api.client.post(f"{BOOKINGS}{unknown}/cancel/", headers=auth(ANNA)).status_code == 404


@pytest.mark.parametrize(
    ("start", "end", "field", "fragment"),
    [
        ("2026-06-03T10:15:00+02:00", "2026-06-03T11:15:00+02:00", "non_field_errors", "align"),
        ("2026-06-03T08:30:00+02:00", "2026-06-03T09:30:00+02:00", "non_field_errors", "30-minute gap"),
        ("2026-06-01T06:00:00+02:00", "2026-06-01T07:00:00+02:00", None, ""),
        ("2026-06-03T10:00:00+02:00", "2026-06-03T10:30:00+02:00", None, ""),
        ("2026-06-03T10:00:00+02:00", "2026-06-03T14:00:00+02:00", None, ""),
        ("2026-06-03T22:00:00+02:00", "2026-06-03T23:00:00+02:00", None, ""),
        ("2026-06-05T09:00:00+02:00", "2026-06-05T10:00:00+02:00", None, ""),
    ],
)
def test_booking_rules_are_400(api: Api, start: str, end: str, field: str | None, fragment: str) -> None:
    response = api.client.post(
        BOOKINGS,
        json={"resource": api.resources["Court 1"], "start_datetime": start, "end_datetime": end},
        headers=auth(ANNA),
    )
    assert response.status_code == 400, response.text
    body = response.json()
    assert all(isinstance(v, list) and all(isinstance(m, str) for m in v) for v in body.values())
    if field is not None:
        assert list(body) == [field]
        assert fragment in body[field][0]


def test_gap_message_names_gap_and_minimum(api: Api) -> None:
    book(api, ANNA, "Court 1", "2026-06-03T10:00:00+02:00", "2026-06-03T11:00:00+02:00")
    response = api.client.post(
        BOOKINGS,
        json={
            "resource": api.resources["Court 1"],
            "start_datetime": "2026-06-03T11:30:00+02:00",
            "end_datetime": "2026-06-03T12:30:00+02:00",
        },
        headers=auth(ANNA),
    )
    assert response.status_code == 400
    assert response.json() == {
        "non_field_errors": ["This booking would leave a 30-minute gap; the minimum booking is 60 minutes."]
    }


def test_taken_slot_is_non_field_error_for_users(api: Api) -> None:
    book(api, ANNA, "Court 2", *MORNING)
    response = api.client.post(
        BOOKINGS,
        json={"resource": api.resources["Court 2"], "start_datetime": MORNING[0], "end_datetime": MORNING[1]},
        headers=auth(BEN),
    )
    assert response.status_code == 400
    assert list(response.json()) == ["non_field_errors"]


def test_adjacent_bookings_are_valid(api: Api) -> None:
    book(api, ANNA, "Court 1", "2026-06-03T10:00:00+02:00", "2026-06-03T11:00:00+02:00")
    book(api, BEN, "Court 1", "2026-06-03T11:00:00+02:00", "2026-06-03T12:00:00+02:00")


def test_too_many_participants_is_a_field_error(api: Api) -> None:
    response = api.client.post(
        BOOKINGS,
        json={
            "resource": api.resources["Court 1"],
            "start_datetime": MORNING[0],
            "end_datetime": MORNING[1],
            "participant_count": 9,
        },
        headers=auth(ANNA),
    )
    assert response.status_code == 400
    assert list(response.json()) == ["participant_count"]


@pytest.mark.parametrize("name", ["Old Court", None])
def test_booking_an_unknown_or_inactive_resource_is_404(api: Api, name: str | None) -> None:
    response = api.client.post(
        BOOKINGS,
        json={
            "resource": api.resources[name] if name else 999_999,
            "start_datetime": MORNING[0],
            "end_datetime": MORNING[1],
        },
        headers=auth(ANNA),
    )
    assert response.status_code == 404


def test_resource_must_be_named_exactly_once(api: Api) -> None:
    neither = api.client.post(
        BOOKINGS, json={"start_datetime": MORNING[0], "end_datetime": MORNING[1]}, headers=auth(ANNA)
    )
    assert neither.status_code == 400
    both = api.client.post(
        BOOKINGS,
        json={
            "resource": api.resources["Court 1"],
            "resource_external_id": "x",
            "start_datetime": MORNING[0],
            "end_datetime": MORNING[1],
        },
        headers=auth(ANNA),
    )
    assert both.status_code == 400


def test_cancel_answers_with_the_short_body(api: Api) -> None:
    created = book(api, ANNA, "Court 1", *MORNING)
    response = api.client.post(
        f"{BOOKINGS}{created['id']}/cancel/", json={"reason": "weather", "notes": "rain"}, headers=auth(ANNA)
    )
    assert response.status_code == 200
    assert response.json() == {
        "id": created["id"],
        "reference_code": created["reference_code"],
        "status": "cancelled",
        "cancelled_at": "2026-06-01T08:00:00+02:00",
    }
    detail = api.client.get(f"{BOOKINGS}{created['id']}/", headers=auth(ANNA)).json()
    assert (detail["status"], detail["can_cancel"]) == ("cancelled", False)
    again = api.client.post(f"{BOOKINGS}{created['id']}/cancel/", headers=auth(ANNA))
    assert again.status_code == 400
    assert "cancelled" in again.json()["error"]
    # the time is free again
    book(api, BEN, "Court 1", *MORNING)


def test_cancel_with_an_unknown_reason_is_a_field_error(api: Api) -> None:
    created = book(api, ANNA, "Court 1", *MORNING)
    response = api.client.post(
        f"{BOOKINGS}{created['id']}/cancel/", json={"reason": "bored"}, headers=auth(ANNA)
    )
    assert response.status_code == 400
    assert list(response.json()) == ["reason"]


def test_cancel_inside_the_cancellation_deadline_is_400(api: Api) -> None:
    created = book(api, ANNA, "Padel A", "2026-06-01T12:00:00-04:00", "2026-06-01T13:00:00-04:00")
    assert created["can_cancel"] is False
    response = api.client.post(f"{BOOKINGS}{created['id']}/cancel/", headers=auth(ANNA))
    assert response.status_code == 400
    assert "error" in response.json()


def test_payment_intent_fields_and_reuse(api: Api) -> None:
    created = book(api, ANNA, "Court 1", *MORNING)
    path = f"{BOOKINGS}{created['id']}/create-payment-intent/"
    response = api.client.post(path, headers=auth(ANNA))
    assert response.status_code == 200
    intent = response.json()
    assert set(intent) == {"client_secret", "payment_intent_id", "amount", "currency", "publishable_key"}
    assert intent["amount"] == "20.00"
    assert intent["currency"] == "EUR"
    assert intent["publishable_key"].startswith("pk_")
    assert (
        api.client.post(path, headers=auth(ANNA)).json()["payment_intent_id"] == intent["payment_intent_id"]
    )
    detail = api.client.get(f"{BOOKINGS}{created['id']}/", headers=auth(ANNA)).json()
    assert detail["payment"] == {
        "provider": "sandbox",
        "payment_intent_id": intent["payment_intent_id"],
        "status": "requires_payment",
        "amount": "20.00",
        "currency": "EUR",
        "paid_at": None,
        "refunded_at": None,
        "refunded_amount": "0.00",
    }


def test_payment_intent_names_the_connected_account(api: Api) -> None:
    created = book(api, ANNA, "Padel A", "2026-06-03T08:00:00-04:00", "2026-06-03T09:00:00-04:00")
    intent = api.client.post(f"{BOOKINGS}{created['id']}/create-payment-intent/", headers=auth(ANNA)).json()
    assert intent["provider_account_id"] == "acct_harbour"
    assert (intent["amount"], intent["currency"]) == ("20.00", "USD")


def test_paid_booking_payment_intent_is_400_error(api: Api) -> None:
    created = book(api, ANNA, "Court 1", *MORNING)
    pay(api, ANNA, created["id"])
    detail = api.client.get(f"{BOOKINGS}{created['id']}/", headers=auth(ANNA)).json()
    assert detail["status"] == "paid"
    assert detail["paid_at"] == "2026-06-01T08:00:00+02:00"
    assert detail["payment"]["status"] == "succeeded"
    response = api.client.post(f"{BOOKINGS}{created['id']}/create-payment-intent/", headers=auth(ANNA))
    assert response.status_code == 400
    assert set(response.json()) == {"error"}


def test_payment_intent_for_a_cancelled_booking_is_400(api: Api) -> None:
    created = book(api, ANNA, "Court 1", *MORNING)
    api.client.post(f"{BOOKINGS}{created['id']}/cancel/", headers=auth(ANNA))
    response = api.client.post(f"{BOOKINGS}{created['id']}/create-payment-intent/", headers=auth(ANNA))
    assert response.status_code == 400
    assert set(response.json()) == {"error"}


class _FailingGateway:
    provider_name = "sandbox"
    publishable_key = "pk_test_sandbox"

    def create_intent(self, **_: Any) -> ProviderIntent:
        raise PaymentProviderError("The payment provider could not be reached.")

    def retrieve_intent(self, intent_id: str) -> ProviderIntent:
        raise PaymentProviderError("down")

    def refund(self, intent_id: str, *, idempotency_key: str) -> str:
        raise PaymentProviderError("down")


@pytest.fixture
def failing_provider(loaded_sqlite_url: str) -> Iterator[Api]:
    def broken(services: Services) -> Services:
        return replace(services, deps=replace(services.deps, payments=_FailingGateway()))

    yield from start(loaded_sqlite_url, customize=broken)


def test_provider_failure_is_500(failing_provider: Api) -> None:
    created = book(failing_provider, ANNA, "Court 1", *MORNING)
    response = failing_provider.client.post(
        f"{BOOKINGS}{created['id']}/create-payment-intent/", headers=auth(ANNA)
    )
    assert response.status_code == 500
    assert set(response.json()) == {"error"}


def test_idempotency_key_replays_the_first_response(api: Api) -> None:
    body = {"resource": api.resources["Court 1"], "start_datetime": MORNING[0], "end_datetime": MORNING[1]}
    headers = {**auth(ANNA), "Idempotency-Key": "k-1"}
    first = api.client.post(BOOKINGS, json=body, headers=headers)
    assert first.status_code == 201
    again = api.client.post(BOOKINGS, json=dict(reversed(body.items())), headers=headers)
    assert again.status_code == 201
    assert again.json() == first.json()
    assert len(api.client.get(BOOKINGS, headers=auth(ANNA)).json()) == 1
    other = api.client.post(BOOKINGS, json={**body, "notes": "changed"}, headers=headers)
    assert other.status_code == 422
    assert set(other.json()) == {"error"}
    # keys belong to their caller: Ben's "k-1" is his own (and the slot is taken)
    bens = api.client.post(BOOKINGS, json=body, headers={**auth(BEN), "Idempotency-Key": "k-1"})
    assert bens.status_code == 400


def test_idempotency_key_on_payment_intent(api: Api) -> None:
    created = book(api, ANNA, "Court 1", *MORNING)
    path = f"{BOOKINGS}{created['id']}/create-payment-intent/"
    headers = {**auth(ANNA), "Idempotency-Key": "pay-1"}
    first = api.client.post(path, headers=headers)
    second = api.client.post(path, headers=headers)
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json()


def test_failed_request_is_not_remembered(api: Api) -> None:
    body = {"resource": api.resources["Court 1"], "start_datetime": MORNING[0], "end_datetime": MORNING[1]}
    book(api, BEN, "Court 1", *MORNING)
    headers = {**auth(ANNA), "Idempotency-Key": "k-2"}
    assert api.client.post(BOOKINGS, json=body, headers=headers).status_code == 400
    api.client.post(
        f"{BOOKINGS}{api.client.get(BOOKINGS, headers=auth(BEN)).json()[0]['id']}/cancel/", headers=auth(BEN)
    )
    assert api.client.post(BOOKINGS, json=body, headers=headers).status_code == 201


def test_expired_hold_frees_the_slot(api: Api) -> None:
    held = book(api, ANNA, "Court 2", *MORNING)
    api.clock.advance(minutes=16)
    book(api, BEN, "Court 2", *MORNING)
    detail = api.client.get(f"{BOOKINGS}{held['id']}/", headers=auth(ANNA)).json()
    assert detail["status"] == "cancelled"


def test_webhook_with_bad_or_stale_signature_is_400(api: Api) -> None:
    created = book(api, ANNA, "Court 1", *MORNING)
    event = {
        "id": "evt_1",
        "type": "payment_intent.succeeded",
        "data": {
            "object": {
                "id": "pi_x",
                "amount": 2000,
                "currency": "eur",
                "metadata": {"booking_id": created["id"]},
            }
        },
    }
    forged = api.client.post(
        "/webhooks/provider/", json=event, headers={"Stripe-Signature": "t=1,v1=deadbeef"}
    )
    assert forged.status_code == 400
    assert forged.json() == {"error": "invalid signature"}
    stale = post_event(api, event, at=datetime(2026, 5, 31, tzinfo=api.clock.now().tzinfo))
    assert stale.status_code == 400
    assert stale.json() == {"error": "invalid signature"}
    assert api.client.get(f"{BOOKINGS}{created['id']}/", headers=auth(ANNA)).json()["status"] == "pending"


def test_webhook_delivered_twice_changes_nothing_more(api: Api) -> None:
    created = book(api, ANNA, "Court 1", *MORNING)
    event = pay(api, ANNA, created["id"])
    assert post_event(api, event).status_code == 200
    detail = api.client.get(f"{BOOKINGS}{created['id']}/", headers=auth(ANNA)).json()
    assert detail["status"] == "paid"


def test_webhook_ignores_other_event_types(api: Api) -> None:
    response = post_event(api, {"id": "evt_other", "type": "customer.created", "data": {"object": {}}})
    assert response.status_code == 200
