"""Tables of venue staff and of the audit log (migration 0015)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, CheckConstraint, ForeignKey, Index, Integer, String, func
from sqlalchemy.orm import Mapped, mapped_column

from adapters.sqla.models.base import Base
from adapters.sqla.types import UtcDateTime


class StaffRoleRow(Base):
    """One role of one user: ``admin`` without a venue, ``manager`` or ``desk`` at one venue."""

    __tablename__ = "staff_roles"
    __table_args__ = (
        CheckConstraint(
            "(role = 'admin' AND venue_id IS NULL) OR (role IN ('manager', 'desk') AND venue_id IS NOT NULL)",
            name="role_venue",
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    role: Mapped[str] = mapped_column(String(10))
    venue_id: Mapped[int | None] = mapped_column(ForeignKey("venues.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


# An admin's venue is NULL, which a plain unique constraint would not compare.
Index(
    "uq_staff_roles_user_role_venue",
    StaffRoleRow.user_id,
    StaffRoleRow.role,
    func.coalesce(StaffRoleRow.venue_id, 0),
    unique=True,
)


class AuditRow(Base):
    """One object an operator action changed; rows are inserted, never updated or deleted."""

    __tablename__ = "audit_log"
    __table_args__ = (
        Index("ix_audit_log_venue_id_at", "venue_id", "at", "id"),
        Index("ix_audit_log_at", "at", "id"),
        Index("ix_audit_log_object_id", "object_id"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    at: Mapped[datetime] = mapped_column(UtcDateTime)
    actor_user_id: Mapped[str | None] = mapped_column(String(36))
    actor_email: Mapped[str | None] = mapped_column(String(254))
    action: Mapped[str] = mapped_column(String(40))
    venue_id: Mapped[int | None] = mapped_column(Integer)
    object_type: Mapped[str] = mapped_column(String(40))
    object_id: Mapped[str] = mapped_column(String(64))
    details: Mapped[dict[str, Any]] = mapped_column(JSON)
