"""The client's commission list a page at a time: ``commissions (client_id, month, created_at, id)``.

``GET /api/v1/client/commissions/?month=`` now pages like the other lists (CONTRACT 4.7); with this
index a page reads its own rows in order, however many records the month holds. The
``(month, client_id)`` index stays for the monthly report and the payout, which read whole months.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-23
"""

from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_commissions_client_id_month_created_at_id",
        "commissions",
        ["client_id", "month", "created_at", "id"],
    )


def downgrade() -> None:
    op.drop_index("ix_commissions_client_id_month_created_at_id", table_name="commissions")
