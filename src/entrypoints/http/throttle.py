"""Login and registration attempts, throttled per client address and per email (CONTRACT 4.5).

Both keys are counted whatever ``Authorization`` header the request carries, so no token, real or
made up, buys more guesses. They are checked and counted in one atomic step (``counters``), so a
burst of concurrent guesses gets exactly ``limit`` answers, also across processes sharing Redis.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from litestar import Request
from litestar.exceptions import TooManyRequestsException

from entrypoints.http.counters import Counters

#: Key of the application's :class:`Throttle` in its state.
THROTTLE_STATE = "auth_throttle"


class Throttle:
    """At most ``limit`` attempts per key in each window of ``window`` seconds; 0 is no limit."""

    def __init__(self, limit: int, counters: Counters, window: int = 60) -> None:
        self.limit = limit
        self.window = window
        self.counters = counters

    async def attempt(self, keys: Sequence[str]) -> None:
        """Count one attempt against every key; 429 (nothing counted) when any has none left."""
        if self.limit <= 0:
            return
        hit = await self.counters.count(keys, self.limit, self.window)
        if not hit.passed:
            raise TooManyRequestsException(headers={"Retry-After": str(hit.retry_after)})


async def count_attempt(request: Request[Any, Any, Any], action: str, email: str) -> None:
    """Count a ``login`` or ``register`` attempt for ``email`` from the request's address (or 429)."""
    throttle: Throttle = request.app.state[THROTTLE_STATE]
    digest = hashlib.sha256(email.strip().lower().encode()).hexdigest()[:32]  # no addresses in the store
    address = request.client.host if request.client else "unknown"
    await throttle.attempt([f"{action}:address:{address}", f"{action}:email:{digest}"])
