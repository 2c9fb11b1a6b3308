"""Staff roles and the audit log (``booking_core.ports.staff``)."""

from __future__ import annotations

import builtins
from collections.abc import Collection

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from adapters.sqla.errors import translate_errors
from adapters.sqla.models import AuditRow, StaffRoleRow
from booking_core.audit import AuditAction, AuditActor, AuditEntry, AuditQuery
from booking_core.staff import Role, StaffRole

_ORDER = (StaffRoleRow.user_id, StaffRoleRow.role, func.coalesce(StaffRoleRow.venue_id, 0))


def _role(row: StaffRoleRow) -> StaffRole:
    return StaffRole(
        user_id=row.user_id, role=Role(row.role), venue_id=row.venue_id, created_at=row.created_at
    )


@translate_errors
class SqlaStaffRoles:
    """Roles in ``staff_roles``, one row per (user, role, venue)."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def roles_of(self, user_id: str) -> builtins.list[StaffRole]:
        rows = self._session.scalars(
            select(StaffRoleRow).where(StaffRoleRow.user_id == user_id).order_by(*_ORDER)
        )
        return [_role(row) for row in rows]

    def grant(self, role: StaffRole) -> bool:
        held = select(StaffRoleRow.id).where(
            StaffRoleRow.user_id == role.user_id,
            StaffRoleRow.role == role.role.value,
            func.coalesce(StaffRoleRow.venue_id, 0) == (role.venue_id or 0),
        )
        if self._session.scalar(held) is not None:
            return False
        self._session.add(
            StaffRoleRow(
                user_id=role.user_id, role=role.role.value, venue_id=role.venue_id, created_at=role.created_at
            )
        )
        self._session.flush()
        return True

    def revoke(self, user_id: str, venue_id: int | None = None) -> builtins.list[StaffRole]:
        taken = [r for r in self.roles_of(user_id) if venue_id is None or r.venue_id == venue_id]
        stmt = delete(StaffRoleRow).where(StaffRoleRow.user_id == user_id)
        if venue_id is not None:
            stmt = stmt.where(StaffRoleRow.venue_id == venue_id)
        self._session.execute(stmt)
        return taken

    def list(self, venue_ids: Collection[int] | None = None) -> builtins.list[StaffRole]:
        stmt = select(StaffRoleRow).order_by(*_ORDER)
        if venue_ids is not None:
            stmt = stmt.where(StaffRoleRow.venue_id.in_(list(venue_ids)))
        return [_role(row) for row in self._session.scalars(stmt)]


@translate_errors
class SqlaAuditLog:
    """Entries in ``audit_log``; inserted with the action's own transaction, never updated."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, entry: AuditEntry) -> None:
        self._session.add(
            AuditRow(
                id=entry.id,
                at=entry.at,
                actor_user_id=entry.actor.user_id if entry.actor else None,
                actor_email=entry.actor.email if entry.actor else None,
                action=entry.action.value,
                venue_id=entry.venue_id,
                object_type=entry.object_type,
                object_id=entry.object_id,
                details=dict(entry.details),
            )
        )
        self._session.flush()

    def list(self, query: AuditQuery, *, limit: int, offset: int) -> builtins.list[AuditEntry]:
        stmt = select(AuditRow).order_by(AuditRow.at.desc(), AuditRow.id.desc()).limit(limit).offset(offset)
        if query.venue_ids is not None:
            stmt = stmt.where(AuditRow.venue_id.in_(sorted(query.venue_ids)))
        if query.since is not None:
            stmt = stmt.where(AuditRow.at >= query.since)
        if query.until is not None:
            stmt = stmt.where(AuditRow.at < query.until)
        if query.action is not None:
            stmt = stmt.where(AuditRow.action == query.action.value)
        if query.object_id is not None:
            stmt = stmt.where(AuditRow.object_id == query.object_id)
        return [_entry(row) for row in self._session.scalars(stmt)]


def _entry(row: AuditRow) -> AuditEntry:
    actor = (
        AuditActor(user_id=row.actor_user_id, email=row.actor_email or "")
        if row.actor_user_id is not None
        else None
    )
    return AuditEntry(
        id=row.id,
        at=row.at,
        actor=actor,
        action=AuditAction(row.action),
        venue_id=row.venue_id,
        object_type=row.object_type,
        object_id=row.object_id,
        details=row.details,
    )
