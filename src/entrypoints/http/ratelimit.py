"""Per-caller rate limiting (CONTRACT 2 and 4.2): every request counted once, before it is served.

A request whose token was found valid lately (by any process, when the counters are shared through
Redis) is counted on the token's key. Any other request, anonymous or with a token not known to be
valid, real or made up, is counted on its client address, so inventing tokens never escapes the
limit. When such a token then proves valid (the guards of ``auth``), the request is counted on the
token's key as well (:func:`count_valid_token`): a token's requests all count on its key, in every
process and from its first request. Counting is atomic (``counters``), so a concurrent burst of N
plus some requests is served exactly N. Health and metrics are never limited, so probes and
scrapers keep working under load.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from litestar.connection import ASGIConnection
from litestar.enums import ScopeType
from litestar.exceptions import TooManyRequestsException
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

from entrypoints.http.counters import Counters, MemoryCounters, token_digest

UNLIMITED_PATHS = ("^/health/?$", "^/metrics/?$")
#: Route handlers with this key set in their ``opt`` are not limited either.
UNLIMITED_OPT_KEY = "skip_rate_limit"
#: Key of the application's :class:`RateLimit` in its state.
RATE_LIMIT_STATE = "rate_limit"
#: Request state: the digest of a token the request was not counted on yet (it was not known valid).
_UNCOUNTED_TOKEN = "rate_limit_uncounted_token"  # noqa: S105 - a state key, not a credential
WINDOW_S = 60


def request_counters(redis_url: str | None = None, namespace: str = "booking") -> Counters:
    """The counters of every limit: in this process's memory, or in Redis when ``redis_url`` is set."""
    if redis_url is None:
        return MemoryCounters()
    from entrypoints.http.shared_counters import redis_counters  # only deployments with Redis import it

    return redis_counters(redis_url, namespace)


@dataclass(frozen=True, slots=True)
class RateLimit:
    """``per_minute`` requests per caller (0: no limit), counted in ``counters``."""

    per_minute: int
    counters: Counters

    async def count_request(self, scope: Scope) -> None:
        """Count the request on its known token or its address; 429 past the limit."""
        token = _token(scope)
        digest = None if token is None else token_digest(token)
        client = scope.get("client")
        address = f"rate:address:{client[0] if client else 'unknown'}"
        hit, on_token = await self.counters.count_caller(digest, address, self.per_minute, WINDOW_S)
        if not hit.passed:
            raise TooManyRequestsException(headers={"Retry-After": str(hit.retry_after)})
        if digest is not None and not on_token:
            scope.setdefault("state", {})[_UNCOUNTED_TOKEN] = digest

    async def count_valid_token(self, scope: Scope) -> None:
        """Count the request on its token's key too, if the token was not known valid; 429 past the limit."""
        digest = scope.get("state", {}).pop(_UNCOUNTED_TOKEN, None)
        if digest is None:
            return
        hit = await self.counters.count_valid_token(digest, self.per_minute, WINDOW_S)
        if not hit.passed:
            raise TooManyRequestsException(headers={"Retry-After": str(hit.retry_after)})


def _token(scope: Scope) -> str | None:
    """The token of an ``Authorization: Token <t>`` header, read straight from the raw headers."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").strip().partition(" ")
            token = token.strip()
            return token if scheme.lower() == "token" and token else None
    return None


class RateLimitMiddleware(ASGIMiddleware):
    """Counts every request but those of :data:`UNLIMITED_PATHS` before it is routed to its handler."""

    scopes = (ScopeType.HTTP,)
    exclude_path_pattern = UNLIMITED_PATHS
    exclude_opt_key = UNLIMITED_OPT_KEY

    def __init__(self, limit: RateLimit) -> None:
        self.limit = limit

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        """Count the request, then pass it on (or refuse it with 429)."""
        await self.limit.count_request(scope)
        await next_app(scope, receive, send)


def rate_limit(connection: ASGIConnection[Any, Any, Any, Any]) -> RateLimit:
    """The application's :class:`RateLimit`."""
    limit: RateLimit = connection.app.state[RATE_LIMIT_STATE]
    return limit


def rate_limit_middleware(limit: RateLimit) -> list[RateLimitMiddleware]:
    """The middleware enforcing ``limit``; none when its limit is 0 (off)."""
    return [RateLimitMiddleware(limit)] if limit.per_minute > 0 else []


async def count_valid_token(connection: ASGIConnection[Any, Any, Any, Any]) -> None:
    """For the guards, once the request's token was found valid: see :meth:`RateLimit.count_valid_token`."""
    await rate_limit(connection).count_valid_token(connection.scope)


async def forget_token(connection: ASGIConnection[Any, Any, Any, Any], token: str) -> None:
    """Count ``token`` on its address again from now on (it was revoked)."""
    await rate_limit(connection).counters.forget_token(token_digest(token))
