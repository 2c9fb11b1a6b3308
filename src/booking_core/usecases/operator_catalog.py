"""The venue's catalog over the operator API (CONTRACT 7.5): read it, replace it, create a venue.

A venue travels in the catalog file's shape and is checked and upserted by the same code as
``booking catalog load`` (the :class:`~booking_core.ports.CatalogFiles` port). Bookings are never
changed by it: the answer lists the live bookings that the new opening hours or blocks leave
misplaced, for staff to move or cancel. Each created or updated venue and resource gets an audit
entry in the transaction of the upsert.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from booking_core.audit import AuditAction
from booking_core.catalog import Resource
from booking_core.errors import BadRequest, NotFound
from booking_core.ports import CatalogChange, CatalogFiles, CatalogUpsert, UnitOfWork
from booking_core.schedule import expand_windows
from booking_core.staff import Action, Staff
from booking_core.timerange import TimeRange, merge
from booking_core.usecases.audit import audit
from booking_core.usecases.deps import Deps
from booking_core.usecases.permissions import VENUE_NOT_FOUND, require
from booking_core.usecases.views import OpBookingView, op_booking_views

#: How far ahead misplaced bookings are looked for: beyond any advance window a catalog allows.
CONFLICT_HORIZON = timedelta(days=5 * 366)


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogSaved:
    """What saving a venue's catalog did: the objects created and updated, by label
    (``venue center-court``, ``resource Court 1``), and the live bookings now misplaced."""

    venue_id: int
    created: tuple[str, ...]
    updated: tuple[str, ...]
    conflicts: list[OpBookingView]


def _files(deps: Deps) -> CatalogFiles:
    if deps.catalog is None:
        raise RuntimeError("no catalog adapter is wired (Deps.catalog)")
    return deps.catalog


def venue_catalog(deps: Deps, staff: Staff | None, venue_id: int) -> Mapping[str, Any]:
    """The venue in the catalog file's shape (its own unavailable periods, not staff blocks)."""
    require(staff, Action.VIEW, venue_id)
    with deps.read() as uow:
        document = _files(deps).venue_document(uow, venue_id)
    if document is None:
        raise NotFound(VENUE_NOT_FOUND)
    return document


def replace_venue_catalog(deps: Deps, staff: Staff | None, venue_id: int, document: object) -> CatalogSaved:
    """Check ``document`` whole, then upsert it over the venue; nothing is written when it is refused.

    Raises:
        BadRequest: a bad key (its path first), or a ``slug`` other than the venue's.
    """
    require(staff, Action.MANAGE_VENUE, venue_id)
    files = _files(deps)
    checked = files.check_venue(document)
    now = deps.clock.now()
    with deps.uow() as uow:
        venue = uow.resources.get_venue(venue_id)
        if venue is None:
            raise NotFound(VENUE_NOT_FOUND)
        if checked.slug != venue.slug:
            raise BadRequest(f"slug: must be the venue's own slug {venue.slug!r} (a slug cannot change)")
        saved = _save(deps, uow, staff, files.upsert_venue(uow, checked, now), now)
        uow.commit()
    return saved


def create_venue(deps: Deps, staff: Staff | None, document: object) -> CatalogSaved:
    """Create a venue from ``document`` (admin); a slug in use is refused, naming ``slug``."""
    require(staff, Action.ADMINISTER)
    files = _files(deps)
    checked = files.check_venue(document)
    now = deps.clock.now()
    with deps.uow() as uow:
        if any(v.slug == checked.slug for v in uow.resources.venues()):
            raise BadRequest(f"slug: a venue with slug {checked.slug!r} exists already")
        saved = _save(deps, uow, staff, files.upsert_venue(uow, checked, now), now)
        uow.commit()
    return saved


def _save(
    deps: Deps, uow: UnitOfWork, staff: Staff | None, done: CatalogUpsert, now: datetime
) -> CatalogSaved:
    record_catalog_changes(deps, uow, staff, done.changes, done.report)
    return CatalogSaved(
        venue_id=done.venue_id,
        created=tuple(c.label for c in done.changes if c.created),
        updated=tuple(c.label for c in done.changes if not c.created),
        conflicts=misplaced_bookings(uow, done.venue_id, now),
    )


def record_catalog_changes(
    deps: Deps, uow: UnitOfWork, staff: Staff | None, changes: Sequence[CatalogChange], report: Sequence[str]
) -> None:
    """One audit entry per venue and resource a catalog upsert created or updated, in its ``uow``
    (``venue.create`` for a new venue, ``venue.update`` otherwise); ``staff`` None is the command
    line's ``booking catalog load``."""
    for change in changes:
        created_venue = change.kind == "venue" and change.created
        audit(
            deps,
            uow,
            staff,
            AuditAction.VENUE_CREATE if created_venue else AuditAction.VENUE_UPDATE,
            venue_id=change.venue_id,
            object_type=change.kind,
            object_id=str(change.object_id),
            details={
                "name": change.name,
                "change": "created" if change.created else "updated",
                "report": list(report),
            },
        )


def misplaced_bookings(uow: UnitOfWork, venue_id: int, now: datetime) -> list[OpBookingView]:
    """Live bookings (pending with a live hold, confirmed, paid) of the venue from ``now`` on that lie
    outside its opening hours or overlap an unavailable period (a catalog or a staff block)."""
    horizon = TimeRange(now, now + CONFLICT_HORIZON)
    found: list[str] = []
    for resource in uow.resources.for_venue(venue_id):
        for slot in uow.bookings.blocked_slots(resource.id, horizon, now):
            if slot.end > now and misplaced(resource, slot.span):
                found.append(slot.booking_id)
    bookings = [b for b in map(uow.bookings.get, found) if b is not None]
    bookings.sort(key=lambda b: (b.start, b.id))
    return op_booking_views(uow, bookings, now)


def misplaced(resource: Resource, span: TimeRange) -> bool:
    """Whether ``span`` lies outside the resource's bookable windows or in one of its closures."""
    tz = resource.tz
    windows = expand_windows(resource, span.start.astimezone(tz).date(), span.end.astimezone(tz).date())
    inside = any(block.contains(span) for block in merge(w.range for w in windows))
    return not inside or any(p.range.overlaps(span) for p in resource.unavailable_periods)
