"""The availability reads over the in-memory repositories."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from datetime import datetime

from booking_core.availability import BookedSlot
from booking_core.catalog import Resource
from booking_core.memory.repositories import InMemoryBookings, InMemoryResources
from booking_core.ports import DataVersion
from booking_core.timerange import TimeRange


class InMemoryAvailabilityReads:
    """What availability reads, from the unit of work's tables; the version is the store's commit
    count: coarser than the databases' per-resource counter, still exact."""

    def __init__(
        self, resources: InMemoryResources, bookings: InMemoryBookings, generation: Callable[[], int]
    ) -> None:
        self._resources = resources
        self._bookings = bookings
        self._generation = generation

    def version(self, resource_id: int) -> DataVersion | None:
        return (self._generation(),)

    def resource(self, resource_id: int) -> Resource | None:
        return self._resources.get(resource_id)

    def blocked_slots(self, resource_id: int, span: TimeRange, now: datetime) -> builtins.list[BookedSlot]:
        return self._bookings.blocked_slots(resource_id, span, now)

    def live_spans(self, resource_id: int, span: TimeRange) -> builtins.list[TimeRange]:
        return self._bookings.live_spans(resource_id, span)
