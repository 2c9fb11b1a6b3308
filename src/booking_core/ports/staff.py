"""Storage of staff roles and of the audit log (CONTRACT 7.1, 7.6)."""

from __future__ import annotations

import builtins
from collections.abc import Collection
from typing import Protocol

from booking_core.audit import AuditEntry, AuditQuery
from booking_core.staff import StaffRole


class StaffRoles(Protocol):
    """Who holds which staff role where."""

    def roles_of(self, user_id: str) -> builtins.list[StaffRole]:
        """The roles of one user (empty for a user who is not staff)."""

    def grant(self, role: StaffRole) -> bool:
        """Store ``role``; False when the user held it already (nothing changes then)."""

    def revoke(self, user_id: str, venue_id: int | None = None) -> builtins.list[StaffRole]:
        """Take away the user's roles (all, or those at ``venue_id``); returns those taken."""

    def list(self, venue_ids: Collection[int] | None = None) -> builtins.list[StaffRole]:
        """Roles ordered by user then role; ``venue_ids`` given: only roles at those venues."""


class AuditLog(Protocol):
    """The operator actions' log: entries are added, never changed."""

    def add(self, entry: AuditEntry) -> None:
        """Store one entry in the caller's transaction."""

    def list(self, query: AuditQuery, *, limit: int, offset: int) -> builtins.list[AuditEntry]:
        """At most ``limit`` entries matching ``query`` from ``offset``, newest first (ties by id)."""
