"""Sent messages forget their one-time codes.

The email confirmation and password reset mails carried their code in the outbox payload in plain
text, and kept it after they were sent: anyone who could read the outbox (a backup, the operator's
view) could confirm an address or reset a password within the code's 24 hours. The worker now
drops a payload's secret fields (``booking_core.outbox.SECRET_FIELDS``) when it records a message
as sent; this revision does the same to the messages sent before. Pending and failed messages keep
their code: they still have it to send.

The kinds stay as they are: ``email`` is the e-mail channel's kind, and the worker hands every
message to the notifier registered for its kind. No schema change.

Downgrade changes nothing: a forgotten code cannot be brought back, nor is it needed.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

#: ``booking_core.outbox.SECRET_FIELDS`` as it was when this revision was written.
_SECRET_FIELDS = ("code",)

outbox = sa.table(
    "outbox",
    sa.column("id", sa.String),
    sa.column("payload", sa.JSON),
    sa.column("status", sa.String),
)


def upgrade() -> None:
    connection = op.get_bind()
    sent = connection.execute(
        sa.select(outbox.c.id, outbox.c.payload).where(
            outbox.c.status == "sent",
            # only the account mails have a secret: read those, not every mail ever sent
            sa.cast(outbox.c.payload, sa.Text).like('%"code"%'),
        )
    ).all()
    for message_id, payload in sent:
        if not any(name in (payload or {}) for name in _SECRET_FIELDS):
            continue
        kept = {name: value for name, value in payload.items() if name not in _SECRET_FIELDS}
        connection.execute(outbox.update().where(outbox.c.id == message_id).values(payload=kept))


def downgrade() -> None:
    pass
