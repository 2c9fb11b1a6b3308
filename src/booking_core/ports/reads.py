"""Read ports: what availability is computed from, and the catalog revision a unit of work sees.

Availability is the one read that is asked far more often than its data changes, so its port comes
with a version: a stamp read *before* the data, which moves with every change of the resource's
catalog entry or bookings. An answer computed from the data can then be reused, exactly, for as
long as the version stays where it was (the web layer's response cache does).
"""

from __future__ import annotations

import builtins
from datetime import datetime
from typing import Protocol

from booking_core.availability import BookedSlot
from booking_core.catalog import Resource
from booking_core.timerange import TimeRange

#: An opaque stamp of a resource's data (see :meth:`AvailabilityReads.version`); compare with ``==``.
DataVersion = tuple[int, ...]


class AvailabilityReads(Protocol):
    """The reads availability is computed from, in one unit of work."""

    def version(self, resource_id: int) -> DataVersion | None:
        """A stamp that changes whenever the catalog or any booking of the resource changes.

        Read it before the data it stands for: what is read afterwards is then at least as new.
        None when the storage cannot tell, in which case nothing may be reused.
        """

    def resource(self, resource_id: int) -> Resource | None:
        """The resource with its venue, schedules and unavailable periods."""

    def blocked_slots(self, resource_id: int, span: TimeRange, now: datetime) -> builtins.list[BookedSlot]:
        """Id and time of the resource's bookings overlapping ``span`` that block time at ``now``."""

    def live_spans(self, resource_id: int, span: TimeRange) -> builtins.list[TimeRange]:
        """The time of the resource's ``confirmed`` and ``paid`` bookings overlapping ``span``: what
        the demand level counts."""


class DataVersions(Protocol):
    """A resource's data version read outside any unit of work, on the caller's event loop.

    For a cache in front of the availability reads: it asks this first and runs the read only when
    it holds nothing at that version. Reads what :meth:`AvailabilityReads.version` reads.
    """

    async def start(self) -> None:
        """Called once, on the event loop that will ask (open connections, say)."""

    async def stop(self) -> None:
        """Called once when done (close them)."""

    async def version(self, resource_id: int) -> DataVersion | None:
        """The resource's data version; None when it cannot tell (the full read then answers)."""


class CatalogRevision(Protocol):
    """The revision of the whole catalog, which every catalog write moves."""

    def catalog_revision(self) -> int | None:
        """The revision as this unit of work sees it: read once, on its own, when first asked, and
        read again after the unit of work writes the catalog. None when the storage cannot tell
        (nothing may then be cached against it)."""
