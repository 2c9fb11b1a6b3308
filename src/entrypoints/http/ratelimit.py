"""Per-caller rate limiting with Litestar's own middleware, and the stores of every counter.

A request is counted against its token only once this process has found the token valid
(:class:`KnownTokens`); any other request, anonymous or with an unknown or made-up token, is
counted against its client address, so inventing tokens never escapes the limit. Health and
metrics are never limited, so probes and scrapers keep working under load.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from litestar.connection import ASGIConnection, Request
from litestar.middleware.base import DefineMiddleware
from litestar.middleware.rate_limit import RateLimitConfig, get_remote_address
from litestar.stores.memory import MemoryStore
from litestar.stores.registry import StoreRegistry

from entrypoints.http.throttle import AUTH_THROTTLE_STORE

UNLIMITED_PATHS = ["^/health/?$", "^/metrics/?$"]
#: Route handlers with this key set in their ``opt`` are not limited either.
UNLIMITED_OPT_KEY = "skip_rate_limit"
#: Litestar's name of the rate-limit middleware's store.
RATE_LIMIT_STORE = "rate_limit"
#: Key of the application's :class:`KnownTokens` in its state.
KNOWN_TOKENS_STATE = "known_tokens"


def counter_stores(redis_url: str | None = None, namespace: str = "booking") -> StoreRegistry:
    """The stores of every request counter: the rate limit's and the login throttle's.

    In memory, each process counts on its own. With ``redis_url`` (``BOOKING_REDIS_URL``) they live
    in Redis under ``namespace`` and every process on every machine shares them; nothing else changes.
    """
    if redis_url is None:
        return StoreRegistry({RATE_LIMIT_STORE: MemoryStore(), AUTH_THROTTLE_STORE: MemoryStore()})
    from entrypoints.http.shared_counters import redis_store  # only deployments with Redis import it

    root = redis_store(redis_url, namespace)
    return StoreRegistry(
        {name: root.with_namespace(name) for name in (RATE_LIMIT_STORE, AUTH_THROTTLE_STORE)}
    )


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class KnownTokens:
    """Tokens this process found valid lately (as hashes), at most ``size``, each for ``ttl`` seconds.

    Forgetting them after a while makes a revoked token count against its address again soon.
    """

    def __init__(self, size: int = 10_000, ttl: float = 300.0, clock: Callable[[], float] = time.monotonic):
        self._size, self._ttl, self._clock = size, ttl, clock
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()  # the guards run in the event loop, token checks in threads

    def add(self, token: str) -> None:
        """Remember that ``token`` was just found valid."""
        digest = _digest(token)
        with self._lock:
            self._seen[digest] = self._clock()
            self._seen.move_to_end(digest)
            while len(self._seen) > self._size:
                self._seen.popitem(last=False)

    def discard(self, token: str) -> None:
        """Forget ``token`` (it was revoked)."""
        with self._lock:
            self._seen.pop(_digest(token), None)

    def digest_if_known(self, token: str) -> str | None:
        """The hash ``token`` is remembered by, if it was found valid lately; None otherwise."""
        digest = _digest(token)
        with self._lock:
            seen = self._seen.get(digest)
        return digest if seen is not None and self._clock() - seen < self._ttl else None


def known_tokens(connection: ASGIConnection[Any, Any, Any, Any]) -> KnownTokens:
    """The application's :class:`KnownTokens`."""
    tokens: KnownTokens = connection.app.state[KNOWN_TOKENS_STATE]
    return tokens


def caller_key(request: Request[Any, Any, Any]) -> str:
    """The request's token if this process knows it to be valid, else its client address."""
    scheme, _, token = (request.headers.get("authorization") or "").strip().partition(" ")
    token = token.strip()
    digest = known_tokens(request).digest_if_known(token) if scheme.lower() == "token" and token else None
    return "token:" + digest[:32] if digest is not None else "addr:" + get_remote_address(request)


def rate_limit_middleware(per_minute: int) -> list[DefineMiddleware]:
    """The middleware for ``per_minute`` requests per caller; none when the limit is 0 (off)."""
    if per_minute <= 0:
        return []
    config = RateLimitConfig(
        rate_limit=("minute", per_minute),
        exclude=UNLIMITED_PATHS,
        exclude_opt_key=UNLIMITED_OPT_KEY,
        identifier_for_request=caller_key,
        store=RATE_LIMIT_STORE,
    )
    return [config.middleware]
