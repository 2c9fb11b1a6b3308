"""Abuse (CONTRACT section 4.5): rate limits no token escapes, throttled logins and sign-ups,
password work that cannot stall browsing, answers that do not tell who has an account, and
service tokens that only the operator revokes."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import anyio
import httpx
import pytest
from argon2 import PasswordHasher
from argon2 import extract_parameters as argon2_parameters
from litestar.exceptions import TooManyRequestsException

from adapters.passwords import Argon2Passwords
from booking_core.memory import PlainPasswords
from entrypoints.bootstrap import Services
from entrypoints.http.app import create_app
from entrypoints.http.counters import REMEMBER_VALID_TOKEN_S, MemoryCounters, token_digest
from entrypoints.http.hashing import HASHING_STATE, HashingPool
from entrypoints.http.throttle import Throttle
from tests.support.http_fixtures import (
    ANNA,
    ANNA_PASSWORD,
    BOOKINGS,
    PARTNER,
    Api,
    auth,
    book,
    loaded_sqlite_url,
    sqlite_template,
    start,
)
from tests.support.server import free_port

__all__ = ["loaded_sqlite_url", "sqlite_template"]

LOGIN = "/api/v1/auth/token/"
REGISTER = "/api/v1/auth/register/"


@contextmanager
def _app(
    url: str,
    *,
    rate_limit: int = 0,
    login_limit: int = 0,
    passwords: Any = None,
    redis_url: str | None = None,
) -> Iterator[Api]:
    def customize(services: Services) -> Services:
        settings = replace(
            services.settings,
            rate_limit_per_minute=rate_limit,
            login_rate_limit_per_minute=login_limit,
            redis_url=redis_url,
        )
        deps = services.deps if passwords is None else replace(services.deps, passwords=passwords)
        return replace(services, settings=settings, deps=deps)

    yield from start(url, customize=customize)


def _run_from(app: Any, addresses: list[str], requests: Callable[[list[httpx.AsyncClient]], Any]) -> Any:
    """Run ``requests`` with one client per address, each seen by the app as coming from it."""

    async def main() -> Any:
        clients = [
            httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app, client=(ip, 40000)), base_url="http://test"
            )
            for ip in addresses
        ]
        try:
            return await requests(clients)
        finally:
            for client in clients:
                await client.aclose()

    return anyio.run(main)


# --------------------------------------------------------------------------- the rate limit


def test_made_up_tokens_count_against_their_address(loaded_sqlite_url: str) -> None:
    with _app(loaded_sqlite_url, rate_limit=3) as api:
        assert api.client.get(BOOKINGS, headers=auth(ANNA)).status_code == 200  # a known token from now on
        for n in range(2):
            assert api.client.get(BOOKINGS, headers=auth(f"made-up-{n}")).status_code == 401
        # once every made-up token had a budget of its own, and this one was 401 again
        refused = api.client.get(BOOKINGS, headers=auth("made-up-3"))
        assert refused.status_code == 429
        assert int(refused.headers["retry-after"]) >= 1
        assert api.client.get("/api/v1/resources/", headers={"Authorization": "Bearer x"}).status_code == 429
        assert api.client.get("/api/v1/resources/").status_code == 429
        assert api.client.get(BOOKINGS, headers=auth(ANNA)).status_code == 200  # counted on its own


def test_a_booking_counts_on_its_token_from_the_tokens_first_request(loaded_sqlite_url: str) -> None:
    # booking creation checks a known token late, in its own transaction; an unknown one is checked
    # (and counted on its key) first. Once the first request counted on the address alone.
    with _app(loaded_sqlite_url, rate_limit=2) as api:
        book(api, ANNA, "Court 1", "2026-06-03T10:00:00+02:00", "2026-06-03T11:00:00+02:00")
        book(api, ANNA, "Court 1", "2026-06-03T12:00:00+02:00", "2026-06-03T13:00:00+02:00")
        book(api, ANNA, "Court 1", "2026-06-03T14:00:00+02:00", "2026-06-03T15:00:00+02:00", expect=429)
        # the token's first request cost its address one request, no more
        assert api.client.get("/api/v1/resources/").status_code == 200
        assert api.client.get("/api/v1/resources/").status_code == 429


def test_valid_tokens_count_on_their_own_key_for_a_while() -> None:
    now = [0.0]
    counters = MemoryCounters(clock=lambda: now[0])
    token = token_digest("a")  # the counters know a token by its hash, never by itself
    assert token != "a"

    async def caller() -> tuple[bool, bool]:
        hit, on_token = await counters.count_caller(token, "address:x", 100, 60)
        return hit.passed, on_token

    assert anyio.run(caller) == (True, False)  # not known valid: counted on the address
    assert anyio.run(counters.count_valid_token, token, 100, 60).passed
    assert anyio.run(caller) == (True, True)
    now[0] = REMEMBER_VALID_TOKEN_S + 0.5  # forgotten, so a revoked token soon counts on its address
    assert anyio.run(caller) == (True, False)


# --------------------------------------------------------------------------- the login throttle


def test_throttle_counts_per_key_in_fixed_windows() -> None:
    now = [120.0]
    throttle = Throttle(2, MemoryCounters(clock=lambda: now[0]), window=60)

    async def attempts() -> None:
        await throttle.attempt(["address:a", "email:x"])
        await throttle.attempt(["address:c", "email:x"])
        with pytest.raises(TooManyRequestsException) as refused:
            await throttle.attempt(["address:b", "email:x"])  # x has had two
        assert refused.value.headers == {"Retry-After": "60"}
        await throttle.attempt(["address:b", "email:z"])  # the refusal counted nothing for b
        await throttle.attempt(["address:b", "email:y"])
        with pytest.raises(TooManyRequestsException):
            await throttle.attempt(["address:b", "email:w"])  # b has had two
        now[0] = 180.0  # the next window
        await throttle.attempt(["address:b", "email:x"])

    anyio.run(attempts)


@pytest.mark.parametrize(
    "authorization", [None, "Token made-up", f"Token {ANNA}", f"Token {PARTNER}", "Bearer whatever"]
)
def test_logins_are_throttled_per_address_whatever_the_authorization(
    loaded_sqlite_url: str, authorization: str | None
) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    with _app(loaded_sqlite_url, login_limit=3, passwords=PlainPasswords()) as api:
        for n in range(3):
            body = {"email": f"someone-{n}@example.com", "password": "wrong-password"}
            assert api.client.post(LOGIN, json=body, headers=headers).status_code == 400
        refused = api.client.post(
            LOGIN, json={"email": "anna@example.com", "password": ANNA_PASSWORD}, headers=headers
        )
        assert refused.status_code == 429
        assert int(refused.headers["retry-after"]) >= 1
        assert "detail" in refused.json()


def test_logins_are_throttled_per_email_across_addresses(loaded_sqlite_url: str) -> None:
    with _app(loaded_sqlite_url, login_limit=3, passwords=PlainPasswords()) as api:
        app = create_app(api.services)

        async def guesses(clients: list[httpx.AsyncClient]) -> list[int]:
            body = {"email": "Anna@Example.com", "password": "wrong-password"}
            return [(await client.post(LOGIN, json=body)).status_code for client in clients]

        addresses = [f"10.0.0.{n}" for n in range(5)]
        assert _run_from(app, addresses, guesses) == [400, 400, 400, 429, 429]

        async def others(clients: list[httpx.AsyncClient]) -> int:
            body = {"email": "ben@example.com", "password": "wrong-password"}
            return (await clients[0].post(LOGIN, json=body)).status_code

        assert _run_from(app, ["10.0.0.99"], others) == 400  # another email, another address


def test_registrations_are_throttled_per_address_and_per_email(loaded_sqlite_url: str) -> None:
    with _app(loaded_sqlite_url, login_limit=2, passwords=PlainPasswords()) as api:
        app = create_app(api.services)

        async def register(clients: list[httpx.AsyncClient], emails: list[str]) -> list[int]:
            statuses = []
            for client, email in zip(clients, emails, strict=True):
                body = {"email": email, "password": "ten-chars-or-more"}
                statuses.append((await client.post(REGISTER, json=body, headers=auth("made-up"))).status_code)
            return statuses

        one_address = ["10.0.1.1"] * 3
        emails = ["a1@example.com", "a2@example.com", "a3@example.com"]
        assert _run_from(app, one_address, lambda c: register(c, emails)) == [201, 201, 429]
        many = ["10.0.2.1", "10.0.2.2", "10.0.2.3"]
        same = ["b@example.com"] * 3
        assert _run_from(app, many, lambda c: register(c, same)) == [201, 400, 429]  # 400: exists already


def test_limits_hold_while_redis_cannot_be_reached(loaded_sqlite_url: str) -> None:
    # once an outage let every request through uncounted: 40 of 40 wrong logins were answered
    down = f"redis://127.0.0.1:{free_port()}/0"
    with _app(
        loaded_sqlite_url, rate_limit=20, login_limit=5, passwords=PlainPasswords(), redis_url=down
    ) as api:
        body = {"email": "anna@example.com", "password": "wrong-password"}
        statuses = [api.client.post(LOGIN, json=body).status_code for _ in range(40)]
        assert statuses == [400] * 5 + [429] * 35
        assert api.client.get("/api/v1/resources/").status_code == 429  # the address had its 20


# --------------------------------------------------------------------------- password work


class _GatedPasswords(PlainPasswords):
    """Password checks that wait for the test's signal, counting how many run at once."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0

    def verify(self, password_hash: str, password: str) -> bool:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        try:
            self.gate.wait(30)
            return False
        finally:
            with self.lock:
                self.running -= 1


def test_a_login_storm_runs_on_bounded_slots_and_browsing_goes_on(loaded_sqlite_url: str) -> None:
    """60 logins at once: at most the pool's slots hash, and a browsing request is answered meanwhile."""
    passwords = _GatedPasswords()
    with _app(loaded_sqlite_url, passwords=passwords) as api:
        app = create_app(api.services)
        pool: HashingPool = app.state[HASHING_STATE]

        async def storm(clients: list[httpx.AsyncClient]) -> tuple[list[int], int, int]:
            client = clients[0]
            statuses: list[int] = []

            async def login(n: int) -> None:
                body = {"email": "anna@example.com" if n % 2 else f"nobody-{n}@example.com", "password": "x"}
                statuses.append((await client.post(LOGIN, json=body)).status_code)

            try:
                async with anyio.create_task_group() as group:
                    for n in range(60):
                        group.start_soon(login, n)
                    with anyio.fail_after(20):
                        while passwords.running < pool.slots:
                            await anyio.sleep(0.01)
                    busy = pool.busy
                    with anyio.fail_after(10):  # once the storm took every thread and this waited 23 s
                        browsing = await client.get("/api/v1/resources/")
                    passwords.gate.set()
            finally:
                passwords.gate.set()
            return statuses, busy, browsing.status_code

        statuses, busy, browsing = _run_from(app, ["10.0.3.1"], storm)
        assert browsing == 200
        assert busy == pool.slots
        assert passwords.most == pool.slots  # never more password checks at once than slots
        assert sorted(set(statuses)) == [400]


class _CountingPasswords(PlainPasswords):
    def __init__(self) -> None:
        self.checks = 0

    def verify(self, password_hash: str, password: str) -> bool:
        self.checks += 1
        return super().verify(password_hash, password)


def test_unknown_email_and_wrong_password_get_the_same_answer_for_the_same_work(
    loaded_sqlite_url: str,
) -> None:
    passwords = _CountingPasswords()
    with _app(loaded_sqlite_url, passwords=passwords) as api:
        wrong = api.client.post(LOGIN, json={"email": "anna@example.com", "password": "wrong-password"})
        assert passwords.checks == 1
        unknown = api.client.post(LOGIN, json={"email": "nobody@example.com", "password": "wrong-password"})
        assert passwords.checks == 2  # once there was no check at all: 0.016 s against 0.3 s
        no_password = api.client.post(LOGIN, json={"email": "ben@example.com", "password": "wrong-password"})
        assert passwords.checks == 3  # a user without a password (made by a client) likewise
        assert wrong.status_code == unknown.status_code == no_password.status_code == 400
        assert wrong.json() == unknown.json() == no_password.json()


def test_the_dummy_hash_costs_what_a_real_one_does() -> None:
    hasher = PasswordHasher(time_cost=2, memory_cost=1024, parallelism=2)
    passwords = Argon2Passwords(hasher)
    real = argon2_parameters(passwords.hash("a-long-passphrase"))
    dummy = argon2_parameters(passwords._dummy)
    assert dummy == real
    assert passwords.verify(passwords._dummy, "") is False  # a well-formed hash: a full verify runs


# --------------------------------------------------------------------------- service tokens


def test_logout_with_a_client_service_token_is_403_and_keeps_it(loaded_sqlite_url: str) -> None:
    with _app(loaded_sqlite_url) as api:
        refused = api.client.post("/api/v1/auth/logout/", headers=auth(PARTNER))
        assert refused.status_code == 403
        assert refused.json() == {"detail": "You do not have permission to perform this action."}
        assert api.client.get(f"{BOOKINGS}", headers=auth(PARTNER)).status_code == 200
        assert api.client.get("/api/v1/client/users/mappings/", headers=auth(PARTNER)).status_code == 200
