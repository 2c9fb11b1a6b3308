"""Availability answers kept encoded per process, served while they stay exact.

The two availability routes are asked far more often than their data changes. Each answer is kept as
its encoded JSON under (route, resource, dates), with the :class:`~booking_core.usecases.browse.Validity`
the use case gave it: the resource's data version it was computed at and the instant time alone
changes it. A request first asks :class:`~booking_core.ports.DataVersions` for the current version
on the event loop (on PostgreSQL the psycopg pool of ``adapters.sqla.version_probe``: no handler
thread, docs/performance.md has the figures) and is answered from here when the entry holds at that
version; anything else runs the use case on a handler thread, which reads the version again, so what
is stored is stamped with what it read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any, NamedTuple, cast

from litestar import Request
from litestar.concurrency import sync_to_thread

from booking_core.errors import StorageUnavailable
from booking_core.ports import Clock, DataVersion, DataVersions
from booking_core.usecases import browse
from booking_core.usecases.deps import Deps
from booking_core.viewcache import VersionedCache

#: Where the application keeps its :class:`AvailabilityAnswers` in its state (a dependency of its
#: own would cost the route a task group per request, as Litestar resolves two concurrently).
ANSWERS_STATE = "availability_answers"


class AnswerKey(NamedTuple):
    """What an answer is kept under; the version is checked on the way out."""

    route: str
    resource_id: int
    start_date: date
    end_date: date


@dataclass(frozen=True, slots=True)
class Encoded:
    """An answer as sent, and how long it holds (None: not to be kept)."""

    body: bytes
    validity: browse.Validity | None


class AvailabilityAnswers:
    """Encoded availability answers by :class:`AnswerKey`, each served only at its data version."""

    def __init__(self, versions: DataVersions, clock: Clock, cache: VersionedCache | None = None) -> None:
        self.versions = versions
        self._clock = clock
        self._cache = cache or VersionedCache()

    async def answer(self, key: AnswerKey, compute: Callable[[], Encoded]) -> bytes:
        """The kept answer if it holds at the resource's current version; else ``compute`` on a
        handler thread (its answer kept when it says how long it holds)."""
        version = await self.versions.version(key.resource_id)
        if version is not None:
            kept = self._cache.get(key, version, self._clock.now())
            if kept is not None:
                return cast(bytes, kept)
        fresh = await sync_to_thread(compute)
        if fresh.validity is not None:
            self._cache.put(key, fresh.validity.version, fresh.validity.until, fresh.body)
        return fresh.body

    def __len__(self) -> int:
        return len(self._cache)


class ThreadedVersions:
    """:class:`~booking_core.ports.DataVersions` where the storage has no async driver (SQLite): the
    version read through the use case, on a handler thread."""

    def __init__(self, deps: Deps) -> None:
        self._deps = deps

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def version(self, resource_id: int) -> DataVersion | None:
        try:
            return await sync_to_thread(browse.availability_version, self._deps, resource_id)
        except StorageUnavailable:  # the full read then reports it, as every route does
            return None


def answers_of(request: Request[Any, Any, Any]) -> AvailabilityAnswers:
    """The application's availability answers (kept in its state)."""
    return cast(AvailabilityAnswers, request.app.state[ANSWERS_STATE])
