"""PostgreSQL's connections killed under a booking load: clean 503s, then success, no partial booking.

``booking serve`` (two processes, the background worker in each) takes bookings from several client
threads while the test terminates every connection of the service's database again and again
(``pg_terminate_backend``, as a failover or an operator would). Every answer must be a 201, a 400
"slot taken" or a 503 with the documented JSON body, never a 500; each request answered 503 is sent
again with its ``Idempotency-Key`` once the database is left alone, and then answers 201 or 400; and
the database holds exactly the bookings that were answered 201, each complete, none overlapping.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from tests.support.arena import OTHER, USER, as_user, catalog, hour
from tests.support.ledger import assert_consistent, read
from tests.support.postgres import require_postgres, temporary_database
from tests.support.server import Running, prepared, running

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

UNAVAILABLE = {"error": "service temporarily unavailable, please retry"}
THREADS = 6
SLOTS = 40  # fewer hours than requests, so that some find their hour taken
ENOUGH_503 = 5
KILLING_AT_LEAST_SECONDS, KILLING_AT_MOST_SECONDS = 3.0, 25.0


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[Running, str]]:
    require_postgres()
    with (
        temporary_database() as url,
        running(prepared(url, catalog(courts=2), tmp_path, workers=2), tmp_path) as up,
    ):
        yield up, url


def _terminate_all(url: str) -> int:
    """Terminate every connection to the database but this one; how many there were."""
    with psycopg.connect(url, autocommit=True) as db:
        rows = db.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    return len(rows)


class Load:
    """Client threads booking random hours, each request with its own Idempotency-Key, and a reader
    listing bookings and reading availability (the read-only path)."""

    def __init__(self, base: str, courts: list[int]) -> None:
        self.base, self.courts = base, courts
        self.sent: list[tuple[dict[str, str], dict[str, Any], httpx.Response]] = []
        self.read: list[httpx.Response] = []
        self.stop = threading.Event()
        self._lock = threading.Lock()

    def post(self, headers: dict[str, str], body: dict[str, Any]) -> httpx.Response:
        return httpx.post(f"{self.base}/api/v1/bookings/", json=body, headers=headers, timeout=60)

    def client(self, seed: int) -> None:
        chance = random.Random(seed)
        for _ in itertools.count():
            if self.stop.is_set():
                return
            token = chance.choice([USER, OTHER])
            headers = {**as_user(token), "Idempotency-Key": str(uuid.uuid4())}
            body = hour(chance.choice(self.courts), chance.randrange(SLOTS))
            response = self.post(headers, body)
            with self._lock:
                self.sent.append((headers, body, response))

    def reader(self) -> None:
        day = hour(self.courts[0], 0)["start_datetime"][:10]
        paths = [
            "/api/v1/bookings/",
            f"/api/v1/resources/availability/?resource_id={self.courts[0]}&start_date={day}&end_date={day}",
        ]
        for path in itertools.cycle(paths):
            if self.stop.is_set():
                return
            response = httpx.get(f"{self.base}{path}", headers=as_user(), timeout=60)
            with self._lock:
                self.read.append(response)

    def unavailable(self) -> int:
        with self._lock:
            return sum(r.status_code == 503 for _, _, r in self.sent)


def test_killed_connections_give_clean_503s_then_success_and_no_partial_booking(
    server: tuple[Running, str],
) -> None:
    up, url = server
    courts = [r["id"] for r in httpx.get(f"{up.base}/api/v1/resources/").json()]
    load = Load(up.base, courts)
    threads = [threading.Thread(target=load.client, args=(n,)) for n in range(THREADS)]
    threads.append(threading.Thread(target=load.reader))
    for thread in threads:
        thread.start()
    killed, started = 0, time.monotonic()
    try:
        while time.monotonic() - started < KILLING_AT_LEAST_SECONDS or (
            load.unavailable() < ENOUGH_503 and time.monotonic() - started < KILLING_AT_MOST_SECONDS
        ):
            killed += _terminate_all(url)
            time.sleep(random.uniform(0.05, 0.3))
    finally:
        load.stop.set()
        for thread in threads:
            thread.join(timeout=120)
    statuses = sorted({r.status_code for _, _, r in load.sent})
    reads = sorted({r.status_code for r in load.read})
    print(
        f"\n{len(load.sent)} bookings ({statuses}) and {len(load.read)} reads ({reads}) sent, {killed} killed"
    )
    assert killed > 0
    assert load.unavailable() >= 1, "no request met a killed connection: the test proved nothing"
    for _, _, response in load.sent:
        assert response.status_code in {201, 400, 503}, (response.status_code, response.text)
        if response.status_code == 503:
            assert response.json() == UNAVAILABLE
        elif response.status_code == 400:
            assert response.json() == {"non_field_errors": ["The requested time slot is not available."]}

    assert {r.status_code for r in load.read} <= {200, 503}, reads
    assert all(r.json() == UNAVAILABLE for r in load.read if r.status_code == 503)

    # the database left alone: every request answered 503 is answered for good when sent again
    answered = [(h, b, r) for h, b, r in load.sent if r.status_code != 503]
    for headers, body, response in load.sent:
        if response.status_code == 503:
            again = load.post(headers, body)
            assert again.status_code in {201, 400}, again.text
            answered.append((headers, body, again))
    fresh = load.post(as_user(), hour(courts[0], SLOTS + 1))
    assert fresh.status_code == 201, fresh.text
    answered.append(({}, {}, fresh))

    # the database holds exactly what was answered 201: complete, consistent, no two overlapping
    confirmed = {r.json()["id"] for _, _, r in answered if r.status_code == 201}
    stories = read(url)
    assert set(stories) == confirmed
    for story in stories.values():
        row = story.booking
        assert row["status"] == "pending"
        assert all(
            row[c] is not None for c in ("reference_code", "user_id", "start_at", "end_at", "total_price")
        )
        assert (story.payments, story.commissions, sum(story.notices.values())) == ({}, [], 0)
    assert_consistent(stories)
