"""Data versions read without a handler thread, for the cached availability reads.

The routes ask a :class:`VersionProbe` for the resource's data version on the event loop and serve
the use case's remembered answer when it holds at that version; anything else runs the use case on a
handler thread (``adapters.sqla.version_probe`` has the why and the figures).
"""

from __future__ import annotations

from typing import Any, Protocol, cast

from litestar import Request

from booking_core.ports import DataVersion

#: Where the application's probe is kept in its state (one per application, see ``create_app``).
VERSIONS_STATE = "version_probe"


class VersionProbe(Protocol):
    """Reads a resource's data version on the event loop; None when it cannot tell."""

    async def start(self) -> None:
        """Called when the application starts, on its event loop."""

    async def stop(self) -> None:
        """Called when the application stops."""

    async def data_version(self, resource_id: int) -> DataVersion | None:
        """The version, as ``Resources.data_version`` reads it; None sends the read the whole way."""


class NoProbe:
    """Where the storage has no async driver (SQLite): every read runs the use case."""

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def data_version(self, resource_id: int) -> DataVersion | None:
        return None


def probe_of(request: Request[Any, Any, Any]) -> VersionProbe:
    """The application's probe (taken from its state: a dependency of its own would cost the route
    a task group per request, as Litestar resolves two dependencies concurrently)."""
    return cast(VersionProbe, request.app.state[VERSIONS_STATE])
