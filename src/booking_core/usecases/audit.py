"""Writing and reading the audit log (CONTRACT 7.6)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from booking_core.audit import AuditAction, AuditActor, AuditEntry, AuditQuery
from booking_core.errors import ValidationFailed
from booking_core.paging import Page, Paged, fetch_page
from booking_core.ports import UnitOfWork
from booking_core.staff import Action, Staff
from booking_core.usecases.deps import Deps
from booking_core.usecases.permissions import require


def audit(
    deps: Deps,
    uow: UnitOfWork,
    staff: Staff | None,
    action: AuditAction,
    *,
    venue_id: int | None,
    object_type: str,
    object_id: str,
    details: Mapping[str, Any] | None = None,
) -> None:
    """Add one entry for one changed object to ``uow``, so it commits exactly with the change.

    ``staff`` None is the command line (the entry's actor is null).
    """
    actor = AuditActor(user_id=staff.user_id, email=staff.user.email) if staff is not None else None
    uow.audit.add(
        AuditEntry(
            id=deps.ids.new_id(),
            at=deps.clock.now(),
            actor=actor,
            action=action,
            venue_id=venue_id,
            object_type=object_type,
            object_id=object_id,
            details=dict(details or {}),
        )
    )


def parse_action(action: str | None) -> AuditAction | None:
    """An audit action name from a query (400 naming ``action`` when unknown)."""
    if not action:
        return None
    try:
        return AuditAction(action)
    except ValueError:
        raise ValidationFailed(f"Unknown action {action!r}.", field="action") from None


def list_audit(
    deps: Deps,
    staff: Staff,
    *,
    venue_id: int | None = None,
    date_from: date | None = None,
    date_to: date | None = None,
    action: str | None = None,
    object_id: str | None = None,
    page: Page | None = None,
) -> Paged[AuditEntry]:
    """One page of the audit log the member of staff may read, newest first.

    ``date_from``/``date_to`` are inclusive dates in UTC. Venue-scoped staff read their venues'
    entries only (another venue reads as not found); an admin reads every entry.
    """
    if venue_id is not None:
        require(staff, Action.VIEW, venue_id)
        venues: frozenset[int] | None = frozenset({venue_id})
    else:
        require(staff, Action.VIEW)
        venues = None if staff.is_admin else staff.venue_ids
    query = AuditQuery(
        venue_ids=venues,
        since=_day_start(date_from),
        until=_day_start(date_to, days_after=True),
        action=parse_action(action),
        object_id=object_id,
    )
    with deps.read() as uow:
        return fetch_page(
            page or Page(), lambda limit, offset: uow.audit.list(query, limit=limit, offset=offset)
        )


def _day_start(day: date | None, *, days_after: bool = False) -> datetime | None:
    """The first instant (UTC) of ``day``, or of the day after it."""
    if day is None:
        return None
    return datetime.combine(day + timedelta(days=1 if days_after else 0), time(0), tzinfo=UTC)
