"""Refund requests in the ``refund_requests`` table, one per payment."""

from __future__ import annotations

import builtins
from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from adapters.sqla.errors import translate_errors
from adapters.sqla.models import RefundRequestRow
from booking_core.payments import RefundRequest

_T = RefundRequestRow.__table__


def _to_domain(row: RefundRequestRow) -> RefundRequest:
    return RefundRequest(
        payment_id=row.payment_id,
        booking_id=row.booking_id,
        payment_intent_id=row.payment_intent_id,
        idempotency_key=row.idempotency_key,
        amount=row.amount,
        requested_at=row.requested_at,
        next_attempt_at=row.next_attempt_at,
        attempts=row.attempts,
        accepted_at=row.accepted_at,
        provider_refund_id=row.provider_refund_id,
        last_error=row.last_error,
    )


@translate_errors
class SqlaRefunds:
    """Refund requests; ``claim`` is one conditional UPDATE, so two senders never take the same one."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, request: RefundRequest) -> bool:
        # ON CONFLICT DO NOTHING: "one per payment, ever" is the table's primary key
        dialect = self._session.get_bind().dialect.name
        insert: Any = postgresql.insert if dialect == "postgresql" else sqlite.insert
        stmt = (
            insert(_T)
            .values(
                payment_id=request.payment_id,
                booking_id=request.booking_id,
                payment_intent_id=request.payment_intent_id,
                idempotency_key=request.idempotency_key,
                amount=request.amount,
                requested_at=request.requested_at,
                next_attempt_at=request.next_attempt_at,
                attempts=request.attempts,
                accepted_at=request.accepted_at,
                provider_refund_id=request.provider_refund_id,
                last_error=request.last_error,
            )
            .on_conflict_do_nothing(index_elements=["payment_id"])
            .returning(_T.c.payment_id)
        )
        return self._session.execute(stmt).first() is not None

    def get(self, payment_id: str) -> RefundRequest | None:
        stmt = select(RefundRequestRow).where(RefundRequestRow.payment_id == payment_id)
        row = self._session.scalars(stmt.execution_options(populate_existing=True)).one_or_none()
        return _to_domain(row) if row else None

    def due(self, now: datetime, limit: int = 50) -> builtins.list[RefundRequest]:
        stmt = (
            select(RefundRequestRow)
            .where(RefundRequestRow.accepted_at.is_(None), RefundRequestRow.next_attempt_at <= now)
            .order_by(RefundRequestRow.next_attempt_at, RefundRequestRow.payment_id)
            .limit(limit)
        )
        return [_to_domain(row) for row in self._session.scalars(stmt)]

    def claim(self, payment_id: str, now: datetime, until: datetime) -> bool:
        stmt = (
            update(_T)
            .where(_T.c.payment_id == payment_id, _T.c.accepted_at.is_(None), _T.c.next_attempt_at <= now)
            .values(next_attempt_at=until, attempts=_T.c.attempts + 1)
            .returning(_T.c.payment_id)
        )
        return self._session.execute(stmt).first() is not None

    def accepted(self, payment_id: str, refund_id: str | None, now: datetime) -> None:
        stmt = (
            update(_T)
            .where(_T.c.payment_id == payment_id, _T.c.accepted_at.is_(None))
            .values(accepted_at=now, provider_refund_id=refund_id)
        )
        self._session.execute(stmt)

    def failed(self, payment_id: str, error: str, retry_at: datetime) -> None:
        stmt = (
            update(_T)
            .where(_T.c.payment_id == payment_id)
            .values(last_error=error[:2000], next_attempt_at=retry_at)
        )
        self._session.execute(stmt)
