"""Login and registration attempts, throttled per client address and per email (CONTRACT 4.5).

Both keys are counted whatever ``Authorization`` header the request carries, so no token, real or
made up, buys more guesses. Counters live in a Litestar ``Store`` (``ratelimit.counter_stores``).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import anyio
from litestar import Request
from litestar.exceptions import TooManyRequestsException
from litestar.middleware.rate_limit import get_remote_address
from litestar.stores.base import Store
from litestar.stores.memory import MemoryStore

#: Name of the store of these counters in the application's store registry.
AUTH_THROTTLE_STORE = "auth_throttle"
#: Key of the application's :class:`Throttle` in its state.
THROTTLE_STATE = "auth_throttle"


class Throttle:
    """At most ``limit`` attempts per key in each fixed window of ``window`` seconds; 0 is no limit.

    Within a process the count-and-check is serialized. Processes sharing a store (the store API
    has no atomic increment) may each let one racing attempt through uncounted.
    """

    def __init__(self, limit: int, window: int = 60, clock: Callable[[], float] = time.time) -> None:
        self.limit = limit
        self.window = window
        self._clock = clock
        self._lock = anyio.Lock()
        self._swept = -1

    async def attempt(self, store: Store, keys: Sequence[str]) -> None:
        """Count one attempt against every key; 429 (nothing counted) when any has none left."""
        if self.limit <= 0:
            return
        now = self._clock()
        window = int(now // self.window)
        left = max(1, math.ceil((window + 1) * self.window - now))
        counters = [f"{key}@{window}" for key in keys]
        async with self._lock:
            counts = [int(await store.get(counter) or 0) for counter in counters]
            if any(count >= self.limit for count in counts):
                raise TooManyRequestsException(headers={"Retry-After": str(left)})
            for counter, count in zip(counters, counts, strict=True):
                await store.set(counter, str(count + 1), expires_in=left)
            if window != self._swept and isinstance(store, MemoryStore):
                self._swept = window
                await store.delete_expired()  # the past windows' counters of callers never seen again


async def count_attempt(request: Request[Any, Any, Any], action: str, email: str) -> None:
    """Count a ``login`` or ``register`` attempt for ``email`` from the request's address (or 429)."""
    throttle: Throttle = request.app.state[THROTTLE_STATE]
    digest = hashlib.sha256(email.strip().lower().encode()).hexdigest()[:32]  # no addresses in the store
    keys = [f"{action}:address:{get_remote_address(request)}", f"{action}:email:{digest}"]
    await throttle.attempt(request.app.stores.get(AUTH_THROTTLE_STORE), keys)
