"""BOOKING_REDIS_URL: two `booking serve` processes share one rate limit through the real Redis.

Each test writes under a namespace of its own (BOOKING_REDIS_NAMESPACE) and deletes only that.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from redis import Redis
from redis.exceptions import RedisError

from entrypoints.http.shared_counters import redis_counters
from tests.support.server import BOOKING, free_port, serving

REDIS_URL = os.environ.get("BOOKING_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
LIMIT = 6


def _require_redis() -> None:
    try:
        Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except RedisError:
        if os.environ.get("CI") == "true":
            pytest.fail(f"Redis is not reachable at {REDIS_URL} (mandatory under CI=true)")
        pytest.skip(f"Redis is not reachable at {REDIS_URL}")


@pytest.fixture
def namespace() -> Iterator[str]:
    _require_redis()
    name = f"booking-test-{uuid.uuid4().hex[:12]}"
    yield name
    client = Redis.from_url(REDIS_URL)
    keys = list(client.scan_iter(match=f"{name}*"))
    if keys:
        client.delete(*keys)


def test_two_processes_share_one_limit(tmp_path: Path, namespace: str) -> None:
    env = {
        "BOOKING_REDIS_URL": REDIS_URL,
        "BOOKING_REDIS_NAMESPACE": namespace,
        "BOOKING_RATE_LIMIT_PER_MINUTE": str(LIMIT),
        "BOOKING_INPROCESS_WORKER": "false",
    }
    with ExitStack() as stack:
        bases = [
            stack.enter_context(
                serving(
                    f"sqlite:///{tmp_path / name / 'b.sqlite3'}",
                    {},
                    _dir(tmp_path / name),
                    workers=1,
                    env=env,
                )
            )
            for name in ("a", "b")
        ]
        # anonymous requests count against the client address, the same for both servers
        statuses = [httpx.get(f"{bases[i % 2]}/api/v1/", timeout=10).status_code for i in range(LIMIT + 2)]
        assert statuses == [200] * LIMIT + [429, 429]
        # each process alone would have let LIMIT through: the other server refuses too, at once
        refused = httpx.get(f"{bases[1]}/api/v1/", timeout=10)
        assert refused.status_code == 429
        assert int(refused.headers["retry-after"]) > 0
    assert list(Redis.from_url(REDIS_URL).scan_iter(match=f"{namespace}*")), "counters were not in Redis"


def test_serve_refuses_an_unreachable_redis_in_one_line(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "BOOKING_DATABASE_URL": f"sqlite:///{tmp_path / 'b.sqlite3'}",
        "BOOKING_PORT": str(free_port()),
        "BOOKING_REDIS_URL": f"redis://127.0.0.1:{free_port()}/0",
    }
    subprocess.run([BOOKING, "db", "upgrade"], env=env, check=True, capture_output=True)
    result = subprocess.run([BOOKING, "serve"], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("BOOKING_REDIS_URL: cannot reach Redis"), lines


def test_a_redis_outage_counts_in_the_process_memory() -> None:
    counters = redis_counters(f"redis://127.0.0.1:{free_port()}/0", "booking-test-down")

    async def use() -> list[bool]:
        return [(await counters.count(["k"], 2, 60)).passed for _ in range(3)]

    assert asyncio.run(use()) == [True, True, False]  # never unlimited


def test_counting_in_redis_is_atomic_across_clients(namespace: str) -> None:
    """Two clients (as two processes) counting one key at once: exactly the limit passes."""

    async def burst() -> list[bool]:
        clients = [redis_counters(REDIS_URL, namespace) for _ in range(2)]
        try:
            hits = await asyncio.gather(*(clients[n % 2].count(["k"], 20, 60) for n in range(200)))
        finally:
            for client in clients:
                await client.aclose()
        return [hit.passed for hit in hits]

    assert sum(asyncio.run(burst())) == 20


def _dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path
