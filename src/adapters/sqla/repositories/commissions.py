"""Clients' commission records, and the payout batches that pay them."""

from __future__ import annotations

import builtins

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from adapters.sqla.errors import translate_errors
from adapters.sqla.models import CommissionRow, PayoutBatchRow
from booking_core.commission import Commission, CommissionStatus
from booking_core.errors import BadRequest, NotFound
from booking_core.payout import PayoutBatch, PayoutStatus


def commission_to_domain(row: CommissionRow) -> Commission:
    return Commission(
        id=row.id,
        booking_id=row.booking_id,
        reference_code=row.reference_code,
        client_id=row.client_id,
        base_amount=row.base_amount,
        commission_percent=row.commission_percent,
        amount=row.amount,
        currency=row.currency,
        month=row.month,
        status=CommissionStatus(row.status),
        created_at=row.created_at,
        payout_batch_id=row.payout_batch_id,
    )


def commission_from_domain(commission: Commission, row: CommissionRow | None = None) -> CommissionRow:
    row = row if row is not None else CommissionRow(id=commission.id)
    row.booking_id = commission.booking_id
    row.reference_code = commission.reference_code
    row.client_id = commission.client_id
    row.base_amount = commission.base_amount
    row.commission_percent = commission.commission_percent
    row.amount = commission.amount
    row.currency = commission.currency
    row.month = commission.month
    row.status = commission.status.value
    row.created_at = commission.created_at
    row.payout_batch_id = commission.payout_batch_id
    return row


def batch_to_domain(row: PayoutBatchRow) -> PayoutBatch:
    return PayoutBatch(
        id=row.id,
        month=row.month,
        status=PayoutStatus(row.status),
        transfers=row.transfers,
        total=row.total,
        document=row.document,
        prepared_at=row.prepared_at,
        completed_at=row.completed_at,
        file_path=row.file_path,
    )


def batch_from_domain(batch: PayoutBatch, row: PayoutBatchRow | None = None) -> PayoutBatchRow:
    row = row if row is not None else PayoutBatchRow(id=batch.id)
    row.month = batch.month
    row.status = batch.status.value
    row.transfers = batch.transfers
    row.total = batch.total
    row.document = batch.document
    row.prepared_at = batch.prepared_at
    row.completed_at = batch.completed_at
    row.file_path = batch.file_path
    return row


@translate_errors
class SqlaCommissions:
    """Clients' commission records, one per paid booking."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, commission: Commission) -> None:
        self._session.add(commission_from_domain(commission))
        self._session.flush()

    def save(self, commission: Commission) -> None:
        row = self._session.get(CommissionRow, commission.id)
        if row is None:
            raise NotFound(f"Commission {commission.id} does not exist.")
        commission_from_domain(commission, row)
        self._session.flush()

    def of_booking(self, booking_id: str) -> builtins.list[Commission]:
        # FOR UPDATE: a refund's correction and a payout never change a record on stale reads
        stmt = (
            select(CommissionRow)
            .filter_by(booking_id=booking_id)
            .order_by(CommissionRow.created_at, CommissionRow.id)
            .with_for_update()
        )
        return [commission_to_domain(row) for row in self._session.scalars(stmt)]

    def list(
        self, *, client_id: int | None, month: str, limit: int | None = None, offset: int = 0
    ) -> builtins.list[Commission]:
        # a client's page reads (client_id, month, created_at, id) in order and stops at its end
        stmt = (
            select(CommissionRow).filter_by(month=month).order_by(CommissionRow.created_at, CommissionRow.id)
        )
        if client_id is not None:
            stmt = stmt.filter_by(client_id=client_id)
        return [commission_to_domain(row) for row in self._session.scalars(stmt.limit(limit).offset(offset))]

    def open_for_payout(self, month: str) -> builtins.list[Commission]:
        # PostgreSQL re-checks the WHERE of a row it waited for: records held by a concurrent payout
        # drop out. SQLite has one writer at a time (BEGIN IMMEDIATE), so there is nothing to lock.
        stmt = (
            select(CommissionRow)
            .filter_by(month=month, status=CommissionStatus.OPEN.value, payout_batch_id=None)
            .order_by(CommissionRow.created_at, CommissionRow.id)
            .with_for_update()
        )
        return [commission_to_domain(row) for row in self._session.scalars(stmt)]

    def in_batch(self, batch_id: str) -> builtins.list[Commission]:
        stmt = (
            select(CommissionRow)
            .filter_by(payout_batch_id=batch_id)
            .order_by(CommissionRow.id)
            .with_for_update()
        )
        return [commission_to_domain(row) for row in self._session.scalars(stmt)]

    def add_batch(self, batch: PayoutBatch) -> None:
        self._session.add(batch_from_domain(batch))
        try:
            self._session.flush()
        except IntegrityError:
            raise BadRequest(
                f"Another payout run prepared a batch of {batch.month} meanwhile; run the payout again "
                "once it has finished (it finishes that batch if the other run was interrupted)."
            ) from None

    def save_batch(self, batch: PayoutBatch) -> None:
        row = self._session.get(PayoutBatchRow, batch.id)
        if row is None:
            raise NotFound(f"Payout batch {batch.id} does not exist.")
        batch_from_domain(batch, row)
        self._session.flush()

    def unfinished_batch(self, month: str) -> PayoutBatch | None:
        stmt = (
            select(PayoutBatchRow)
            .filter_by(month=month, status=PayoutStatus.PREPARED.value)
            .with_for_update()
        )
        row = self._session.scalars(stmt).one_or_none()
        return batch_to_domain(row) if row else None
