"""Cancels and payments of the same bookings at the same moment, on PostgreSQL with two server processes.

Every path that changes a booking takes its locks in one order (``booking_core.ports.unit_of_work``),
so a customer's cancel and the provider's ``payment_intent.succeeded`` for the same booking wait for
each other instead of deadlocking: every answer is 200, the database counts no deadlock, and each
booking ends cancelled with its payment refunded once (CONTRACT 4.3: a payment that succeeds for a
booking its user cancelled is refunded at once).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import psycopg
import pytest

from tests.support.arena import as_user, catalog, event, hour, intent_ids, signed
from tests.support.ledger import assert_consistent, read
from tests.support.postgres import require_postgres, temporary_database
from tests.support.server import serving

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

PAIRS = 60
COURTS = 4


def _at_once(calls: list[Callable[[], httpx.Response]]) -> list[httpx.Response]:
    """Send every call at the same moment, one thread each."""
    start = threading.Barrier(len(calls))

    def run(call: Callable[[], httpx.Response]) -> httpx.Response:
        start.wait()
        return call()

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(run, calls))


def _pending_with_intent(base: str, n: int) -> str:
    court = httpx.get(f"{base}/api/v1/resources/").json()[n % COURTS]["id"]
    made = httpx.post(
        f"{base}/api/v1/bookings/", json=hour(court, n // COURTS), headers=as_user(), timeout=60
    )
    assert made.status_code == 201, made.text
    booking_id = str(made.json()["id"])
    intent = httpx.post(f"{base}/api/v1/bookings/{booking_id}/create-payment-intent/", headers=as_user())
    assert intent.status_code == 200, intent.text
    return booking_id


def _deadlocks(url: str) -> int:
    """Deadlocks PostgreSQL detected in the database of ``url`` (its own statistics)."""
    with psycopg.connect(url, autocommit=True) as db:
        db.execute("SELECT pg_stat_clear_snapshot()")
        row = db.execute(
            "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()"
        ).fetchone()
    return int(row[0]) if row else 0


def _others_gone(url: str) -> None:
    """Wait until the server's connections have ended, so that what they counted has been reported."""
    with psycopg.connect(url, autocommit=True) as db:
        others = (
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        while db.execute(others).fetchone() != (0,):
            db.execute("SELECT pg_sleep(0.1)")


def test_sixty_cancels_racing_their_payments_all_answer_200_without_deadlock(tmp_path: Path) -> None:
    require_postgres()
    with temporary_database() as url:
        with serving(url, catalog(COURTS), tmp_path, workers=2) as base:
            bookings = [_pending_with_intent(base, n) for n in range(PAIRS)]
            intents = intent_ids(url)

            def cancel(booking_id: str) -> httpx.Response:
                path = f"{base}/api/v1/bookings/{booking_id}/cancel/"
                return httpx.post(path, json={}, headers=as_user(), timeout=120)

            def paid(booking_id: str) -> httpx.Response:
                body = event(
                    f"evt_paid_{booking_id}", "payment_intent.succeeded", booking_id, intents[booking_id]
                )
                return httpx.post(
                    f"{base}/webhooks/provider/", content=body, headers=signed(body), timeout=120
                )

            calls = [c for b in bookings for c in (lambda b=b: cancel(b), lambda b=b: paid(b))]
            answers = _at_once(calls)
        _others_gone(url)
        refused = [(a.request.url.path, a.status_code, a.text) for a in answers if a.status_code != 200]
        assert not refused, f"{len(refused)} of {len(answers)} answers were not 200: {refused[:5]}"
        assert _deadlocks(url) == 0
        stories = read(url, bookings)
        for booking_id, story in stories.items():
            assert (story.status, story.booking["cancellation_reason"]) == ("cancelled", "user_request"), (
                booking_id
            )
            assert list(story.payments.values()) == ["refund_pending"], booking_id
            assert len(story.refund_requests) == 1, booking_id
        assert_consistent(stories)
    (log,) = tmp_path.glob("serve-*.log")
    assert "deadlock" not in log.read_text().lower()
