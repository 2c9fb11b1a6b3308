"""Per-caller rate limiting with Litestar's own middleware.

A request with an ``Authorization`` header is counted against its token (hashed, so the store never
holds a credential); an anonymous one against its client address. Health and metrics are never
limited, so probes and scrapers keep working under load.
"""

from __future__ import annotations

import hashlib
from typing import Any

from litestar.connection import Request
from litestar.middleware.base import DefineMiddleware
from litestar.middleware.rate_limit import RateLimitConfig, get_remote_address

UNLIMITED_PATHS = ["^/health/?$", "^/metrics/?$"]
#: Route handlers with this key set in their ``opt`` are not limited either.
UNLIMITED_OPT_KEY = "skip_rate_limit"


def caller_key(request: Request[Any, Any, Any]) -> str:
    """The token behind the request if it sends one, else its client address."""
    authorization = request.headers.get("authorization")
    if authorization:
        return "token:" + hashlib.sha256(authorization.strip().encode()).hexdigest()[:32]
    return "addr:" + get_remote_address(request)


def rate_limit_middleware(per_minute: int) -> list[DefineMiddleware]:
    """The middleware for ``per_minute`` requests per caller; none when the limit is 0 (off)."""
    if per_minute <= 0:
        return []
    config = RateLimitConfig(
        rate_limit=("minute", per_minute),
        exclude=UNLIMITED_PATHS,
        exclude_opt_key=UNLIMITED_OPT_KEY,
        identifier_for_request=caller_key,
    )
    return [config.middleware]
