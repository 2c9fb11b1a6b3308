"""Storage of blocks: closed time staff place on resources (CONTRACT 7.3)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol

from booking_core.catalog import UnavailablePeriod


class Blocks(Protocol):
    """Blocks are unavailable periods of ``source`` ``staff``; resources carry them (with the
    catalog's) in :attr:`~booking_core.catalog.Resource.unavailable_periods`, where they are read.

    Storing or deleting one changes the catalog as the storage's caches see it, in the same
    transaction, so that every availability answer after the commit, in any process, reflects it.
    """

    def lock(self, resource_ids: Collection[int]) -> None:
        """Hold the resources exclusively until the unit of work ends, so that what is read of
        their bookings afterwards stays true until the blocks are stored.

        A booking of these resources stored, moved onto them or made live again meanwhile waits
        for this unit of work and then meets its blocks (the storage refuses a booking over
        closed time, :class:`~booking_core.errors.SlotUnavailable`); one that got there first is
        committed before the lock is granted, and seen. The catalog is marked changed first,
        where a catalog load marks it, so that the two never wait for each other.
        """

    def add(self, block: UnavailablePeriod) -> UnavailablePeriod:
        """Store a new block of ``block.resource_id``; returns it with its id."""

    def get(self, block_id: int) -> UnavailablePeriod | None:
        """One unavailable period (a block, or a catalog period) by id."""

    def delete(self, block_id: int) -> None:
        """Remove one unavailable period."""
