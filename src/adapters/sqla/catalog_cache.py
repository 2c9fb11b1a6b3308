"""A per-process cache of loaded resources, exact because every catalog write bumps a revision.

Loading a resource with its venue, schedules, time slots and closures takes five queries; the
catalog changes only when the operator loads a catalog file. Each read compares one integer
(``catalog_revision.revision``) instead, and reloads when it moved.
"""

from __future__ import annotations

import threading
from itertools import chain
from typing import Any

from sqlalchemy import event, select, update
from sqlalchemy.orm import Session

from adapters.sqla.models import (
    ActivityTypeRow,
    CatalogRevisionRow,
    ResourceRow,
    ScheduleRow,
    TimeSlotRow,
    UnavailablePeriodRow,
    VenueRow,
)
from booking_core.catalog import Resource

_CATALOG_ROWS = (ActivityTypeRow, ResourceRow, ScheduleRow, TimeSlotRow, UnavailablePeriodRow, VenueRow)


_REVISION_TABLE = CatalogRevisionRow.__table__
_REVISION = select(_REVISION_TABLE.c.revision).where(_REVISION_TABLE.c.id == 1)
#: Where a session keeps its :class:`SqlaCatalogRevision`, for the catalog-write hook below only.
_MEMO = "booking.catalog_revision"
#: Set in a session's info once it changed the catalog (:func:`bump_catalog_revision`).
_WROTE = "booking.catalog_written"


@event.listens_for(Session, "before_flush")
def _bump_catalog_revision(session: Session, _flush_context: Any, _instances: Any) -> None:
    """Any ORM change to a catalog row moves the revision, in the same transaction."""
    if any(isinstance(row, _CATALOG_ROWS) for row in chain(session.new, session.dirty, session.deleted)):
        bump_catalog_revision(session)


def bump_catalog_revision(session: Session) -> None:
    """Move the revision in the session's transaction (which holds its row's lock until it ends).

    From then on the session neither takes resources from the cache nor puts any there: the
    revision it would see is its own, not committed, and an entry stored under it would outlive a
    rollback and be served once another transaction commits that number.
    """
    session.info[_WROTE] = True
    memo = session.info.get(_MEMO)
    if isinstance(memo, SqlaCatalogRevision):
        memo.forget()
    session.execute(update(CatalogRevisionRow).values(revision=CatalogRevisionRow.revision + 1))


class SqlaCatalogRevision:
    """:class:`~booking_core.ports.CatalogRevision` of one session: its own statement the first time
    it is asked, then remembered until the session writes the catalog.

    A page of bookings asks for each booking's resource, and each would otherwise cost the query.
    """

    def __init__(self, session: Session) -> None:
        self._session = session
        self._seen: int | None = None
        session.info[_MEMO] = self  # so that a catalog write in this session makes it read again

    def catalog_revision(self) -> int | None:
        """The current revision, or None where the table is empty or this session changed the
        catalog (nothing may then be cached)."""
        if self._session.info.get(_WROTE):
            return None
        if self._seen is None:
            self._seen = self._session.connection().scalar(_REVISION)
        return self._seen

    def forget(self) -> None:
        """Read the revision again when next asked (the session moved it)."""
        self._seen = None


def revision_subquery() -> Any:
    """The revision as a scalar subquery, to read it in the same statement as something else."""
    return _REVISION.scalar_subquery()


class ResourceCache:
    """Resources by id, each remembered with the catalog revision it was loaded at."""

    def __init__(self) -> None:
        self._entries: dict[int, tuple[int, Resource]] = {}
        self._lock = threading.Lock()

    def get(self, resource_id: int, revision: int) -> Resource | None:
        """The cached resource if it was loaded at ``revision``."""
        entry = self._entries.get(resource_id)
        return entry[1] if entry is not None and entry[0] == revision else None

    def put(self, resource_id: int, revision: int, resource: Resource) -> None:
        """Remember ``resource`` as loaded at ``revision``."""
        with self._lock:
            self._entries[resource_id] = (revision, resource)
