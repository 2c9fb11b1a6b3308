"""Payments and the provider events already handled."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from adapters.sqla.errors import translate_errors
from adapters.sqla.models import PaymentRow, ProcessedEventRow
from booking_core.errors import NotFound
from booking_core.payments import Payment, PaymentStatus


def payment_to_domain(row: PaymentRow) -> Payment:
    return Payment(
        id=row.id,
        booking_id=row.booking_id,
        provider=row.provider,
        payment_intent_id=row.payment_intent_id,
        client_secret=row.client_secret,
        amount=row.amount,
        currency=row.currency,
        status=PaymentStatus(row.status),
        failure_message=row.failure_message,
        paid_at=row.paid_at,
        refunded_at=row.refunded_at,
        refunded_amount=row.refunded_amount,
        paid_mails_owed=row.paid_mails_owed,
        refund_asked=row.refund_asked,
        created_at=row.created_at,
    )


def payment_from_domain(payment: Payment, row: PaymentRow | None = None) -> PaymentRow:
    row = row if row is not None else PaymentRow(id=payment.id)
    row.booking_id = payment.booking_id
    row.provider = payment.provider
    row.payment_intent_id = payment.payment_intent_id
    row.client_secret = payment.client_secret
    row.amount = payment.amount
    row.currency = payment.currency
    row.status = payment.status.value
    row.failure_message = payment.failure_message
    row.paid_at = payment.paid_at
    row.refunded_at = payment.refunded_at
    row.refunded_amount = payment.refunded_amount
    row.paid_mails_owed = payment.paid_mails_owed
    row.refund_asked = payment.refund_asked
    row.created_at = payment.created_at
    return row


@translate_errors
class SqlaPayments:
    """Payment intents of bookings, and the provider events already handled."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, payment: Payment) -> None:
        self._session.add(payment_from_domain(payment))
        self._session.flush()

    def save(self, payment: Payment) -> None:
        row = self._session.get(PaymentRow, payment.id)
        if row is None:
            raise NotFound(f"Payment {payment.id} does not exist.")
        payment_from_domain(payment, row)
        self._session.flush()

    def for_booking(self, booking_id: str) -> Sequence[Payment]:
        stmt = (
            select(PaymentRow).filter_by(booking_id=booking_id).order_by(PaymentRow.created_at, PaymentRow.id)
        )
        return [payment_to_domain(row) for row in self._session.scalars(stmt)]

    def for_bookings(self, booking_ids: Sequence[str]) -> dict[str, Sequence[Payment]]:
        if not booking_ids:
            return {}
        stmt = (
            select(PaymentRow)
            .where(PaymentRow.booking_id.in_(set(booking_ids)))
            .order_by(PaymentRow.created_at, PaymentRow.id)
        )
        found: dict[str, list[Payment]] = {}
        for row in self._session.scalars(stmt):
            found.setdefault(row.booking_id, []).append(payment_to_domain(row))
        return dict(found)

    def by_intent(self, payment_intent_id: str) -> Payment | None:
        stmt = select(PaymentRow).filter_by(payment_intent_id=payment_intent_id)
        row = self._session.scalars(stmt).one_or_none()
        return payment_to_domain(row) if row else None

    def mark_event_processed(self, event_id: str, processed_at: datetime) -> bool:
        # INSERT .. ON CONFLICT DO NOTHING: a concurrent duplicate delivery waits for the first
        # transaction and then inserts nothing, instead of failing with a unique violation.
        dialect = self._session.get_bind().dialect.name
        insert: Any = postgresql.insert if dialect == "postgresql" else sqlite.insert
        key = hashlib.sha256(event_id.encode()).hexdigest()  # an id of any length, a key of 64
        stmt = (
            insert(ProcessedEventRow.__table__)
            .values(event_key=key, event_id=event_id, processed_at=processed_at)
            .on_conflict_do_nothing(index_elements=["event_key"])
            .returning(ProcessedEventRow.__table__.c.event_key)
        )
        return self._session.execute(stmt).first() is not None
