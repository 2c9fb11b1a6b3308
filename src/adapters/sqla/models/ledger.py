"""Money after booking: payments, provider events already handled, commissions and their payouts."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from adapters.sqla.models.base import Base
from adapters.sqla.types import Money, Percent, UtcDateTime

UNACCEPTED_SQL = "accepted_at IS NULL"


class PaymentRow(Base):
    __tablename__ = "payments"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    booking_id: Mapped[str] = mapped_column(ForeignKey("bookings.id", ondelete="CASCADE"), index=True)
    provider: Mapped[str] = mapped_column(String(20))
    payment_intent_id: Mapped[str] = mapped_column(String(255), unique=True)
    client_secret: Mapped[str] = mapped_column(String(255))
    amount: Mapped[Decimal] = mapped_column(Money())
    currency: Mapped[str] = mapped_column(String(3))
    status: Mapped[str] = mapped_column(String(20))
    failure_message: Mapped[str] = mapped_column(Text, default="")
    paid_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    refunded_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    refunded_amount: Mapped[Decimal] = mapped_column(Money(), default=Decimal("0.00"))
    paid_mails_owed: Mapped[bool] = mapped_column(Boolean, default=False)
    refund_asked: Mapped[Decimal | None] = mapped_column(Money())
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class ProcessedEventRow(Base):
    """Inbound provider events already handled, so a redelivery changes nothing.

    Keyed by the SHA-256 of the event id (``event_key``): ids may be of any length, and an index
    entry may not (migration 0012).
    """

    __tablename__ = "processed_events"

    event_key: Mapped[str] = mapped_column(String(64), primary_key=True)
    event_id: Mapped[str] = mapped_column(Text)
    processed_at: Mapped[datetime] = mapped_column(UtcDateTime)


class RefundRequestRow(Base):
    """The one refund request of a payment, kept until the provider accepts it (or reports the refund)."""

    __tablename__ = "refund_requests"
    __table_args__ = (
        # the worker's sweep looks only for requests not accepted yet
        Index(
            "ix_refund_requests_next_attempt_at",
            "next_attempt_at",
            postgresql_where=text(UNACCEPTED_SQL),
            sqlite_where=text(UNACCEPTED_SQL),
        ),
    )

    payment_id: Mapped[str] = mapped_column(ForeignKey("payments.id", ondelete="CASCADE"), primary_key=True)
    booking_id: Mapped[str] = mapped_column(ForeignKey("bookings.id", ondelete="CASCADE"), index=True)
    payment_intent_id: Mapped[str] = mapped_column(String(255))
    idempotency_key: Mapped[str] = mapped_column(String(255))
    amount: Mapped[Decimal | None] = mapped_column(Money())
    requested_at: Mapped[datetime] = mapped_column(UtcDateTime)
    next_attempt_at: Mapped[datetime] = mapped_column(UtcDateTime)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    accepted_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    provider_refund_id: Mapped[str | None] = mapped_column(String(255))
    last_error: Mapped[str] = mapped_column(Text, default="")


class CommissionRow(Base):
    __tablename__ = "commissions"
    __table_args__ = (
        Index(None, "month", "client_id"),  # the monthly report and the payout
        Index(None, "client_id", "month", "created_at", "id"),  # the client's list, a page at a time
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    # not unique: a refund after a payout adds a correcting record to the booking's first one
    booking_id: Mapped[str] = mapped_column(ForeignKey("bookings.id", ondelete="RESTRICT"), index=True)
    reference_code: Mapped[str] = mapped_column(String(16))
    client_id: Mapped[int] = mapped_column(ForeignKey("clients.id", ondelete="RESTRICT"))
    base_amount: Mapped[Decimal] = mapped_column(Money())
    commission_percent: Mapped[Decimal] = mapped_column(Percent())
    amount: Mapped[Decimal] = mapped_column(Money())
    currency: Mapped[str] = mapped_column(String(3))
    month: Mapped[str] = mapped_column(String(7))
    status: Mapped[str] = mapped_column(String(20), default="open")
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    payout_batch_id: Mapped[str | None] = mapped_column(
        ForeignKey("payout_batches.id", ondelete="RESTRICT"), index=True
    )


#: At most one batch per month may be prepared and not completed.
PREPARED_SQL = "status = 'prepared'"


class PayoutBatchRow(Base):
    """One bank file paying a month's commissions; ``document`` is the file as it is written."""

    __tablename__ = "payout_batches"
    __table_args__ = (
        Index(
            "uq_payout_batches_prepared_month",
            "month",
            unique=True,
            postgresql_where=text(PREPARED_SQL),
            sqlite_where=text(PREPARED_SQL),
        ),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    month: Mapped[str] = mapped_column(String(7))
    status: Mapped[str] = mapped_column(String(20))
    transfers: Mapped[int] = mapped_column(Integer)
    total: Mapped[Decimal] = mapped_column(Money())
    document: Mapped[str] = mapped_column(Text)
    prepared_at: Mapped[datetime] = mapped_column(UtcDateTime)
    completed_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    file_path: Mapped[str] = mapped_column(Text, default="")
