"""Outbox delivery states: ``status`` (pending, sent, failed) and the ``Message-ID`` of each message;
an index for the worker's claim (``status, due_at``) instead of ``(sent_at, due_at)``.

A paid booking used to get one ``booking_paid`` row; now each email is its own row (``kind`` email,
``payload`` template and booking id). Unsent ``booking_paid`` rows become the two emails they stood
for; sent ones stay as history. The downgrade joins unsent pairs back into one ``booking_paid`` row.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23
"""

from __future__ import annotations

import uuid

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

_PAID_TEMPLATES = ("booking_paid_user", "booking_paid_operator")

outbox = sa.table(
    "outbox",
    sa.column("id", sa.String),
    sa.column("kind", sa.String),
    sa.column("payload", sa.JSON),
    sa.column("created_at", sa.DateTime(timezone=True)),
    sa.column("due_at", sa.DateTime(timezone=True)),
    sa.column("attempts", sa.Integer),
    sa.column("sent_at", sa.DateTime(timezone=True)),
    sa.column("status", sa.String),
)


def upgrade() -> None:
    op.add_column(
        "outbox", sa.Column("status", sa.String(length=20), server_default="pending", nullable=False)
    )
    op.add_column("outbox", sa.Column("message_id", sa.String(length=255), nullable=True))
    op.execute(outbox.update().where(outbox.c.sent_at.is_not(None)).values(status="sent"))
    op.drop_index("ix_outbox_sent_at_due_at", table_name="outbox")
    op.create_index(op.f("ix_outbox_status_due_at"), "outbox", ["status", "due_at"])
    connection = op.get_bind()
    unsent = connection.execute(
        sa.select(outbox.c.id, outbox.c.payload, outbox.c.created_at).where(
            outbox.c.kind == "booking_paid", outbox.c.sent_at.is_(None)
        )
    ).all()
    for old_id, payload, created_at in unsent:
        booking_id = (payload or {}).get("booking_id")
        connection.execute(outbox.delete().where(outbox.c.id == old_id))
        if not booking_id:
            continue
        connection.execute(
            outbox.insert(),
            [
                {
                    "id": str(uuid.uuid4()),
                    "kind": "email",
                    "payload": {"template": template, "booking_id": booking_id},
                    "created_at": created_at,
                    "due_at": created_at,
                    "attempts": 0,
                    "status": "pending",
                }
                for template in _PAID_TEMPLATES
            ],
        )


def downgrade() -> None:
    connection = op.get_bind()
    pending = connection.execute(
        sa.select(outbox.c.id, outbox.c.payload, outbox.c.created_at).where(
            outbox.c.kind == "email", outbox.c.status == "pending"
        )
    ).all()
    for row_id, payload, created_at in pending:
        if payload.get("template") not in _PAID_TEMPLATES:
            continue
        connection.execute(outbox.delete().where(outbox.c.id == row_id))
        if payload["template"] == "booking_paid_user":
            connection.execute(
                outbox.insert(),
                {
                    "id": str(uuid.uuid4()),
                    "kind": "booking_paid",
                    "payload": {"booking_id": payload["booking_id"]},
                    "created_at": created_at,
                    "due_at": created_at,
                    "attempts": 0,
                    "status": "pending",
                },
            )
    op.drop_index(op.f("ix_outbox_status_due_at"), table_name="outbox")
    op.create_index("ix_outbox_sent_at_due_at", "outbox", ["sent_at", "due_at"])
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("message_id")
        batch.drop_column("status")
