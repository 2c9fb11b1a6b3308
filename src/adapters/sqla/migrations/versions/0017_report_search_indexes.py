"""The staff's bookings search in its own order (CONTRACT 7.4, 7.7).

* ``bookings (start_at, id)``: the search lists bookings latest start first, over every venue for an
  admin; read backwards through this index, a page stops at its end instead of sorting every
  booking. Within a venue or a resource the search and the venue report find their bookings through
  ``(resource_id, start_at)``, which the first revision made.

The text search (``q``) filters the rows those indexes find with ``LIKE`` over lower-cased columns.
Trigram indexes (``pg_trgm``) were measured and left out: on a year of a 20-court venue (110,000
bookings) a page of a text search took 14 to 90 ms without them and 11 to 62 ms with them, and they
would need an extension that not every managed PostgreSQL grants.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-27
"""

from __future__ import annotations

from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_bookings_start_at_id", "bookings", ["start_at", "id"])


def downgrade() -> None:
    op.drop_index("ix_bookings_start_at_id", table_name="bookings")
