"""Partial refunds: how much of a payment went back, and commission records that correct a payout.

A provider may give back part of a payment (CONTRACT 9.2): ``payments.refunded_amount`` records how
much, so the booking detail shows it and the commission follows what the venue keeps. A refund after
a payout cannot change the ``paid_out`` record; a correcting record with a negative amount is added
for the same booking instead, so ``commissions.booking_id`` is no longer unique (an index stays).
``payments.paid_mails_owed`` notes that a refund was reported before the success it refunds, which
would have marked the booking paid: the refund sends no paid mail (CONTRACT 5), the success does when
it comes, so the two end alike in either order (CONTRACT 4.3).

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

# SQLite rebuilds a table to drop a constraint; the tables it refers to are not reflected (see 0005)
_REFLECT = {"resolve_fks": False}


def upgrade() -> None:
    with op.batch_alter_table("payments", reflect_kwargs=_REFLECT) as batch:
        batch.add_column(
            sa.Column(
                "refunded_amount", sa.Numeric(precision=12, scale=2), nullable=False, server_default="0"
            )
        )
        batch.add_column(
            sa.Column("paid_mails_owed", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("payments", reflect_kwargs=_REFLECT) as batch:
        batch.alter_column("refunded_amount", server_default=None)
        batch.alter_column("paid_mails_owed", server_default=None)
    # a payment refunded before this revision was refunded in full
    op.execute("UPDATE payments SET refunded_amount = amount WHERE status = 'refunded'")
    with op.batch_alter_table("commissions", reflect_kwargs=_REFLECT) as batch:
        batch.drop_constraint(op.f("uq_commissions_booking_id"), type_="unique")
        batch.create_index(op.f("ix_commissions_booking_id"), ["booking_id"])


def downgrade() -> None:
    # only a booking's first record survives: the correcting records cannot be kept under the old rule
    op.execute(
        "DELETE FROM commissions WHERE id IN (SELECT c.id FROM commissions c JOIN commissions first "
        "ON first.booking_id = c.booking_id AND (first.created_at, first.id) < (c.created_at, c.id))"
    )
    with op.batch_alter_table("commissions", reflect_kwargs=_REFLECT) as batch:
        batch.drop_index(op.f("ix_commissions_booking_id"))
        batch.create_unique_constraint(op.f("uq_commissions_booking_id"), ["booking_id"])
    with op.batch_alter_table("payments", reflect_kwargs=_REFLECT) as batch:
        batch.drop_column("refunded_amount")
        batch.drop_column("paid_mails_owed")
