"""Blocks in the ``unavailable_periods`` table, beside the catalog's periods (``source`` tells them apart)."""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import select
from sqlalchemy.orm import Session

from adapters.sqla import driver
from adapters.sqla.catalog_cache import bump_catalog_revision
from adapters.sqla.errors import translate_errors
from adapters.sqla.models import UnavailablePeriodRow
from adapters.sqla.repositories.bookings.postgres import LOCK_RESOURCE
from adapters.sqla.repositories.catalog import period_to_domain
from adapters.sqla.types import int64
from booking_core.catalog import UnavailablePeriod


@translate_errors
class SqlaBlocks:
    """:class:`~booking_core.ports.Blocks` on one session. Every change is an ORM change of a catalog
    row, so it moves the catalog revision the resource caches compare against
    (``catalog_cache``): a block shows in every process's next read."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def lock(self, resource_ids: Collection[int]) -> None:
        # the revision's row first, as a catalog load takes it before any resource row
        bump_catalog_revision(self._session)
        if self._session.get_bind().dialect.name == "sqlite":
            return  # BEGIN IMMEDIATE already excludes every other writer
        for resource_id in sorted(set(resource_ids)):  # one order: two blocks never deadlock
            driver.run(self._session, LOCK_RESOURCE, {"resource_id": resource_id})

    def add(self, block: UnavailablePeriod) -> UnavailablePeriod:
        row = UnavailablePeriodRow(
            resource_id=block.resource_id,
            start_at=block.start,
            end_at=block.end,
            reason=block.reason.value,
            note=block.note,
            source=block.source.value,
            created_by=block.created_by,
            created_at=block.created_at,
        )
        self._session.add(row)
        self._session.flush()
        return period_to_domain(row)

    def get(self, block_id: int) -> UnavailablePeriod | None:
        row = self._row(block_id)
        return period_to_domain(row) if row is not None else None

    def delete(self, block_id: int) -> None:
        row = self._row(block_id)
        if row is not None:
            self._session.delete(row)
            self._session.flush()

    def _row(self, block_id: int) -> UnavailablePeriodRow | None:
        stmt = select(UnavailablePeriodRow).where(UnavailablePeriodRow.id == int64(block_id))
        return self._session.scalars(stmt).one_or_none()
