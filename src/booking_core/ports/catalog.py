"""The catalog file's shape (CONTRACT section 3) for one venue, as the operator API reads and writes it.

The catalog file is the adapters' business (its schema, its messages, its upsert): the core asks for a
venue as a document, has a document checked, and has a checked one upserted in the caller's unit of
work, so that the audit entries and the conflicts it reads afterwards share the write's transaction.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from booking_core.ports.unit_of_work import UnitOfWork


class CheckedVenue(Protocol):
    """A venue document that passed the catalog's checks, ready to upsert."""

    @property
    def slug(self) -> str:
        """The venue's slug, its key in the catalog."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogChange:
    """One object an upsert created or updated: ``kind`` is ``venue`` or ``resource``, of the venue
    ``venue_id``."""

    venue_id: int
    kind: str
    name: str
    object_id: int
    created: bool

    @property
    def label(self) -> str:
        """What partners read: ``venue center-court``, ``resource Court 1``."""
        return f"{self.kind} {self.name}"


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogUpsert:
    """What an upsert of one venue did: the venue's id, the objects it changed, and the catalog load's
    report lines (``resources: 0 created, 1 updated, 2 unchanged``)."""

    venue_id: int
    changes: tuple[CatalogChange, ...]
    report: tuple[str, ...]


class CatalogFiles(Protocol):
    """Venues in the catalog file's shape: read, checked exactly as ``booking catalog load`` checks a
    file, and upserted the same way."""

    def venue_document(self, uow: UnitOfWork, venue_id: int) -> Mapping[str, Any] | None:
        """The venue as the catalog file holds it (JSON values), read in ``uow``; None when missing.

        Its ``unavailable_periods`` are the catalog's own (staff blocks are not part of it).
        """

    def check_venue(self, document: object) -> CheckedVenue:
        """The checked venue of ``document`` (one entry of the file's ``venues``).

        Raises:
            BadRequest: the message starts with the path of the first bad key, relative to the document
                (``resources[1].booking_interval_minutes: must be a positive integer``).
        """

    def upsert_venue(self, uow: UnitOfWork, venue: CheckedVenue, now: datetime) -> CatalogUpsert:
        """Upsert ``venue`` (its resources, schedules and catalog periods) in ``uow``; nothing is
        committed. Venues match by slug, resources by (venue, name), as the catalog load does."""
