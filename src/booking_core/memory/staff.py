"""Staff roles and the audit log in memory (the fakes of :mod:`booking_core.ports.staff`)."""

from __future__ import annotations

import builtins
from collections.abc import Collection

from booking_core.audit import AuditEntry, AuditQuery
from booking_core.staff import StaffRole

#: A role's key: user, role, venue.
RoleKey = tuple[str, str, int | None]


class InMemoryStaffRoles:
    """Staff roles in a dict keyed by (user, role, venue)."""

    def __init__(self, rows: dict[RoleKey, StaffRole]) -> None:
        self._rows = rows

    def roles_of(self, user_id: str) -> builtins.list[StaffRole]:
        return sorted((r for r in self._rows.values() if r.user_id == user_id), key=_order)

    def grant(self, role: StaffRole) -> bool:
        key = (role.user_id, role.role.value, role.venue_id)
        if key in self._rows:
            return False
        self._rows[key] = role
        return True

    def revoke(self, user_id: str, venue_id: int | None = None) -> builtins.list[StaffRole]:
        taken = [r for r in self.roles_of(user_id) if venue_id is None or r.venue_id == venue_id]
        for role in taken:
            del self._rows[(role.user_id, role.role.value, role.venue_id)]
        return taken

    def list(self, venue_ids: Collection[int] | None = None) -> builtins.list[StaffRole]:
        found = (r for r in self._rows.values() if venue_ids is None or r.venue_id in venue_ids)
        return sorted(found, key=_order)


def _order(role: StaffRole) -> tuple[str, str, int]:
    return role.user_id, role.role.value, role.venue_id or 0


class InMemoryAuditLog:
    """Audit entries in a list, in the order they were added."""

    def __init__(self, rows: builtins.list[AuditEntry]) -> None:
        self._rows = rows

    def add(self, entry: AuditEntry) -> None:
        self._rows.append(entry)

    def list(self, query: AuditQuery, *, limit: int, offset: int) -> builtins.list[AuditEntry]:
        found = [e for e in self._rows if _matches(e, query)]
        found.sort(key=lambda e: (e.at, e.id), reverse=True)
        return found[offset : offset + limit]


def _matches(entry: AuditEntry, query: AuditQuery) -> bool:
    return (
        (query.venue_ids is None or entry.venue_id in query.venue_ids)
        and (query.since is None or entry.at >= query.since)
        and (query.until is None or entry.at < query.until)
        and (query.action is None or entry.action is query.action)
        and (query.object_id is None or entry.object_id == query.object_id)
    )
