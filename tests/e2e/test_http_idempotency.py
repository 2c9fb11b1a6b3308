"""Idempotency-Key: the first response is stored with the work it answers, and a racing twin replays it."""

from __future__ import annotations

from typing import Any

import pytest

from booking_core.ports import IdempotencyRecord
from booking_core.usecases import bookings as booking_usecases
from entrypoints.http import idempotency as http_idempotency
from tests.support.http_fixtures import (
    ANNA,
    BOOKINGS,
    Api,
    api,
    auth,
    clone_postgres,
    database_url,
    postgres_template,
    sqlite_template,
)

__all__ = ["api", "clone_postgres", "database_url", "postgres_template", "sqlite_template"]

MORNING = ("2026-06-05T14:00:00+02:00", "2026-06-05T15:00:00+02:00")


def _body(api: Api) -> dict[str, Any]:
    return {"resource": api.resources["Court 1"], "start_datetime": MORNING[0], "end_datetime": MORNING[1]}


def _my_bookings(api: Api) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = api.client.get(BOOKINGS, headers=auth(ANNA)).json()
    return found


def test_a_failure_after_the_record_leaves_neither_booking_nor_record(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    # what a crash between storing the booking and storing the response would have done
    real = booking_usecases.remember_in

    def remember_then_fail(*args: Any) -> None:
        real(*args)
        raise RuntimeError("the process died here")

    monkeypatch.setattr(booking_usecases, "remember_in", remember_then_fail)
    headers = {**auth(ANNA), "Idempotency-Key": "crash-1"}
    assert api.client.post(BOOKINGS, json=_body(api), headers=headers).status_code == 500
    assert _my_bookings(api) == []
    monkeypatch.setattr(booking_usecases, "remember_in", real)
    retry = api.client.post(BOOKINGS, json=_body(api), headers=headers)
    assert retry.status_code == 201, retry.text  # not "slot not available": nothing was half-stored
    assert "Idempotent-Replayed" not in retry.headers
    assert [b["id"] for b in _my_bookings(api)] == [retry.json()["id"]]


def test_a_twin_that_loses_the_race_replays_the_winner(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    headers = {**auth(ANNA), "Idempotency-Key": "twin-1"}
    first = api.client.post(BOOKINGS, json=_body(api), headers=headers)
    assert first.status_code == 201
    # the twin looked for a stored response before the first one committed, and found none
    real = http_idempotency.replay
    looks: list[IdempotencyRecord | None] = []

    def late_replay(*args: Any) -> IdempotencyRecord | None:
        found = None if not looks else real(*args)
        looks.append(found)
        return found

    monkeypatch.setattr(http_idempotency, "replay", late_replay)
    twin = api.client.post(BOOKINGS, json=_body(api), headers=headers)
    assert twin.status_code == 201, twin.text
    assert twin.json() == first.json()
    assert twin.headers["Idempotent-Replayed"] == "true"
    assert len(looks) == 2
    assert looks[1] is not None
    assert len(_my_bookings(api)) == 1


def test_without_a_winner_the_error_stands(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    taken = api.client.post(BOOKINGS, json=_body(api), headers=auth(ANNA))
    assert taken.status_code == 201
    again = api.client.post(BOOKINGS, json=_body(api), headers={**auth(ANNA), "Idempotency-Key": "k-9"})
    assert again.status_code == 400
    assert "non_field_errors" in again.json()
