"""Provider event ids of any length: the processed-events table is keyed by the id's SHA-256.

``processed_events.event_id`` was a VARCHAR(255) primary key. PostgreSQL refused a longer id (value
too long), so the webhook answered 400 and Stripe delivered the event again and again; SQLite, which
does not enforce the length, took it. The contract accepts event ids of any length. A text column
alone would not do: a B-tree entry holds at most about 2.7 kB, so a 5,000-character id would fail as
a primary key. The key is now ``event_key``, the hex SHA-256 of the id (64 characters), and the id is
kept whole as text beside it. Existing rows get their key here, so no event is applied twice.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-28
"""

from __future__ import annotations

import hashlib

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def _sha256_hex(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def upgrade() -> None:
    op.add_column("processed_events", sa.Column("event_key", sa.String(length=64), nullable=True))
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        op.execute(
            "UPDATE processed_events SET event_key = encode(sha256(convert_to(event_id, 'UTF8')), 'hex')"
        )
    else:
        # SQLite has no SHA-256 of its own: the same function, lent to this connection
        bind.connection.driver_connection.create_function("sha256_hex", 1, _sha256_hex, deterministic=True)
        op.execute("UPDATE processed_events SET event_key = sha256_hex(event_id)")
    with op.batch_alter_table("processed_events") as batch:
        batch.drop_constraint("pk_processed_events", type_="primary")
        batch.alter_column("event_key", existing_type=sa.String(length=64), nullable=False)
        batch.alter_column("event_id", existing_type=sa.String(length=255), type_=sa.Text(), nullable=False)
        batch.create_primary_key("pk_processed_events", ["event_key"])


def downgrade() -> None:
    # ids longer than the old column cannot go back into it; their events are forgotten
    op.execute("DELETE FROM processed_events WHERE length(event_id) > 255")
    with op.batch_alter_table("processed_events") as batch:
        batch.drop_constraint("pk_processed_events", type_="primary")
        batch.alter_column("event_id", existing_type=sa.Text(), type_=sa.String(length=255), nullable=False)
        batch.create_primary_key("pk_processed_events", ["event_id"])
        batch.drop_column("event_key")
