"""Payout batches: a month's commissions paid by one bank file, prepared before it is written.

``commissions.payout_batch_id`` marks the records a batch holds; at most one batch of a month is
prepared and not completed (``uq_payout_batches_prepared_month``).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

_PREPARED = sa.text("status = 'prepared'")
_REFLECT = {"resolve_fks": False}


def upgrade() -> None:
    op.create_table(
        "payout_batches",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("month", sa.String(length=7), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("transfers", sa.Integer(), nullable=False),
        sa.Column("total", sa.Numeric(precision=12, scale=2), nullable=False),
        sa.Column("document", sa.Text(), nullable=False),
        sa.Column("prepared_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("file_path", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_payout_batches")),
    )
    op.create_index(
        "uq_payout_batches_prepared_month",
        "payout_batches",
        ["month"],
        unique=True,
        postgresql_where=_PREPARED,
        sqlite_where=_PREPARED,
    )
    # batch mode: SQLite adds a foreign key only by rebuilding the table (not reflecting the tables
    # it refers to, whose expression index SQLite cannot reflect)
    with op.batch_alter_table("commissions", reflect_kwargs=_REFLECT) as batch:
        batch.add_column(sa.Column("payout_batch_id", sa.String(length=36), nullable=True))
        batch.create_foreign_key(
            op.f("fk_commissions_payout_batch_id_payout_batches"),
            "payout_batches",
            ["payout_batch_id"],
            ["id"],
            ondelete="RESTRICT",
        )
        batch.create_index(op.f("ix_commissions_payout_batch_id"), ["payout_batch_id"])


def downgrade() -> None:
    with op.batch_alter_table("commissions", reflect_kwargs=_REFLECT) as batch:
        batch.drop_index(op.f("ix_commissions_payout_batch_id"))
        batch.drop_constraint(op.f("fk_commissions_payout_batch_id_payout_batches"), type_="foreignkey")
        batch.drop_column("payout_batch_id")
    op.drop_index("uq_payout_batches_prepared_month", table_name="payout_batches")
    op.drop_table("payout_batches")
