"""Blocks in memory: kept on the resources' unavailable periods, where availability reads them."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from booking_core.catalog import Resource, UnavailablePeriod


class InMemoryBlocks:
    """Blocks of the in-memory catalog (the store's lock already serializes whole units of work)."""

    def __init__(self, resources: dict[int, Resource]) -> None:
        self._resources = resources

    def lock(self, resource_ids: Collection[int]) -> None:
        """Nothing to lock: the store's lock serializes whole units of work."""

    def add(self, block: UnavailablePeriod) -> UnavailablePeriod:
        if block.resource_id is None or block.resource_id not in self._resources:
            raise ValueError(f"no resource {block.resource_id}")
        ids = [p.id or 0 for r in self._resources.values() for p in r.unavailable_periods]
        stored = replace(block, id=max(ids, default=0) + 1)
        resource = self._resources[block.resource_id]
        periods = sorted((*resource.unavailable_periods, stored), key=lambda p: p.start)
        self._resources[resource.id] = replace(resource, unavailable_periods=tuple(periods))
        return stored

    def get(self, block_id: int) -> UnavailablePeriod | None:
        return next(
            (p for r in self._resources.values() for p in r.unavailable_periods if p.id == block_id), None
        )

    def delete(self, block_id: int) -> None:
        for resource in list(self._resources.values()):
            kept = tuple(p for p in resource.unavailable_periods if p.id != block_id)
            if len(kept) != len(resource.unavailable_periods):
                self._resources[resource.id] = replace(resource, unavailable_periods=kept)
