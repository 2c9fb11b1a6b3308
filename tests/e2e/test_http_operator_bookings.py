"""Bookings made and changed by staff (CONTRACT 7.4, 7.9) over HTTP on SQLite and PostgreSQL.

The clock stands at Monday 2026-06-01 08:00 in Berlin; Court 1 has the gap rule (60 to 180 minutes,
30-minute steps, 08:00-22:00), Court 2 has not, Padel A is another venue's.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from typing import Any

import pytest

from booking_core.audit import AuditAction, AuditQuery
from booking_core.ports import BookingQuery
from booking_core.usecases import operator
from tests.support.http_fixtures import (
    ADMIN,
    ANNA,
    DESK,
    HARBOUR_MANAGER,
    MANAGER,
    OPERATOR,
    PARTNER,
    Api,
    auth,
    book,
    mailed,
    pay,
)

FORBIDDEN = {"detail": "You do not have permission to perform this action."}
SLOT_TAKEN = {"non_field_errors": ["The requested time slot is not available."]}
BOOKINGS = f"{OPERATOR}/bookings/"
TOMORROW_10 = ("2026-06-02T10:00:00+02:00", "2026-06-02T11:00:00+02:00")
PAST = {"start_datetime": "2026-06-01T07:00:00+02:00", "end_datetime": "2026-06-01T08:00:00+02:00"}
NEW_CUSTOMER = {"email": "Walk.In@Example.com", "first_name": "Wal", "last_name": "King", "language": "en"}


def _body(api: Api, resource: str = "Court 1", times: tuple[str, str] = TOMORROW_10, **extra: Any) -> Any:
    return {
        "resource": api.resources[resource],
        "start_datetime": times[0],
        "end_datetime": times[1],
        "customer": {"email": "anna@example.com"},
        **extra,
    }


def _staff_book(api: Api, token: str = DESK, *, expect: int | None = 201, **body: Any) -> Any:
    answer = api.client.post(BOOKINGS, json=_body(api, **body), headers=auth(token))
    if expect is not None:
        assert answer.status_code == expect, answer.text
    return answer.json()


def _act(api: Api, booking_id: str, action: str, token: str = DESK, body: Any = None) -> Any:
    return api.client.post(f"{BOOKINGS}{booking_id}/{action}/", json=body, headers=auth(token))


def _bookings(api: Api) -> int:
    with api.services.deps.read() as uow:
        return len(uow.bookings.list(_all_query(), limit=1000, offset=0))


def _all_query() -> Any:
    from booking_core.ports import BookingQuery

    return BookingQuery()


def _audit(api: Api, object_id: str) -> list[Any]:
    with api.services.deps.read() as uow:
        return uow.audit.list(AuditQuery(object_id=object_id), limit=100, offset=0)


# --------------------------------------------------------------------------- create


def test_desk_books_at_the_venue_confirmed_for_a_new_customer(api: Api) -> None:
    created = _staff_book(api, customer=NEW_CUSTOMER, notes="walk-in")
    assert created["status"] == "confirmed"
    assert created["source"] == "staff"
    assert created["payment_method"] == "at_venue"
    assert created["checked_in_at"] is None
    assert created["total_price"] == "20.00"
    assert created["customer"]["email"] == "walk.in@example.com"
    assert created["customer"]["name"] == "Wal King"
    with api.services.deps.read() as uow:
        user = uow.users.get_by_email("walk.in@example.com")
        assert user is not None
        assert user.password_hash is None
        assert user.email_confirmed
        assert user.language.value == "en"
    (entry,) = _audit(api, created["id"])
    assert entry.action is AuditAction.BOOKING_CREATE
    assert entry.actor.email == "desk@center-court.example"
    assert entry.venue_id == api.venues["center-court"]
    assert entry.details["payment"] == "at_venue"


def test_staff_book_at_short_notice_an_existing_customer_by_id(api: Api) -> None:
    with api.services.deps.read() as uow:
        anna = uow.users.get_by_email("anna@example.com")
    assert anna is not None
    soon = ("2026-06-01T08:30:00+02:00", "2026-06-01T09:30:00+02:00")
    created = _staff_book(api, resource="Court 2", times=soon, customer={"user_id": anna.id})
    assert created["customer"]["user_id"] == anna.id
    # the customer sees it as her own booking
    mine = api.client.get(f"/api/v1/bookings/{created['id']}/", headers=auth(ANNA))
    assert mine.status_code == 200


def test_an_online_staff_booking_is_a_hold_the_customer_pays(api: Api) -> None:
    created = _staff_book(api, payment="online")
    assert created["status"] == "pending"
    assert created["payment_method"] == "online"
    pay(api, ANNA, created["id"])
    paid = api.client.get(f"/api/v1/bookings/{created['id']}/", headers=auth(ANNA)).json()
    assert paid["status"] == "paid"


def test_a_staff_booking_never_overlaps_a_booking_or_closed_time(api: Api) -> None:
    book(api, ANNA, "Court 1", *TOMORROW_10)
    before = _bookings(api)
    taken = _staff_book(api, MANAGER, expect=400, override_rules=True)
    assert taken == SLOT_TAKEN
    closed = ("2026-06-05T09:00:00+02:00", "2026-06-05T10:00:00+02:00")  # Court 1's maintenance
    assert _staff_book(api, MANAGER, expect=400, times=closed, override_rules=True) == SLOT_TAKEN
    assert _bookings(api) == before


def test_override_rules_and_price_are_for_managers(api: Api) -> None:
    odd = ("2026-06-02T10:15:00+02:00", "2026-06-02T10:45:00+02:00")  # unaligned, too short
    assert _staff_book(api, DESK, expect=403, times=odd, override_rules=True) == FORBIDDEN
    assert _staff_book(api, DESK, expect=403, price="5.00") == FORBIDDEN
    refused = _staff_book(api, DESK, expect=400, times=odd)
    assert "non_field_errors" in refused
    assert _bookings(api) == 0
    overridden = _staff_book(api, MANAGER, times=odd, override_rules=True, price="7.50")
    assert (overridden["total_price"], overridden["start_datetime"]) == ("7.50", odd[0])
    late = ("2026-06-02T22:00:00+02:00", "2026-06-02T23:00:00+02:00")  # after closing
    assert "price" in _staff_book(api, ADMIN, expect=400, times=late, override_rules=True)
    assert _staff_book(api, ADMIN, times=late, override_rules=True, price="0")["total_price"] == "0.00"


def test_the_gap_rule_holds_for_staff_but_not_with_an_override(api: Api) -> None:
    gap = ("2026-06-02T08:30:00+02:00", "2026-06-02T09:30:00+02:00")  # leaves 30 minutes at 08:00
    refused = _staff_book(api, DESK, expect=400, times=gap)
    assert "gap" in refused["non_field_errors"][0]
    assert _staff_book(api, MANAGER, times=gap, override_rules=True)["status"] == "confirmed"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (
            {"start_datetime": "2026-06-01T07:00:00+02:00", "end_datetime": "2026-06-01T08:00:00+02:00"},
            "start_datetime",
        ),
        ({"start_datetime": "2026-06-02T10:00:00"}, "start_datetime"),
        ({"end_datetime": "2026-06-02T09:00:00+02:00"}, "end_datetime"),
        ({"participant_count": 9}, "participant_count"),
        ({"participant_count": "2"}, "participant_count"),
        ({"payment": "cash"}, "payment"),
        ({"price": "1.234", "override_rules": True}, "price"),
        ({"price": "-1", "override_rules": True}, "price"),
        ({"price": "abc"}, "price"),
        ({"customer": {}}, "customer"),
        ({"customer": {"user_id": "x", "email": "a@example.com"}}, "customer"),
        ({"customer": {"email": "not-an-email"}}, "email"),
        ({"customer": {"email": "new@example.com", "language": "fr"}}, "language"),
        ({"notes": "x" * 1001}, "notes"),
        ({"override_rules": "yes"}, "override_rules"),
    ],
)
def test_bad_input_is_400_naming_the_field_and_writes_nothing(api: Api, change: Any, field: str) -> None:
    body = _body(api) | change
    answer = api.client.post(BOOKINGS, json=body, headers=auth(MANAGER))
    assert answer.status_code == 400, answer.text
    assert any(field in key for key in answer.json()), answer.json()
    assert _bookings(api) == 0
    with api.services.deps.read() as uow:
        assert uow.users.get_by_email("new@example.com") is None


def test_unknown_customer_and_other_venues_read_as_404(api: Api) -> None:
    assert _staff_book(api, expect=404, customer={"user_id": "no-such-user"})
    assert _staff_book(api, HARBOUR_MANAGER, expect=404)
    assert _staff_book(api, DESK, expect=404, resource="Padel A")
    for token in (ANNA, PARTNER):
        assert _staff_book(api, token, expect=403) == FORBIDDEN
    assert _bookings(api) == 0


def test_idempotency_key_replays_the_staff_booking(api: Api) -> None:
    headers = auth(DESK, Idempotency_Key="desk-1")
    first = api.client.post(BOOKINGS, json=_body(api), headers=headers)
    again = api.client.post(BOOKINGS, json=_body(api), headers=headers)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json()["id"] == first.json()["id"]
    other = api.client.post(BOOKINGS, json=_body(api, notes="other"), headers=headers)
    assert other.status_code == 422
    assert _bookings(api) == 1


# --------------------------------------------------------------------------- move


def test_move_keeps_id_reference_status_and_price(api: Api) -> None:
    created = _staff_book(api)
    pay_later = ("2026-06-02T12:00:00+02:00", "2026-06-02T13:00:00+02:00")
    body = {
        "start_datetime": pay_later[0],
        "end_datetime": pay_later[1],
        "resource": api.resources["Court 2"],
    }
    moved = _act(api, created["id"], "move", body=body)
    assert moved.status_code == 200, moved.text
    after = moved.json()
    for key in ("id", "reference_code", "status", "total_price"):
        assert after[key] == created[key]
    assert (after["start_datetime"], after["resource"]["name"]) == (pay_later[0], "Court 2")
    move = [e for e in _audit(api, created["id"]) if e.action is AuditAction.BOOKING_MOVE]
    assert move[0].details["old"]["start_datetime"].startswith("2026-06-02T08:00:00")
    assert move[0].details["new"]["resource_id"] == api.resources["Court 2"]
    # its old time is free again
    book(api, ANNA, "Court 1", *TOMORROW_10)


def test_move_onto_taken_or_closed_time_is_refused(api: Api) -> None:
    created = _staff_book(api)
    book(api, ANNA, "Court 1", "2026-06-02T14:00:00+02:00", "2026-06-02T15:00:00+02:00")
    onto = {"start_datetime": "2026-06-02T14:30:00+02:00", "end_datetime": "2026-06-02T15:30:00+02:00"}
    taken = _act(api, created["id"], "move", MANAGER, {**onto, "override_rules": True})
    assert (taken.status_code, taken.json()) == (400, SLOT_TAKEN)
    closed = {"start_datetime": "2026-06-05T09:00:00+02:00", "end_datetime": "2026-06-05T10:00:00+02:00"}
    assert _act(api, created["id"], "move", body=closed).json() == SLOT_TAKEN
    # a move within its own time is fine
    within = {"start_datetime": "2026-06-02T10:00:00+02:00", "end_datetime": "2026-06-02T11:30:00+02:00"}
    assert _act(api, created["id"], "move", body=within).status_code == 200


def test_move_permissions_and_other_venues(api: Api) -> None:
    created = _staff_book(api)
    later = {"start_datetime": "2026-06-02T12:00:00+02:00", "end_datetime": "2026-06-02T13:00:00+02:00"}
    assert _act(api, created["id"], "move", HARBOUR_MANAGER, later).status_code == 404
    assert _act(api, created["id"], "move", ANNA, later).status_code == 403
    assert _act(api, created["id"], "move", DESK, {**later, "override_rules": True}).status_code == 403
    padel = _act(api, created["id"], "move", DESK, {**later, "resource": api.resources["Padel A"]})
    assert padel.status_code == 404
    assert _act(api, created["id"], "move", DESK, {**later, "resource": "1"}).status_code == 400
    cancelled = book(api, ANNA, "Court 2", *TOMORROW_10)
    api.client.post(f"/api/v1/bookings/{cancelled['id']}/cancel/", headers=auth(ANNA))
    refused = _act(api, cancelled["id"], "move", DESK, later)
    assert refused.status_code == 400
    assert "cancelled" in refused.json()["error"]


# --------------------------------------------------------------------------- check-in ... record-payment


def test_check_in_from_an_hour_before_until_the_end_once(api: Api) -> None:
    created = _staff_book(api)  # tomorrow 10:00-11:00
    early = _act(api, created["id"], "check-in")
    assert early.status_code == 400
    assert "confirmed" in early.json()["error"]
    api.clock.advance(hours=25, minutes=10)  # 09:10 tomorrow
    done = _act(api, created["id"], "check-in")
    assert done.status_code == 200, done.text
    assert done.json()["checked_in_at"].startswith("2026-06-02T09:10:00")
    assert done.json()["status"] == "confirmed"
    twice = _act(api, created["id"], "check-in")
    assert twice.status_code == 400
    actions = [e.action for e in _audit(api, created["id"])]
    assert AuditAction.BOOKING_CHECK_IN in actions


def test_no_show_after_the_start_only(api: Api) -> None:
    created = _staff_book(api)
    before = _act(api, created["id"], "no-show")
    assert before.status_code == 400
    api.clock.advance(hours=26, minutes=5)
    after = _act(api, created["id"], "no-show")
    assert (after.status_code, after.json()["status"]) == (200, "no_show")
    again = _act(api, created["id"], "no-show")
    assert again.status_code == 400
    assert "no_show" in again.json()["error"]


def test_confirm_a_pending_booking_to_pay_at_the_venue(api: Api) -> None:
    pending = book(api, ANNA, "Court 1", *TOMORROW_10)
    confirmed = _act(api, pending["id"], "confirm")
    assert confirmed.status_code == 200, confirmed.text
    assert (confirmed.json()["status"], confirmed.json()["payment_method"]) == ("confirmed", "at_venue")
    assert confirmed.json()["source"] == "online"
    again = _act(api, pending["id"], "confirm")
    assert again.status_code == 400
    assert "confirmed" in again.json()["error"]
    assert _act(api, pending["id"], "confirm", HARBOUR_MANAGER).status_code == 404


def test_record_payment_of_a_confirmed_booking(api: Api) -> None:
    pending = _staff_book(api, payment="online")
    refused = _act(api, pending["id"], "record-payment", body={"method": "cash"})
    assert refused.status_code == 400
    assert "pending" in refused.json()["error"]
    _act(api, pending["id"], "confirm")
    bad = _act(api, pending["id"], "record-payment", body={"method": "bitcoin"})
    assert (bad.status_code, list(bad.json())) == (400, ["method"])
    paid = _act(api, pending["id"], "record-payment", body={"method": "card_terminal"})
    assert paid.status_code == 200, paid.text
    body = paid.json()
    assert (body["status"], body["payment_method"]) == ("paid", "card_terminal")
    assert body["payment"]["provider"] == "venue"
    assert body["payment"]["status"] == "succeeded"
    assert _act(api, pending["id"], "record-payment", body={"method": "cash"}).status_code == 400


def test_record_payment_of_a_client_booking_earns_the_commission(api: Api) -> None:
    registered = api.client.post(
        "/api/v1/client/users/register/",
        json={"external_id": "u1", "email": "one@example.com"},
        headers=auth(PARTNER),
    )
    assert registered.status_code == 201
    created = book(api, PARTNER, "Court 1", *TOMORROW_10, headers={"X-User-External-ID": "u1"})
    assert _act(api, created["id"], "confirm").status_code == 200
    assert _act(api, created["id"], "record-payment", body={"method": "cash"}).status_code == 200
    records = api.client.get("/api/v1/client/commissions/?month=2026-06", headers=auth(PARTNER)).json()
    assert [(r["booking_id"], r["amount"], r["status"]) for r in records] == [(created["id"], "2.00", "open")]


# --------------------------------------------------------------------------- cancel


def test_desk_cancels_an_unpaid_booking_with_no_refund_to_name(api: Api) -> None:
    created = _staff_book(api)
    answer = _act(api, created["id"], "cancel", body={"reason": "weather", "notes": "rain"})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert (body["id"], body["reference_code"], body["status"]) == (
        created["id"],
        created["reference_code"],
        "cancelled",
    )
    assert body["cancelled_at"].endswith("+02:00")
    assert body["refund"] is None
    (entry,) = [e for e in _audit(api, created["id"]) if e.action is AuditAction.BOOKING_CANCEL]
    assert entry.details["refund_amount"] == "0.00"
    again = _act(api, created["id"], "cancel")
    assert again.status_code == 400
    assert "cancelled" in again.json()["error"]


def test_cancel_of_a_paid_booking_refunds_by_the_choice(api: Api) -> None:
    first = book(api, ANNA, "Court 1", *TOMORROW_10)
    pay(api, ANNA, first["id"])
    full = _act(api, first["id"], "cancel", body={"refund": "full"})
    assert full.status_code == 200, full.text
    assert full.json()["refund"] == {"amount": "20.00", "currency": "EUR"}
    (entry,) = [e for e in _audit(api, first["id"]) if e.action is AuditAction.BOOKING_CANCEL]
    assert (entry.details["refund"], entry.details["refund_amount"]) == ("full", "20.00")


def test_refund_none_or_an_amount_is_for_managers_and_at_most_what_was_paid(api: Api) -> None:
    paid = book(api, ANNA, "Court 1", *TOMORROW_10)
    pay(api, ANNA, paid["id"])
    path = paid["id"]
    assert _act(api, path, "cancel", DESK, {"refund": "none"}).json() == FORBIDDEN
    assert _act(api, path, "cancel", DESK, {"refund": "amount", "amount": "5.00"}).json() == FORBIDDEN
    too_much = _act(api, path, "cancel", MANAGER, {"refund": "amount", "amount": "50.00"})
    assert (too_much.status_code, list(too_much.json())) == (400, ["amount"])
    for bad, field in (({"refund": "half"}, "refund"), ({"reason": "rain"}, "reason")):
        answer = _act(api, path, "cancel", MANAGER, bad)
        assert (answer.status_code, field in answer.json()) == (400, True), answer.text
    assert _act(api, path, "cancel", HARBOUR_MANAGER, {"refund": "full"}).status_code == 404
    still = api.client.get(f"/api/v1/bookings/{path}/", headers=auth(ANNA)).json()
    assert still["status"] == "paid"
    part = _act(api, path, "cancel", MANAGER, {"refund": "amount", "amount": "5.00"})
    assert part.status_code == 200, part.text
    assert part.json()["refund"] == {"amount": "5.00", "currency": "EUR"}


def test_the_customer_is_mailed_the_staff_booking_and_the_move(api: Api) -> None:
    created = _staff_book(api, customer=NEW_CUSTOMER)
    later = {"start_datetime": "2026-06-02T12:00:00+02:00", "end_datetime": "2026-06-02T13:00:00+02:00"}
    assert _act(api, created["id"], "move", body=later).status_code == 200
    messages = mailed(api, "walk.in@example.com")
    assert len(messages) == 2
    assert all(created["reference_code"] in str(m.get_body()) for m in messages)


def test_staff_bookings_and_moves_never_land_on_a_staff_block(api: Api) -> None:
    block = {
        "resource_ids": [api.resources["Court 2"]],
        "start_datetime": "2026-06-02T14:00:00+02:00",
        "end_datetime": "2026-06-02T16:00:00+02:00",
        "reason": "event",
    }
    placed = api.client.post(
        f"{OPERATOR}/venues/{api.venues['center-court']}/blocks/", json=block, headers=auth(DESK)
    )
    assert placed.status_code == 201, placed.text
    blocked = ("2026-06-02T15:00:00+02:00", "2026-06-02T16:00:00+02:00")
    assert (
        _staff_book(api, MANAGER, expect=400, resource="Court 2", times=blocked, override_rules=True)
        == SLOT_TAKEN
    )
    created = _staff_book(api, resource="Court 2")
    onto = {"start_datetime": blocked[0], "end_datetime": blocked[1]}
    refused = _act(api, created["id"], "move", MANAGER, {**onto, "override_rules": True})
    assert (refused.status_code, refused.json()) == (400, SLOT_TAKEN)


def test_a_payment_taken_at_the_venue_is_handed_back_at_the_desk(api: Api) -> None:
    registered = api.client.post(
        "/api/v1/client/users/register/",
        json={"external_id": "u1", "email": "one@example.com"},
        headers=auth(PARTNER),
    )
    assert registered.status_code == 201
    created = book(api, PARTNER, "Court 1", *TOMORROW_10, headers={"X-User-External-ID": "u1"})
    _act(api, created["id"], "confirm")
    paid = _act(api, created["id"], "record-payment", body={"method": "cash"}).json()
    part = _act(api, created["id"], "cancel", MANAGER, {"refund": "amount", "amount": "5.00"})
    assert part.status_code == 200, part.text
    assert part.json()["refund"] == {"amount": "5.00", "currency": "EUR"}
    with api.services.deps.read() as uow:
        (payment,) = uow.payments.for_booking(created["id"])
        request = uow.refunds.get(payment.id)
        booking = uow.bookings.get(created["id"])
    assert payment.provider == paid["payment"]["provider"] == "venue"
    assert request is not None
    assert (request.attempts, request.accepted_at is not None) == (0, True)  # no provider was asked
    assert payment.refunded_amount == Decimal("5.00")
    assert booking is not None
    assert booking.status.value == "refunded"
    records = api.client.get("/api/v1/client/commissions/?month=2026-06", headers=auth(PARTNER)).json()
    assert [(r["amount"], r["status"]) for r in records] == [("1.50", "open")]  # 10 % of the 15.00 kept


@pytest.mark.parametrize(
    "body",
    [
        [],
        "text",
        {"customer": "anna@example.com"},
        {"resource": 2**63},
        {"resource": 2**64},
        {"price": "99999999999.00", "override_rules": True},
        {"price": "1e5"},
        {"participant_count": 0},
        {"start_datetime": "9999-06-02T10:00:00+02:00"},
        {"customer": {"user_id": "x" * 300}},
        {"customer": {"email": "a@example.com", "first_name": "line\nbreak"}},
    ],
)
def test_odd_bodies_are_4xx_never_5xx(api: Api, body: Any) -> None:
    payload = _body(api) | body if isinstance(body, dict) else body
    answer = api.client.post(BOOKINGS, json=payload, headers=auth(MANAGER))
    assert 400 <= answer.status_code < 500, answer.text
    created = _staff_book(api)
    for action, odd in (
        ("move", {"start_datetime": "2026-06-02T10:00:00+02:00"}),
        ("move", {"resource": None, "start_datetime": 5, "end_datetime": "x"}),
        ("cancel", {"refund": "amount", "amount": "12.345"}),
        ("cancel", {"refund": "amount"}),
        ("cancel", []),
        ("record-payment", {}),
        ("record-payment", {"method": 5}),
    ):
        answer = _act(api, created["id"], action, MANAGER, odd)
        assert 400 <= answer.status_code < 500, (action, odd, answer.text)
    for path in ("not-a-uuid", "00000000-0000-4000-8000-000000000009"):
        assert _act(api, path, "check-in").status_code == 404


def test_an_online_staff_booking_counts_against_the_customers_unpaid_limit(api: Api) -> None:
    def hour(n: int) -> tuple[str, str]:
        return f"2026-06-02T{8 + n:02d}:00:00+02:00", f"2026-06-02T{9 + n:02d}:00:00+02:00"

    for n in range(5):  # the limit of the test settings
        book(api, ANNA, "Court 2", *hour(n))
    refused = _staff_book(api, expect=400, resource="Court 2", times=hour(5), payment="online")
    assert refused == {"non_field_errors": ["Too many unpaid bookings: pay or cancel one first."]}
    assert _staff_book(api, resource="Court 2", times=hour(5))["status"] == "confirmed"  # at the venue


def test_concurrent_staff_bookings_for_one_new_customer_make_one_user(api: Api) -> None:
    times = [(f"2026-06-0{d}T10:00:00+02:00", f"2026-06-0{d}T11:00:00+02:00") for d in range(2, 8)]
    customer = {"email": "twice@example.com", "first_name": "Two"}

    def make(span: tuple[str, str]) -> int:
        body = _body(api, "Court 2", span, customer=customer)
        return api.client.post(BOOKINGS, json=body, headers=auth(DESK)).status_code

    with ThreadPoolExecutor(len(times)) as pool:
        assert list(pool.map(make, times)) == [201] * len(times)
    with api.services.deps.read() as uow:
        user = uow.users.get_by_email("twice@example.com")
        assert user is not None
        mine = uow.bookings.list(BookingQuery(user_id=user.id), limit=100, offset=0)
    assert len(mine) == len(times)


def test_the_command_lines_confirm_and_no_show_are_audited_without_an_actor(api: Api) -> None:
    pending = book(api, ANNA, "Court 1", *TOMORROW_10)
    confirmed = operator.confirm_booking(api.services.deps, pending["reference_code"])
    assert (confirmed.status.value, confirmed.payment_method.value) == ("confirmed", "at_venue")
    api.clock.advance(hours=27)
    operator.mark_no_show(api.services.deps, pending["reference_code"])
    entries = _audit(api, pending["id"])
    assert {e.action for e in entries} == {AuditAction.BOOKING_CONFIRM, AuditAction.BOOKING_NO_SHOW}
    assert all(e.actor is None for e in entries)
