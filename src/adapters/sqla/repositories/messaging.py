"""The outbox the worker drains, and stored first responses for Idempotency-Key retries."""

from __future__ import annotations

import builtins
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from adapters.sqla.errors import translate_errors
from adapters.sqla.models import IdempotencyRecordRow, OutboxRow
from booking_core.ports.idempotency import IdempotencyRecord
from booking_core.ports.services import OutboxMessage


def outbox_to_domain(row: OutboxRow) -> OutboxMessage:
    return OutboxMessage(id=row.id, kind=row.kind, payload=dict(row.payload), created_at=row.created_at)


@translate_errors
class SqlaOutbox:
    """Messages written with the state change they report; the worker sends what is due.

    Beyond the core's ``Outbox`` port (``add``), the worker uses ``due``, ``mark_sent`` and
    ``mark_failed``.
    """

    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, message: OutboxMessage) -> None:
        row = OutboxRow(
            id=message.id,
            kind=message.kind,
            payload=dict(message.payload),
            created_at=message.created_at,
            due_at=message.created_at,
            attempts=0,
        )
        self._session.add(row)
        self._session.flush()

    def due(self, now: datetime, limit: int = 50) -> builtins.list[OutboxMessage]:
        """Unsent messages whose time has come, oldest first (locked, skipping ones others hold)."""
        stmt = (
            select(OutboxRow)
            .where(OutboxRow.sent_at.is_(None), OutboxRow.due_at <= now)
            .order_by(OutboxRow.due_at, OutboxRow.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        return [outbox_to_domain(row) for row in self._session.scalars(stmt)]

    def attempts(self, message_id: str) -> int:
        """How many times sending was tried."""
        row = self._session.get(OutboxRow, message_id)
        return row.attempts if row else 0

    def mark_sent(self, message_id: str, now: datetime) -> None:
        """The message went out."""
        stmt = update(OutboxRow).where(OutboxRow.id == message_id).values(sent_at=now)
        self._session.execute(stmt)

    def mark_failed(self, message_id: str, error: str, retry_at: datetime) -> None:
        """Sending failed; try again at ``retry_at``."""
        stmt = (
            update(OutboxRow)
            .where(OutboxRow.id == message_id)
            .values(attempts=OutboxRow.attempts + 1, last_error=error[:2000], due_at=retry_at)
        )
        self._session.execute(stmt)


@translate_errors
class SqlaIdempotencyRecords:
    """First responses by (scope, key)."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def get(self, scope: str, key: str) -> IdempotencyRecord | None:
        row = self._session.get(IdempotencyRecordRow, (scope, key))
        if row is None:
            return None
        return IdempotencyRecord(
            scope=row.scope,
            key=row.key,
            request_hash=row.request_hash,
            status_code=row.status_code,
            body=bytes(row.body),
            created_at=row.created_at,
        )

    def add(self, record: IdempotencyRecord) -> None:
        row = IdempotencyRecordRow(
            scope=record.scope,
            key=record.key,
            request_hash=record.request_hash,
            status_code=record.status_code,
            body=record.body,
            created_at=record.created_at,
        )
        self._session.add(row)
        self._session.flush()
