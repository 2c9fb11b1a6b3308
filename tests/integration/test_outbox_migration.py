"""Migration 0006: outbox states and Message-IDs; unsent ``booking_paid`` rows become their two emails."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from alembic import command
from sqlalchemy import text

from adapters.sqla import make_engine
from adapters.sqla.migrate import alembic_config, upgrade

CREATED = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest) -> str:
    found: str = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "postgres_url")
    return found


def _rows(url: str) -> list[tuple[str, str, dict[str, str]]]:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT id, kind, payload FROM outbox ORDER BY kind, id")).all()
    finally:
        engine.dispose()
    return [(r[0], r[1], r[2] if isinstance(r[2], dict) else json.loads(r[2])) for r in rows]


def test_unsent_booking_paid_rows_become_two_emails_and_back(url: str) -> None:
    upgrade(url, "0005")
    engine = make_engine(url)
    insert = text(
        "INSERT INTO outbox (id, kind, payload, created_at, due_at, attempts, sent_at) "
        "VALUES (:id, 'booking_paid', :payload, :at, :at, :attempts, :sent)"
    )
    with engine.begin() as connection:
        connection.execute(insert, {"id": "old-unsent", "payload": '{"booking_id": "b-1"}', "at": CREATED,
                                    "attempts": 2, "sent": None})  # fmt: skip
        connection.execute(insert, {"id": "old-sent", "payload": '{"booking_id": "b-2"}', "at": CREATED,
                                    "attempts": 1, "sent": CREATED})  # fmt: skip
    upgrade(url)
    with engine.connect() as connection:
        states = dict(connection.execute(text("SELECT id, status FROM outbox")).all())
    engine.dispose()
    rows = _rows(url)
    emails = [payload for _, kind, payload in rows if kind == "email"]
    assert sorted(p["template"] for p in emails) == ["booking_paid_operator", "booking_paid_user"]
    assert {p["booking_id"] for p in emails} == {"b-1"}
    assert [(k, p) for _, k, p in rows if k == "booking_paid"] == [("booking_paid", {"booking_id": "b-2"})]
    assert states["old-sent"] == "sent"
    assert sorted(states.values()) == ["pending", "pending", "sent"]

    command.downgrade(alembic_config(url), "0005")
    assert sorted((kind, payload["booking_id"]) for _, kind, payload in _rows(url)) == [
        ("booking_paid", "b-1"),
        ("booking_paid", "b-2"),
    ]


def test_sent_messages_forget_their_codes_and_unsent_ones_keep_them(url: str) -> None:
    upgrade(url, "0013")
    engine = make_engine(url)
    insert = text(
        "INSERT INTO outbox (id, kind, payload, created_at, due_at, attempts, status) "
        "VALUES (:id, 'email', :payload, :at, :at, 1, :status)"
    )
    code = '{"template": "confirm_email", "user_id": "u-1", "code": "314159"}'
    booking = '{"template": "booking_paid_user", "booking_id": "b-1"}'
    with engine.begin() as connection:
        for row_id, payload, status in [
            ("sent-code", code, "sent"),
            ("pending-code", code, "pending"),
            ("failed-code", code, "failed"),
            ("sent-booking", booking, "sent"),
        ]:
            connection.execute(insert, {"id": row_id, "payload": payload, "at": CREATED, "status": status})
    engine.dispose()
    upgrade(url)
    payloads = {row_id: payload for row_id, _, payload in _rows(url)}
    assert payloads["sent-code"] == {"template": "confirm_email", "user_id": "u-1"}
    assert payloads["pending-code"]["code"] == payloads["failed-code"]["code"] == "314159"
    assert payloads["sent-booking"] == {"template": "booking_paid_user", "booking_id": "b-1"}
