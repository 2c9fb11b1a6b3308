"""Provider event ids of any length (CONTRACT 5), on SQLite and PostgreSQL: a 304- or 5,000-character
id is applied once, and its redelivery changes nothing (no second mail, no second change)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.http_fixtures import (
    ANNA,
    BOOKINGS,
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
from tests.support.ledger import read

__all__ = ["clone_postgres", "database_url", "postgres_template", "sqlite_template"]  # fixtures

MORNING = ("2026-06-02T10:00:00+02:00", "2026-06-02T11:00:00+02:00")


@pytest.fixture
def api(database_url: str) -> Iterator[Api]:
    yield from start(database_url)


def paid_event(event_id: str, booking_id: str, intent_id: str) -> dict[str, Any]:
    obj = {"id": intent_id, "amount": 2000, "currency": "eur", "metadata": {"booking_id": booking_id}}
    return {"id": event_id, "type": "payment_intent.succeeded", "data": {"object": obj}}


@pytest.mark.parametrize("length", [304, 5000])
def test_an_event_id_of_any_length_is_applied_once(api: Api, length: int) -> None:
    booking = book(api, ANNA, "Court 1", *MORNING)
    opened = api.client.post(f"{BOOKINGS}{booking['id']}/create-payment-intent/", headers=auth(ANNA))
    assert opened.status_code == 200, opened.text
    event = paid_event("evt_" + "x" * (length - 4), booking["id"], opened.json()["payment_intent_id"])

    first = post_event(api, event)
    assert first.status_code == 200, first.text
    after_first = read(api.services.settings.database_url, [booking["id"]])[booking["id"]]
    again = post_event(api, event)
    assert again.status_code == 200, again.text
    after_again = read(api.services.settings.database_url, [booking["id"]])[booking["id"]]

    detail = api.client.get(f"{BOOKINGS}{booking['id']}/", headers=auth(ANNA)).json()
    assert detail["status"] == "paid"
    assert sorted(after_first.notices.elements()) == sorted(after_again.notices.elements())
    assert sum(after_again.notices.values()) == 2  # the paid mails, to the user and to the operator
