"""The bookings table and its double-booking guard."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    SmallInteger,
    String,
    Text,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import ExcludeConstraint
from sqlalchemy.orm import Mapped, mapped_column

from adapters.sqla.models.base import Base, trigram_index
from adapters.sqla.types import Money, UtcDateTime

#: Name of the PostgreSQL exclusion constraint; a violation of it means "slot taken".
NO_OVERLAP_CONSTRAINT = "bookings_no_overlap"
#: What the triggers of migration 0018 raise for a booking over closed time (an unavailable period):
#: "slot taken" as well.
CLOSED_TIME_GUARD = "booking_in_closed_time"
BLOCKING_STATUS_SQL = "status IN ('pending', 'confirmed', 'paid')"
PENDING_STATUS_SQL = "status = 'pending'"
LIVE_STATUS_SQL = "status IN ('confirmed', 'paid')"


def _partial_index(name: str, *columns: str, where: str) -> Index:
    return Index(name, *columns, postgresql_where=text(where), sqlite_where=text(where))


class BookingRow(Base):
    __tablename__ = "bookings"
    __table_args__ = (
        CheckConstraint("end_at > start_at", name="positive_span"),
        Index(None, "resource_id", "start_at"),
        # Partial indexes hold only the rows their queries look for, so a new (pending, direct) booking
        # enters none of them. The predicates are literal SQL, spelled the same in the queries, so that
        # prepared statements can use them.
        _partial_index("ix_bookings_live_end_at", "end_at", where=LIVE_STATUS_SQL),  # the completion sweep
        _partial_index("ix_bookings_pending_hold_expires_at", "hold_expires_at", where=PENDING_STATUS_SQL),
        # The booking lists (latest first, upcoming soonest first) of a user and of a client.
        Index(None, "user_id", "start_at", "id"),
        _partial_index(
            "ix_bookings_client_id_start_at_id", "client_id", "start_at", "id", where="client_id IS NOT NULL"
        ),
        # The staff's bookings search over every venue, latest start first (migration 0017), and by
        # any part of the reference code (migration 0019).
        Index(None, "start_at", "id"),
        trigram_index("ix_bookings_reference_code_trgm", "reference_code"),
        # PostgreSQL only (btree_gist): no two blocking bookings of one resource may overlap, whatever
        # the application does. On SQLite, BEGIN IMMEDIATE serializes the check-then-insert instead.
        ExcludeConstraint(
            ("resource_id", "="),
            (func.tstzrange(text("start_at"), text("end_at"), "[)"), "&&"),
            name=NO_OVERLAP_CONSTRAINT,
            using="gist",
            where=text(BLOCKING_STATUS_SQL),
        ).ddl_if(dialect="postgresql"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    reference_code: Mapped[str] = mapped_column(String(16), unique=True)
    resource_id: Mapped[int] = mapped_column(ForeignKey("resources.id", ondelete="RESTRICT"))
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="RESTRICT"))
    client_id: Mapped[int | None] = mapped_column(ForeignKey("clients.id", ondelete="RESTRICT"))
    start_at: Mapped[datetime] = mapped_column(UtcDateTime)
    end_at: Mapped[datetime] = mapped_column(UtcDateTime)
    participant_count: Mapped[int] = mapped_column(Integer, default=1)
    price_per_unit: Mapped[Decimal] = mapped_column(Money())
    pricing_unit: Mapped[str] = mapped_column(String(20))
    total_price: Mapped[Decimal] = mapped_column(Money())
    currency: Mapped[str] = mapped_column(String(3))
    status: Mapped[str] = mapped_column(String(20))
    notes: Mapped[str] = mapped_column(Text, default="")
    cancellation_reason: Mapped[str | None] = mapped_column(String(20))
    cancellation_notes: Mapped[str] = mapped_column(Text, default="")
    hold_expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    confirmed_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    paid_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    cancelled_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    refunded_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # who made it (online, client, staff) and how it is paid (online, at_venue, or a recorded method)
    source: Mapped[str] = mapped_column(String(10), server_default="online")
    payment_method: Mapped[str] = mapped_column(String(20), server_default="online")
    checked_in_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


class BookingRevisionRow(Base):
    """Per resource, counters that move with every change to its bookings (database triggers).

    A resource's booking revision is the sum of its rows, at most one per ``shard``: on PostgreSQL
    each database connection counts in the shard of its process id, so that concurrent bookings of
    one resource do not wait for each other's commit on one row (SQLite counts in shard 0). Caches
    of a resource's availability compare against the sum; migrations 0003 and 0010 install the
    triggers.
    """

    __tablename__ = "booking_revisions"

    resource_id: Mapped[int] = mapped_column(
        ForeignKey("resources.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    shard: Mapped[int] = mapped_column(
        SmallInteger, primary_key=True, autoincrement=False, server_default="0"
    )
    revision: Mapped[int] = mapped_column(BigInteger, default=0)
