"""Indexes in the order of the API's lists (CONTRACT section 4.7), so a page costs its own rows.

* ``bookings (user_id, start_at, id)`` replaces ``(user_id)``, and the partial
  ``(client_id, start_at, id) WHERE client_id IS NOT NULL`` replaces ``(client_id)``: a user's or a
  client's bookings, latest first or upcoming soonest first, read in index order and stop at the
  page's end. A new booking enters as many indexes as before.
* ``(client_id, created_at, id)`` on each mapping table: the client's mapping lists.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

_CLIENT_BOOKINGS = sa.text("client_id IS NOT NULL")
_MAPPINGS = ["user_mappings", "resource_mappings", "venue_mappings"]


def upgrade() -> None:
    op.drop_index("ix_bookings_user_id", table_name="bookings")
    op.create_index("ix_bookings_user_id_start_at_id", "bookings", ["user_id", "start_at", "id"])
    op.drop_index("ix_bookings_client_id", table_name="bookings")
    op.create_index(
        "ix_bookings_client_id_start_at_id",
        "bookings",
        ["client_id", "start_at", "id"],
        postgresql_where=_CLIENT_BOOKINGS,
        sqlite_where=_CLIENT_BOOKINGS,
    )
    for table in _MAPPINGS:
        op.create_index(f"ix_{table}_client_id_created_at_id", table, ["client_id", "created_at", "id"])


def downgrade() -> None:
    for table in _MAPPINGS:
        op.drop_index(f"ix_{table}_client_id_created_at_id", table_name=table)
    op.drop_index("ix_bookings_client_id_start_at_id", table_name="bookings")
    op.create_index(
        "ix_bookings_client_id",
        "bookings",
        ["client_id"],
        postgresql_where=_CLIENT_BOOKINGS,
        sqlite_where=_CLIENT_BOOKINGS,
    )
    op.drop_index("ix_bookings_user_id_start_at_id", table_name="bookings")
    op.create_index("ix_bookings_user_id", "bookings", ["user_id"])
