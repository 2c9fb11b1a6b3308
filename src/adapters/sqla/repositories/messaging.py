"""The outbox (both its sides) and stored first responses for Idempotency-Key retries."""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from adapters.sqla.errors import translate_errors
from adapters.sqla.models import IdempotencyRecordRow, OutboxRow
from booking_core.outbox import OutboxEntry, OutboxStatus
from booking_core.ports.idempotency import IdempotencyRecord
from booking_core.ports.services import OutboxMessage

_ERROR_CHARS = 2000


def outbox_to_domain(row: OutboxRow) -> OutboxEntry:
    return OutboxEntry(
        id=row.id,
        kind=row.kind,
        payload=dict(row.payload),
        created_at=row.created_at,
        status=OutboxStatus(row.status),
        attempts=row.attempts,
        due_at=row.due_at,
        sent_at=row.sent_at,
        last_error=row.last_error,
        message_id=row.message_id,
    )


@translate_errors
class SqlaOutbox:
    """Messages written with the state change they report (``Outbox``), and the worker's side
    (``OutboxQueue``): claims lock rows with ``FOR UPDATE SKIP LOCKED`` on PostgreSQL; SQLite's
    writers run one at a time anyway (``BEGIN IMMEDIATE``)."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, message: OutboxMessage) -> None:
        self._session.add(
            OutboxRow(
                id=message.id,
                kind=message.kind,
                payload=dict(message.payload),
                created_at=message.created_at,
                status=OutboxStatus.PENDING.value,
                due_at=message.created_at,
                attempts=0,
            )
        )
        self._session.flush()

    def claim_due(self, now: datetime, *, lease: timedelta, limit: int) -> builtins.list[OutboxEntry]:
        stmt = (
            select(OutboxRow)
            .where(OutboxRow.status == OutboxStatus.PENDING.value, OutboxRow.due_at <= now)
            .order_by(OutboxRow.due_at, OutboxRow.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        rows = builtins.list(self._session.scalars(stmt))
        for row in rows:
            row.attempts += 1
            row.due_at = now + lease
        self._session.flush()
        return [outbox_to_domain(row) for row in rows]

    def _settle(self, entry: OutboxEntry, **values: Any) -> bool:
        """Change the message if the claim ``entry`` came from still stands (settling it or extending
        its lease); False when it does not."""
        stmt = (
            update(OutboxRow)
            .where(
                OutboxRow.id == entry.id,
                OutboxRow.attempts == entry.attempts,
                OutboxRow.status == OutboxStatus.PENDING.value,
            )
            .values(**values)
            .execution_options(synchronize_session=False)
        )
        return bool(self._session.execute(stmt).rowcount)  # type: ignore[attr-defined]

    def extend_lease(self, entry: OutboxEntry, until: datetime) -> bool:
        return self._settle(entry, due_at=until)

    def mark_sent(
        self,
        entry: OutboxEntry,
        now: datetime,
        *,
        message_id: str | None,
        note: str | None,
        payload: Mapping[str, Any],
    ) -> bool:
        return self._settle(
            entry,
            status=OutboxStatus.SENT.value,
            sent_at=now,
            message_id=message_id,
            last_error=note,
            payload=dict(payload),
        )

    def mark_retry(self, entry: OutboxEntry, due_at: datetime, *, error: str, message_id: str | None) -> bool:
        return self._settle(entry, due_at=due_at, last_error=error[:_ERROR_CHARS], message_id=message_id)

    def mark_failed(self, entry: OutboxEntry, now: datetime, *, error: str, message_id: str | None) -> bool:
        return self._settle(
            entry, status=OutboxStatus.FAILED.value, last_error=error[:_ERROR_CHARS], message_id=message_id
        )

    def list(self, status: OutboxStatus | None, *, limit: int) -> builtins.list[OutboxEntry]:
        stmt = select(OutboxRow).order_by(OutboxRow.created_at.desc(), OutboxRow.id.desc()).limit(limit)
        if status is not None:
            stmt = stmt.where(OutboxRow.status == status.value)
        return [outbox_to_domain(row) for row in self._session.scalars(stmt)]

    def retry(self, ids: Iterable[str] | None, now: datetime) -> int:
        stmt = update(OutboxRow).where(OutboxRow.status == OutboxStatus.FAILED.value)
        if ids is not None:
            stmt = stmt.where(OutboxRow.id.in_(builtins.list(ids)))
        stmt = stmt.values(status=OutboxStatus.PENDING.value, attempts=0, due_at=now).execution_options(
            synchronize_session=False
        )
        return int(self._session.execute(stmt).rowcount)  # type: ignore[attr-defined]

    def counts(self) -> Mapping[OutboxStatus, int]:
        stmt = select(OutboxRow.status, func.count()).group_by(OutboxRow.status)
        return {OutboxStatus(status): count for status, count in self._session.execute(stmt)}


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
