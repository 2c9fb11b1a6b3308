"""Request counters in Redis (``BOOKING_REDIS_URL``), shared by every API process on every machine.

Litestar's own :class:`~litestar.stores.redis.RedisStore` keeps them; this module only builds it and
decides what an outage means. A Redis that cannot be reached at start-up stops ``booking serve``
with one line (:func:`check_reachable`). One that fails later must not take the API down with it:
:class:`FailOpenStore` then counts nothing (every request passes, as with the limit switched off)
and logs the outage once a minute, and counting resumes by itself when Redis answers again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable
from datetime import timedelta
from typing import TypeVar

from litestar.stores.base import NamespacedStore
from litestar.stores.redis import RedisStore
from redis.asyncio import Redis
from redis.exceptions import RedisError

log = logging.getLogger(__name__)
T = TypeVar("T")

#: A counter that waits longer than this for Redis is given up (the request passes uncounted).
SOCKET_TIMEOUT_S = 0.5
_LOG_EVERY_S = 60.0


def redis_client(url: str) -> Redis:
    """An asyncio Redis client for ``url`` that gives up quickly instead of holding requests."""
    return Redis.from_url(url, socket_timeout=SOCKET_TIMEOUT_S, socket_connect_timeout=SOCKET_TIMEOUT_S)


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


class FailOpenStore(NamespacedStore):
    """A Redis store whose failures count as "nothing counted yet" instead of as errors."""

    def __init__(self, inner: RedisStore) -> None:
        self._inner = inner
        self.namespace = inner.namespace
        self._logged = -_LOG_EVERY_S

    def with_namespace(self, namespace: str) -> FailOpenStore:
        """The same Redis under ``namespace`` (a child of this store's)."""
        return FailOpenStore(self._inner.with_namespace(namespace))

    def _outage(self, error: Exception) -> None:
        now = time.monotonic()
        if now - self._logged >= _LOG_EVERY_S:
            self._logged = now
            log.warning("Redis unavailable, requests pass uncounted: %s", error)

    async def _tolerant(self, call: Awaitable[T], fallback: T) -> T:
        """What ``call`` returns, or ``fallback`` (the outage logged) when Redis does not answer."""
        try:
            return await call
        except (RedisError, OSError) as error:
            self._outage(error)
            return fallback

    async def get(self, key: str, renew_for: int | timedelta | None = None) -> bytes | None:
        """The stored value, or None when Redis does not answer."""
        return await self._tolerant(self._inner.get(key, renew_for), None)

    async def set(self, key: str, value: str | bytes, expires_in: int | timedelta | None = None) -> None:
        """Store ``value``; dropped when Redis does not answer."""
        await self._tolerant(self._inner.set(key, value, expires_in), None)

    async def delete(self, key: str) -> None:
        """Delete ``key`` (nothing when Redis does not answer)."""
        await self._tolerant(self._inner.delete(key), None)

    async def delete_all(self) -> None:
        """Delete every key of this namespace."""
        await self._inner.delete_all()

    async def exists(self, key: str) -> bool:
        """Whether ``key`` is stored (False when Redis does not answer)."""
        return await self._tolerant(self._inner.exists(key), False)

    async def expires_in(self, key: str) -> int | None:
        """Seconds until ``key`` expires (None when Redis does not answer)."""
        return await self._tolerant(self._inner.expires_in(key), None)

    async def __aexit__(self, *args: object) -> None:
        await self._inner.__aexit__(*args)  # type: ignore[arg-type]


def redis_store(url: str, namespace: str) -> FailOpenStore:
    """The root store of every counter under ``namespace``; the app closes its client on shutdown."""
    return FailOpenStore(RedisStore(redis_client(url), namespace=namespace, handle_client_shutdown=True))
