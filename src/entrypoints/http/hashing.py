"""Password work (registration, login) on a few threads of its own.

An Argon2 hash takes a fraction of a second of CPU and 64 MiB of memory. Run on the threads that
serve every other request, a storm of logins took them all and browsing stalled for its duration.
Here at most ``slots`` such calls run at once (by default half the CPUs, at least one), the others
wait in the event loop without holding a thread, and the shared threads stay free for the rest.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from anyio import CapacityLimiter
from anyio.to_thread import run_sync
from litestar.connection import ASGIConnection

T = TypeVar("T")


def default_slots() -> int:
    """Half the machine's CPUs, at least one."""
    return max(1, (os.cpu_count() or 1) // 2)


class HashingPool:
    """Runs password-hashing use cases in worker threads, at most ``slots`` at a time."""

    def __init__(self, slots: int | None = None) -> None:
        self.slots = slots or default_slots()
        self._limiter: CapacityLimiter | None = None  # made in the event loop, at first use

    @property
    def busy(self) -> int:
        """How many slots are running a call now."""
        return 0 if self._limiter is None else int(self._limiter.borrowed_tokens)

    async def run(self, func: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """``func(*args, **kwargs)`` in a worker thread once a slot is free."""
        if self._limiter is None:
            self._limiter = CapacityLimiter(self.slots)
        return await run_sync(partial(func, *args, **kwargs), limiter=self._limiter)


#: Key of the application's :class:`HashingPool` in its state.
HASHING_STATE = "hashing_pool"


def hashing_pool(connection: ASGIConnection[Any, Any, Any, Any]) -> HashingPool:
    """The application's :class:`HashingPool`."""
    pool: HashingPool = connection.app.state[HASHING_STATE]
    return pool
