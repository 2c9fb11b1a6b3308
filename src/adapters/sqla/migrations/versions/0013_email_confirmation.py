"""Email confirmation and password reset codes (CONTRACT 4.5).

A stranger could register a partner's customer's address before the partner did: the partner's
registration then mapped the customer to the stranger's account, whose token read and cancelled
what the partner booked for them. A self-registered account now starts unconfirmed
(``users.email_confirmed`` false) until its owner types the code mailed to the address; the one-time
codes of email confirmation and password reset are kept in ``account_codes``, by hash, one per user
and purpose.

Every user that exists already keeps working: the column's default marks them all confirmed (they
were registered by a client or the catalog, or before confirmation existed).

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "users", sa.Column("email_confirmed", sa.Boolean(), server_default=sa.true(), nullable=False)
    )
    op.create_table(
        "account_codes",
        sa.Column("user_id", sa.String(length=36), nullable=False),
        sa.Column("purpose", sa.String(length=20), nullable=False),
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_account_codes_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", "purpose", name=op.f("pk_account_codes")),
    )


def downgrade() -> None:
    op.drop_table("account_codes")
    # a plain ALTER TABLE ... DROP COLUMN (SQLite 3.35 and later) rather than a batch copy of the
    # table: dropping the old ``users`` table in the copy would trip the bookings' foreign keys
    op.drop_column("users", "email_confirmed")
