"""BOOKING_DATABASE_REPLICA_URL against a real streaming replica (a throw-away primary and standby).

Browsing, availability and lists read the standby; every write and every booking check goes to
the primary. Pausing the standby's replay makes this visible: the lists and the availability go
stale, while a booking of the taken slot is still refused and exactly one of many racing wins.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from adapters.sqla.version_probe import APPLICATION_NAME
from tests.support.arena import BERLIN, RACER, race_catalog
from tests.support.replication import Pair, streaming_pair
from tests.support.server import BOOKING, serving

pytestmark = [pytest.mark.postgres, pytest.mark.slow]
HEADERS = {"Authorization": f"Token {RACER}"}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Pair, str, int]]:
    with streaming_pair() as pair:
        tmp = tmp_path_factory.mktemp("replica")
        _migrate_and_wait(pair, tmp)
        env = {"BOOKING_DATABASE_REPLICA_URL": pair.standby_url, "BOOKING_INPROCESS_WORKER": "false"}
        with serving(pair.primary_url, race_catalog(), tmp, workers=2, env=env) as base:
            resource = httpx.get(f"{base}/api/v1/resources/", timeout=10).json()[0]["id"]
            yield pair, base, resource


def _migrate_and_wait(pair: Pair, tmp: Path) -> None:
    """`booking serve` checks the replica is at the schema's head: let the standby catch up first."""
    env = {**os.environ, "BOOKING_DATABASE_URL": pair.primary_url, "BOOKING_MAIL_DIR": str(tmp / "mail")}
    subprocess.run([BOOKING, "db", "upgrade"], env=env, check=True, capture_output=True)
    head = _scalar(pair.primary_url, "SELECT version_num FROM alembic_version")
    _eventually(lambda: _scalar(pair.standby_url, "SELECT max(version_num) FROM alembic_version") == head)


def _scalar(url: str, sql: str) -> Any:
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            row = conn.execute(sql).fetchone()  # type: ignore[arg-type]
    except psycopg.errors.UndefinedTable:
        return None
    return row[0] if row else None


def _eventually(check: Any, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "the standby did not catch up"
        time.sleep(0.05)


def _at(day: date, hour: int) -> str:
    return datetime(day.year, day.month, day.day, hour, tzinfo=BERLIN).isoformat()


def _booked(base: str, resource: int, day: date) -> list[tuple[str, str]]:
    raw = httpx.get(
        f"{base}/api/v1/resources/{resource}/availability/",
        params={"start_date": str(day), "end_date": str(day)},
        timeout=10,
    )
    assert raw.status_code == 200, raw.text
    return sorted((s["start_datetime"], s["end_datetime"]) for s in raw.json()["booked_slots"])


def _listed(base: str) -> set[str]:
    answer = httpx.get(f"{base}/api/v1/bookings/", headers=HEADERS, params={"limit": 1000}, timeout=10)
    assert answer.status_code == 200, answer.text
    return {b["id"] for b in answer.json()}


def test_reads_reach_the_standby(cluster: tuple[Pair, str, int]) -> None:
    pair, base, resource = cluster
    day = datetime.now(BERLIN).date() + timedelta(days=2)
    assert _booked(base, resource, day) == []
    assert httpx.get(f"{base}/api/v1/resources/{resource}/", timeout=10).status_code == 200
    # the pool keeps its connections open: their last statements show what they read there
    seen = _scalar(
        pair.standby_url,
        "SELECT string_agg(query, ' ') FROM pg_stat_activity "
        "WHERE datname = 'postgres' AND pid <> pg_backend_pid() AND backend_type = 'client backend'",
    )
    assert seen is not None
    assert "FROM bookings" in seen, seen
    # so does the probe of data versions that cached availability reads ask first
    probes = f"SELECT count(*) FROM pg_stat_activity WHERE application_name = '{APPLICATION_NAME}'"
    assert _scalar(pair.standby_url, probes) >= 1
    assert _scalar(pair.primary_url, probes) == 0


def test_stale_reads_never_let_a_slot_be_booked_twice(cluster: tuple[Pair, str, int]) -> None:
    pair, base, resource = cluster
    day = datetime.now(BERLIN).date() + timedelta(days=5)
    with psycopg.connect(pair.standby_url, autocommit=True) as standby:
        standby.execute("SELECT pg_wal_replay_pause()")
        try:
            first = {"resource": resource, "start_datetime": _at(day, 10), "end_datetime": _at(day, 11)}
            made = httpx.post(f"{base}/api/v1/bookings/", json=first, headers=HEADERS, timeout=30)
            assert made.status_code == 201, made.text
            booking = made.json()["id"]
            # the replica has not seen it: availability and the list lag behind ...
            assert _booked(base, resource, day) == []
            assert booking not in _listed(base)
            # ... but the booking itself, and every booking check, are read on the primary
            assert (
                httpx.get(f"{base}/api/v1/bookings/{booking}/", headers=HEADERS, timeout=10).status_code
                == 200
            )
            again = httpx.post(f"{base}/api/v1/bookings/", json=first, headers=HEADERS, timeout=30)
            assert again.status_code == 400, again.text
            racing = {"resource": resource, "start_datetime": _at(day, 12), "end_datetime": _at(day, 13)}
            with ThreadPoolExecutor(max_workers=16) as pool:
                statuses = sorted(
                    pool.map(
                        lambda body: (
                            httpx.post(
                                f"{base}/api/v1/bookings/", json=body, headers=HEADERS, timeout=60
                            ).status_code
                        ),
                        [racing] * 16,
                    )
                )
            assert statuses == [201] + [400] * 15, statuses
        finally:
            standby.execute("SELECT pg_wal_replay_resume()")
    _eventually(lambda: len(_booked(base, resource, day)) == 2)
    assert booking in _listed(base)
    overlapping = _scalar(
        pair.primary_url,
        "SELECT count(*) FROM bookings a JOIN bookings b ON a.resource_id = b.resource_id AND a.id < b.id "
        "AND a.start_at < b.end_at AND b.start_at < a.end_at "
        "WHERE a.status IN ('pending', 'confirmed', 'paid') AND b.status IN ('pending', 'confirmed', 'paid')",
    )
    assert overlapping == 0


def test_without_the_replica_reads_fail_and_bookings_go_on(cluster: tuple[Pair, str, int]) -> None:
    """Runs last: it stops the standby for good."""
    pair, base, resource = cluster
    day = datetime.now(BERLIN).date() + timedelta(days=6)
    pair.stop_standby()
    stale = httpx.get(
        f"{base}/api/v1/resources/{resource}/availability/",
        params={"start_date": str(day), "end_date": str(day)},
        timeout=30,
    )
    assert stale.status_code == 503, stale.text
    assert set(stale.json()) == {"error"}
    body = {"resource": resource, "start_datetime": _at(day, 10), "end_datetime": _at(day, 11)}
    made = httpx.post(f"{base}/api/v1/bookings/", json=body, headers=HEADERS, timeout=30)
    assert made.status_code == 201, made.text
    assert httpx.get(f"{base}/health", timeout=10).status_code == 200
