"""Request counters in Redis (``BOOKING_REDIS_URL``), shared by every API process on every machine.

Each operation is one Lua script, so Redis checks and counts in one step (atomic, one round trip
per request) and every process sees the same counts and the same valid tokens. A Redis that cannot
be reached at start-up stops ``booking serve`` with one line (:func:`check_reachable`). One that
fails later must not switch the limits off: :class:`RedisCounters` then counts in the process's
own memory (:class:`~entrypoints.http.counters.MemoryCounters`), as a deployment without Redis
does, logs the outage once a minute, and tries Redis again a few seconds later.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from redis.asyncio import BlockingConnectionPool, Redis
from redis.exceptions import RedisError

from entrypoints.http.counters import PASSED, REMEMBER_VALID_TOKEN_S, Hit, MemoryCounters, token_key

log = logging.getLogger(__name__)
T = TypeVar("T")

#: A count that waits longer than this for Redis (a connection, or its answer) is made in memory instead.
TIMEOUT_S = 2.0
#: Connections to Redis per process; one count holds one for a single round trip.
MAX_CONNECTIONS = 16
#: After a failure, counts stay in memory this long before Redis is tried again.
RETRY_AFTER_OUTAGE_S = 5.0
_LOG_EVERY_S = 60.0

# take(): one more on every key of `keys` when each is below the limit, else the milliseconds until
# the fullest one's window ends. A window starts with its key's first count (INCR then EXPIRE).
_TAKE = """
local function take(keys, limit, window)
  local wait = 0
  for _, key in ipairs(keys) do
    if tonumber(redis.call('GET', key) or '0') >= limit then
      wait = math.max(wait, redis.call('PTTL', key), 1)
    end
  end
  if wait > 0 then return wait end
  for _, key in ipairs(keys) do
    if redis.call('INCR', key) == 1 then redis.call('EXPIRE', key, window) end
  end
  return 0
end
"""
# KEYS: the counters. ARGV: limit, window.
_COUNT = _TAKE + "return take(KEYS, tonumber(ARGV[1]), tonumber(ARGV[2]))"
# KEYS: the token's mark of validity, the token's counter, the address's counter. ARGV: limit, window.
_COUNT_CALLER = (
    _TAKE
    + """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {take({KEYS[2]}, tonumber(ARGV[1]), tonumber(ARGV[2])), 1}
end
return {take({KEYS[3]}, tonumber(ARGV[1]), tonumber(ARGV[2])), 0}
"""
)
# KEYS: the token's mark of validity, the token's counter. ARGV: limit, window, seconds to remember.
_COUNT_VALID_TOKEN = (
    _TAKE
    + """
redis.call('SET', KEYS[1], '1', 'EX', ARGV[3])
return take({KEYS[2]}, tonumber(ARGV[1]), tonumber(ARGV[2]))
"""
)


def redis_client(url: str) -> Redis:
    """An asyncio Redis client for ``url`` that gives up quickly instead of holding requests.

    Its connections are few and reused: a burst of requests waits a moment for one instead of
    opening hundreds at once, which under load took longer than the timeout and sent the burst's
    counts to memory.
    """
    pool = BlockingConnectionPool.from_url(
        url,
        max_connections=MAX_CONNECTIONS,
        timeout=TIMEOUT_S,
        socket_timeout=TIMEOUT_S,
        socket_connect_timeout=TIMEOUT_S,
    )
    return Redis.from_pool(pool)


def check_reachable(url: str) -> str | None:
    """None when Redis at ``url`` answers PING, else a one-line reason (for start-up)."""

    async def ping() -> None:
        client = redis_client(url)
        try:
            await client.ping()
        finally:
            await client.aclose()

    try:
        asyncio.run(ping())
    except (RedisError, OSError) as error:
        return f"cannot reach Redis: {error}".splitlines()[0]
    return None


def _hit(wait_ms: Any) -> Hit:
    """The hit a script's answer means: 0 passed, else the milliseconds to wait."""
    wait = int(wait_ms)
    return PASSED if wait == 0 else Hit(passed=False, retry_after=max(1, math.ceil(wait / 1000)))


class RedisCounters:
    """``Counters`` in Redis under ``namespace``; in this process's memory while Redis is down."""

    def __init__(self, client: Redis, namespace: str, clock: Callable[[], float] = time.monotonic) -> None:
        self._client = client
        self._prefix = f"{namespace}:"
        self._clock = clock
        self._count = client.register_script(_COUNT)
        self._count_caller = client.register_script(_COUNT_CALLER)
        self._count_valid_token = client.register_script(_COUNT_VALID_TOKEN)
        self.fallback = MemoryCounters(clock)
        self._down_until = 0.0
        self._logged = -_LOG_EVERY_S

    def _counter(self, key: str) -> str:
        return f"{self._prefix}count:{key}"

    def _valid_mark(self, token: str) -> str:
        return f"{self._prefix}valid-token:{token}"

    async def _shared(self, call: Callable[[], Awaitable[T]], in_memory: Callable[[], Awaitable[T]]) -> T:
        """What ``call`` returns from Redis, or what ``in_memory`` does while Redis does not answer."""
        now = self._clock()
        if now < self._down_until:
            return await in_memory()
        try:
            return await call()
        except (RedisError, OSError) as error:
            self._down_until = now + RETRY_AFTER_OUTAGE_S
            if now - self._logged >= _LOG_EVERY_S:
                self._logged = now
                log.warning("Redis unavailable, counting in this process's memory: %s", error)
            return await in_memory()

    async def count(self, keys: Sequence[str], limit: int, window: int) -> Hit:
        async def shared() -> Hit:
            return _hit(await self._count(keys=[self._counter(key) for key in keys], args=[limit, window]))

        return await self._shared(shared, lambda: self.fallback.count(keys, limit, window))

    async def count_caller(
        self, token: str | None, address_key: str, limit: int, window: int
    ) -> tuple[Hit, bool]:
        if token is None:
            return await self.count([address_key], limit, window), False

        async def shared() -> tuple[Hit, bool]:
            keys = [self._valid_mark(token), self._counter(token_key(token)), self._counter(address_key)]
            wait_ms, on_token = await self._count_caller(keys=keys, args=[limit, window])
            return _hit(wait_ms), bool(on_token)

        in_memory = self.fallback.count_caller
        return await self._shared(shared, lambda: in_memory(token, address_key, limit, window))

    async def count_valid_token(self, token: str, limit: int, window: int) -> Hit:
        async def shared() -> Hit:
            keys = [self._valid_mark(token), self._counter(token_key(token))]
            remember = REMEMBER_VALID_TOKEN_S
            return _hit(await self._count_valid_token(keys=keys, args=[limit, window, remember]))

        return await self._shared(shared, lambda: self.fallback.count_valid_token(token, limit, window))

    async def forget_token(self, token: str) -> None:
        async def shared() -> None:
            await self._client.delete(self._valid_mark(token))

        async def in_memory_only() -> None:
            return None

        await self.fallback.forget_token(token)  # it may have been found valid during an outage
        await self._shared(shared, in_memory_only)

    async def aclose(self) -> None:
        await self._client.aclose()


def redis_counters(url: str, namespace: str) -> RedisCounters:
    """The counters of every limit in Redis at ``url`` under ``namespace``."""
    return RedisCounters(redis_client(url), namespace)
