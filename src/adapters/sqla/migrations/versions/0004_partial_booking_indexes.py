"""Partial booking indexes: each holds only the rows its queries look for.

* ``ix_bookings_pending_hold_expires_at`` (pending bookings) replaces ``(status, hold_expires_at)``.
  Booking creation looks for lapsed holds of the resource on every request; with the composite
  index, PostgreSQL answered that part through the exclusion constraint's index and read every live
  booking of the resource, so the check grew with the resource's bookings.
* ``ix_bookings_live_end_at`` (confirmed and paid) replaces ``(status, end_at)`` for the completion
  sweep, and ``ix_bookings_client_id`` now leaves out direct users' bookings. A new booking (pending,
  often direct) then enters neither.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

# (new index, column, predicate, old index, its columns)
_CHANGES = [
    ("ix_bookings_pending_hold_expires_at", "hold_expires_at", "status = 'pending'",
     "ix_bookings_status_hold_expires_at", ["status", "hold_expires_at"]),
    ("ix_bookings_live_end_at", "end_at", "status IN ('confirmed', 'paid')",
     "ix_bookings_status_end_at", ["status", "end_at"]),
    ("ix_bookings_client_id", "client_id", "client_id IS NOT NULL",
     "ix_bookings_client_id", ["client_id"]),
]  # fmt: skip


def upgrade() -> None:
    for name, column, where, old, _ in _CHANGES:
        op.drop_index(old, table_name="bookings")
        predicate = sa.text(where)
        op.create_index(name, "bookings", [column], postgresql_where=predicate, sqlite_where=predicate)


def downgrade() -> None:
    for name, _, _, old, columns in _CHANGES:
        op.drop_index(name, table_name="bookings")
        op.create_index(old, "bookings", columns)
