"""Refund requests: the one request per payment to give its money back, kept until accepted.

A refund is decided in the transaction that changes the booking, and its request stored there; it is
sent after the commit and, while the provider has not accepted it, again by the worker. Payments may
now also be ``canceled`` (the provider cancelled the intent; a new one replaced it): the status
column is free text, so that needs no change here.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

_UNACCEPTED = sa.text("accepted_at IS NULL")


def upgrade() -> None:
    op.create_table(
        "refund_requests",
        sa.Column("payment_id", sa.String(length=36), nullable=False),
        sa.Column("booking_id", sa.String(length=36), nullable=False),
        sa.Column("payment_intent_id", sa.String(length=255), nullable=False),
        sa.Column("idempotency_key", sa.String(length=255), nullable=False),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("accepted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("provider_refund_id", sa.String(length=255), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["booking_id"],
            ["bookings.id"],
            name=op.f("fk_refund_requests_booking_id_bookings"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["payment_id"],
            ["payments.id"],
            name=op.f("fk_refund_requests_payment_id_payments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("payment_id", name=op.f("pk_refund_requests")),
    )
    op.create_index(op.f("ix_refund_requests_booking_id"), "refund_requests", ["booking_id"])
    op.create_index(
        "ix_refund_requests_next_attempt_at",
        "refund_requests",
        ["next_attempt_at"],
        postgresql_where=_UNACCEPTED,
        sqlite_where=_UNACCEPTED,
    )


def downgrade() -> None:
    op.drop_table("refund_requests")
