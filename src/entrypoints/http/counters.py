"""Request counters: how many requests a key made in its current window, counted atomically.

Every limit of the API (the rate limit, the login and registration throttle) asks :class:`Counters`,
which has two implementations: :class:`MemoryCounters` here (each process on its own) and
``shared_counters.RedisCounters`` (every process on every machine, ``BOOKING_REDIS_URL``). Both
check and count in one step, so a burst of concurrent requests cannot all read the same count
before any of them writes it: with a limit of N, at most N pass in a window, never N plus the racers.

A window starts with the first count of its key and lasts ``window`` seconds. A refused request is
not counted. Besides counts, the counters remember which tokens were found valid lately (by digest),
so the rate limit can count a token's requests on its own key in every process (``ratelimit``).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

#: How long a token found valid counts on its own key without being checked again.
REMEMBER_VALID_TOKEN_S = 300


@dataclass(frozen=True, slots=True)
class Hit:
    """The outcome of a count: passed, or refused with the seconds until the full window ends."""

    passed: bool
    retry_after: int = 0


PASSED = Hit(passed=True)


def token_digest(token: str) -> str:
    """What the counters know a token by: never the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()[:32]


class Counters(Protocol):
    """Atomic counters in fixed windows, and the tokens found valid lately."""

    async def count(self, keys: Sequence[str], limit: int, window: int) -> Hit:
        """One more on every key when each has had fewer than ``limit`` in its window; else none."""

    async def count_caller(
        self, token: str | None, address_key: str, limit: int, window: int
    ) -> tuple[Hit, bool]:
        """Count on the key of ``token`` (a digest) if it was found valid lately, else on ``address_key``.

        Returns the hit and whether it was counted on the token's key.
        """

    async def count_valid_token(self, token: str, limit: int, window: int) -> Hit:
        """Remember ``token`` (a digest) as valid and count one on its key."""

    async def forget_token(self, token: str) -> None:
        """Stop treating ``token`` (a digest) as valid (it was revoked)."""

    async def aclose(self) -> None:
        """Release what the counters hold (connections)."""


def token_key(token: str) -> str:
    """The rate limit's key of a token (a digest)."""
    return f"rate:token:{token}"


class MemoryCounters:
    """:class:`Counters` of one process. Each method runs without awaiting, so it is atomic in the loop."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._windows: dict[str, list[float]] = {}  # key -> [count, end of its window]
        self._valid_until: dict[str, float] = {}  # token digest -> until when it counts as valid
        self._next_sweep = 0.0

    def take(self, keys: Sequence[str], limit: int, window: int) -> Hit:
        """:meth:`count`, synchronously."""
        now = self._clock()
        self._sweep(now)
        current = [self._window(key, now, window) for key in keys]
        full = [end for count, end in current if count >= limit]
        if full:
            return Hit(passed=False, retry_after=max(1, math.ceil(max(full) - now)))
        for entry in current:
            entry[0] += 1
        return PASSED

    def knows(self, token: str) -> bool:
        """Whether ``token`` (a digest) was found valid lately."""
        return self._valid_until.get(token, 0.0) > self._clock()

    def remember(self, token: str) -> None:
        """Note that ``token`` (a digest) was just found valid."""
        self._valid_until[token] = self._clock() + REMEMBER_VALID_TOKEN_S

    async def count(self, keys: Sequence[str], limit: int, window: int) -> Hit:
        return self.take(keys, limit, window)

    async def count_caller(
        self, token: str | None, address_key: str, limit: int, window: int
    ) -> tuple[Hit, bool]:
        if token is not None and self.knows(token):
            return self.take([token_key(token)], limit, window), True
        return self.take([address_key], limit, window), False

    async def count_valid_token(self, token: str, limit: int, window: int) -> Hit:
        self.remember(token)
        return self.take([token_key(token)], limit, window)

    async def forget_token(self, token: str) -> None:
        self._valid_until.pop(token, None)

    async def aclose(self) -> None:
        return None

    def _window(self, key: str, now: float, window: int) -> list[float]:
        entry = self._windows.get(key)
        if entry is None or entry[1] <= now:
            entry = self._windows[key] = [0, now + window]
        return entry

    def _sweep(self, now: float) -> None:
        """Drop ended windows and forgotten tokens now and then, so callers seen once do not pile up."""
        if now < self._next_sweep:
            return
        self._next_sweep = now + 60
        self._windows = {key: entry for key, entry in self._windows.items() if entry[1] > now}
        self._valid_until = {token: until for token, until in self._valid_until.items() if until > now}
