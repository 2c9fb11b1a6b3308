"""Refunds of part of a payment, as the venue chooses them (CONTRACT 7.4, 9.2).

``refund_requests.amount`` is how much a request asks the provider to give back (NULL: all it still
holds, as every request before this revision did). ``payments.refund_asked`` is what the customer
gets back of the payment in all once a refund was decided (NULL: all of it): the booking becomes
``refunded`` when the provider reports that much back.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

_REFLECT = {"resolve_fks": False}


def upgrade() -> None:
    with op.batch_alter_table("refund_requests", reflect_kwargs=_REFLECT) as batch:
        batch.add_column(sa.Column("amount", sa.Numeric(precision=12, scale=2), nullable=True))
    with op.batch_alter_table("payments", reflect_kwargs=_REFLECT) as batch:
        batch.add_column(sa.Column("refund_asked", sa.Numeric(precision=12, scale=2), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("payments", reflect_kwargs=_REFLECT) as batch:
        batch.drop_column("refund_asked")
    with op.batch_alter_table("refund_requests", reflect_kwargs=_REFLECT) as batch:
        batch.drop_column("amount")
