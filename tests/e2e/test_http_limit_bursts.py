"""Rate limits and the login throttle of a live ``booking serve`` (CONTRACT 2, 4.2, 4.5).

Every limit is exact under concurrent bursts, in one process and across processes sharing Redis
(at most N served, never N plus the requests that raced the counter), a valid token is counted on
its own key in every process from its first request there, and ``X-Forwarded-For`` names the client
only when it comes from an address in ``BOOKING_FORWARDED_ALLOW_IPS``.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from redis import Redis
from redis.exceptions import RedisError

from tests.support.http_fixtures import ANNA, BOOKINGS, CATALOG, auth
from tests.support.server import serving

pytestmark = pytest.mark.slow

REDIS_URL = os.environ.get("BOOKING_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
LIMIT = 20
LOGIN_LIMIT = 5
INDEX = "/api/v1/"
LOGIN = "/api/v1/auth/token/"


@pytest.fixture
def redis_namespace() -> Iterator[str]:
    """A Redis namespace of the test's own, deleted afterwards."""
    try:
        Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except RedisError:
        if os.environ.get("CI") == "true":
            pytest.fail(f"Redis is not reachable at {REDIS_URL} (mandatory under CI=true)")
        pytest.skip(f"Redis is not reachable at {REDIS_URL}")
    name = f"booking-test-{uuid.uuid4().hex[:12]}"
    yield name
    client = Redis.from_url(REDIS_URL)
    keys = list(client.scan_iter(match=f"{name}*"))
    if keys:
        client.delete(*keys)


def _env(**extra: str) -> dict[str, str]:
    return {
        "BOOKING_RATE_LIMIT_PER_MINUTE": str(LIMIT),
        "BOOKING_LOGIN_RATE_LIMIT_PER_MINUTE": str(LOGIN_LIMIT),
        "BOOKING_INPROCESS_WORKER": "false",
        **extra,
    }


def _redis(namespace: str) -> dict[str, str]:
    return {"BOOKING_REDIS_URL": REDIS_URL, "BOOKING_REDIS_NAMESPACE": namespace}


def _server(stack: ExitStack, tmp: Path, workers: int, env: Mapping[str, str]) -> str:
    tmp.mkdir(parents=True, exist_ok=True)
    return stack.enter_context(
        serving(f"sqlite:///{tmp / 'b.sqlite3'}", CATALOG, tmp, workers=workers, env=env)
    )


def _burst(base: str, count: int, method: str, path: str, **request: Any) -> Counter[int]:
    """The statuses of ``count`` requests sent at once, each on a connection of its own."""

    async def main() -> Counter[int]:
        limits = httpx.Limits(max_connections=count, max_keepalive_connections=0)
        async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as client:
            answers = await asyncio.gather(*(client.request(method, path, **request) for _ in range(count)))
        return Counter(answer.status_code for answer in answers)

    return asyncio.run(main())


# --------------------------------------------------------------------------- bursts


@pytest.mark.parametrize("shared", [False, True], ids=["one-process", "redis-workers"])
def test_a_burst_with_one_token_is_served_exactly_the_limit(
    tmp_path: Path, request: pytest.FixtureRequest, shared: bool
) -> None:
    env = _env(**_redis(request.getfixturevalue("redis_namespace"))) if shared else _env()
    with ExitStack() as stack:
        base = _server(stack, tmp_path, 4 if shared else 1, env)
        # the token is new to the servers: counted on the address until found valid, then on itself
        statuses = _burst(base, 200, "GET", BOOKINGS, headers=auth(ANNA))
        assert statuses == {200: LIMIT, 429: 200 - LIMIT}
        assert httpx.get(f"{base}{BOOKINGS}", headers=auth(ANNA), timeout=10).status_code == 429


@pytest.mark.parametrize("shared", [False, True], ids=["one-process", "redis-workers"])
def test_a_burst_of_anonymous_requests_is_served_exactly_the_limit(
    tmp_path: Path, request: pytest.FixtureRequest, shared: bool
) -> None:
    env = _env(**_redis(request.getfixturevalue("redis_namespace"))) if shared else _env()
    with ExitStack() as stack:
        base = _server(stack, tmp_path, 4 if shared else 1, env)
        assert _burst(base, 200, "GET", INDEX) == {200: LIMIT, 429: 200 - LIMIT}


@pytest.mark.parametrize("shared", [False, True], ids=["one-process", "redis-workers"])
def test_a_burst_of_logins_is_answered_exactly_the_limit(
    tmp_path: Path, request: pytest.FixtureRequest, shared: bool
) -> None:
    env = _env(BOOKING_RATE_LIMIT_PER_MINUTE="0")
    if shared:
        env |= _redis(request.getfixturevalue("redis_namespace"))
    with ExitStack() as stack:
        base = _server(stack, tmp_path, 4 if shared else 1, env)
        body = {"email": "anna@example.com", "password": "wrong-password"}
        assert _burst(base, 100, "POST", LOGIN, json=body) == {400: LOGIN_LIMIT, 429: 100 - LOGIN_LIMIT}


# --------------------------------------------------------------------------- one count per token


def test_processes_sharing_redis_count_a_valid_token_on_its_own_key(
    tmp_path: Path, redis_namespace: str
) -> None:
    env = _env(**_redis(redis_namespace))
    with ExitStack() as stack:
        first, second = (_server(stack, tmp_path / name, 1, env) for name in ("a", "b"))
        assert httpx.get(f"{first}{BOOKINGS}", headers=auth(ANNA), timeout=10).status_code == 200
        # the second process has not seen the token yet; it was counted against the address there
        statuses = [
            httpx.get(f"{second}{BOOKINGS}", headers=auth(ANNA), timeout=10).status_code for _ in range(LIMIT)
        ]
        assert statuses == [200] * (LIMIT - 1) + [429]
        # the address paid for the first sighting only: anonymous callers still get the rest
        anonymous = [httpx.get(f"{second}{INDEX}", timeout=10).status_code for _ in range(LIMIT)]
        assert anonymous == [200] * (LIMIT - 1) + [429]


# --------------------------------------------------------------------------- X-Forwarded-For


def test_x_forwarded_for_is_ignored_from_peers_not_allowed(tmp_path: Path) -> None:
    with ExitStack() as stack:
        base = _server(stack, tmp_path, 1, _env())

        def from_(n: int) -> dict[str, str]:
            return {"X-Forwarded-For": f"203.0.113.{n}"}

        logins = [
            httpx.post(
                f"{base}{LOGIN}",
                json={"email": f"someone-{n}@example.com", "password": "wrong-password"},
                headers=from_(n),
                timeout=10,
            ).status_code
            for n in range(LOGIN_LIMIT + 2)
        ]
        assert logins == [400] * LOGIN_LIMIT + [429] * 2
        # the logins counted on the rate limit of the one real address too
        left = LIMIT - len(logins)
        statuses = [
            httpx.get(f"{base}{INDEX}", headers=from_(n), timeout=10).status_code for n in range(left + 5)
        ]
        assert statuses == [200] * left + [429] * 5


def test_x_forwarded_for_names_the_client_behind_an_allowed_proxy(tmp_path: Path) -> None:
    with ExitStack() as stack:
        base = _server(stack, tmp_path, 1, _env(BOOKING_FORWARDED_ALLOW_IPS="10.9.0.0/16, 127.0.0.1"))

        def index(client: str) -> int:
            return httpx.get(f"{base}{INDEX}", headers={"X-Forwarded-For": client}, timeout=10).status_code

        assert [index("203.0.113.7") for _ in range(LIMIT + 1)] == [200] * LIMIT + [429]
        assert index("203.0.113.8") == 200  # another client behind the same proxy has a budget of its own
        # the last address not in the list is the client: a caller cannot prepend one of its choice
        assert index("198.51.100.1, 203.0.113.7") == 429
