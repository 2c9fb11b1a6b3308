"""``booking serve`` killed with SIGKILL in the middle of a webhook; the provider's retry finishes it, once.

No hook in the service: the test holds a PostgreSQL row lock that the webhook's transaction needs,
waits until the server's connection is seen waiting for it, kills the server, releases the lock,
starts a new server on the same database and delivers the same event again, as the provider does
when it got no answer. Two points of the transaction are tried: before anything is written (the
booking's row lock) and after everything is written but not committed (the commission's reference
to the client row, the last statement before the commit). Either way the retry ends with one paid
booking, one commission, one message per recipient; a further delivery changes nothing.
"""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from email import message_from_bytes, policy
from pathlib import Path

import httpx
import psycopg
import pytest

from tests.support.arena import as_client, catalog, event, hour, intent_ids, signed
from tests.support.ledger import assert_consistent, read
from tests.support.postgres import require_postgres, temporary_database
from tests.support.server import BOOKING, prepared, running

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

#: Where the webhook is held: the lock the test takes, and a word of the statement that waits for it.
POINTS = {
    "before-any-write": ("SELECT 1 FROM bookings WHERE id = %(booking)s FOR UPDATE", "FOR UPDATE"),
    "before-commit": ("SELECT 1 FROM clients WHERE id = %(client)s FOR UPDATE", "commissions"),
}


@pytest.fixture
def database() -> Iterator[str]:
    require_postgres()
    with temporary_database() as url:
        yield url


def _waiting_statement(url: str, timeout: float = 20.0) -> str:
    """The statement of the first connection seen waiting for a lock in the database."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(url, autocommit=True) as db:
        while time.monotonic() < deadline:
            row = db.execute(
                "SELECT query FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
            ).fetchone()
            if row:
                return str(row[0])
            time.sleep(0.05)
    raise AssertionError("the webhook never waited for the lock")


@pytest.mark.parametrize("point", list(POINTS))
def test_a_webhook_cut_by_sigkill_is_finished_once_by_the_providers_retry(
    point: str, database: str, tmp_path: Path
) -> None:
    env = prepared(
        database, catalog(courts=1), tmp_path, workers=1, env={"BOOKING_INPROCESS_WORKER": "false"}
    )
    with running(env, tmp_path) as server:
        base = server.base
        registered = httpx.post(
            f"{base}/api/v1/client/users/register/",
            json={"external_id": "arena-player", "email": "player@example.com"},
            headers=as_client(),
        )
        assert registered.status_code == 201, registered.text
        court = httpx.get(f"{base}/api/v1/resources/").json()[0]["id"]
        booked = httpx.post(f"{base}/api/v1/bookings/", json=hour(court, 0), headers=as_client())
        assert booked.status_code == 201, booked.text
        booking_id = str(booked.json()["id"])
        paying = httpx.post(
            f"{base}/api/v1/bookings/{booking_id}/create-payment-intent/", headers=as_client()
        )
        assert paying.status_code == 200, paying.text
        payload = event(
            "evt_cut_by_sigkill", "payment_intent.succeeded", booking_id, intent_ids(database)[booking_id]
        )

        lock, waiting_for = POINTS[point]
        with psycopg.connect(database) as holder:
            client_id = holder.execute("SELECT id FROM clients").fetchone()
            holder.execute(lock, {"booking": booking_id, "client": client_id[0] if client_id else None})
            failures: list[BaseException] = []

            def deliver() -> None:
                try:
                    httpx.post(
                        f"{base}/webhooks/provider/", content=payload, headers=signed(payload), timeout=60
                    )
                except httpx.HTTPError as error:  # the server died: the provider sees no answer
                    failures.append(error)

            delivery = threading.Thread(target=deliver)
            delivery.start()
            assert waiting_for in _waiting_statement(database)
            server.process.send_signal(signal.SIGKILL)
            server.process.wait(timeout=10)
            delivery.join(timeout=30)
            holder.rollback()  # the lock goes; the dead server's transaction cannot commit any more
        assert failures, "the delivery got an answer from a killed server"

    story = read(database, [booking_id])[booking_id]
    assert (story.status, list(story.payments.values())) == ("pending", ["requires_payment"])
    assert (story.commissions, sum(story.notices.values())) == ([], 0)
    with psycopg.connect(database) as db:
        assert db.execute("SELECT count(*) FROM processed_events").fetchone() == (0,)

    # the provider retries the same event, and once more for good measure
    with running(env, tmp_path) as again:
        for _ in range(2):
            answer = httpx.post(f"{again.base}/webhooks/provider/", content=payload, headers=signed(payload))
            assert (answer.status_code, answer.json()) == (200, {"received": True})
    story = read(database, [booking_id])[booking_id]
    assert (story.status, list(story.payments.values())) == ("paid", ["succeeded"])
    assert story.commissions == ["open"]
    assert story.notices == {"booking_paid_user": 1, "booking_paid_operator": 1}
    assert_consistent(read(database))

    subprocess.run([BOOKING, "outbox", "dispatch"], env=env, check=True, capture_output=True)
    mail = [
        message_from_bytes(p.read_bytes(), policy=policy.default) for p in (tmp_path / "mail").glob("*.eml")
    ]
    recipients = sorted(m["To"].addresses[0].addr_spec for m in mail)
    assert recipients == ["ops@arena.example", "player@example.com"], json.dumps(recipients)
