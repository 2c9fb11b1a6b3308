"""Bookings, and the overlap queries the double-booking check and the worker run."""

from __future__ import annotations

import builtins
from datetime import datetime

from sqlalchemy import ColumnElement, and_, or_, select
from sqlalchemy.orm import Session

from adapters.sqla.errors import translate_errors
from adapters.sqla.models import BookingRow
from booking_core.availability import BookedSlot
from booking_core.booking import Booking, BookingStatus, CancellationReason
from booking_core.catalog import PriceUnit
from booking_core.errors import NotFound
from booking_core.ports.repositories import BookingQuery
from booking_core.timerange import TimeRange

# Mirrors Booking.blocks_time: confirmed and paid always block, pending only while its hold lasts.
_LIVE = [BookingStatus.CONFIRMED.value, BookingStatus.PAID.value]


def booking_to_domain(row: BookingRow) -> Booking:
    return Booking(
        id=row.id,
        reference_code=row.reference_code,
        resource_id=row.resource_id,
        user_id=row.user_id,
        client_id=row.client_id,
        start=row.start_at,
        end=row.end_at,
        participant_count=row.participant_count,
        price_per_unit=row.price_per_unit,
        pricing_unit=PriceUnit(row.pricing_unit),
        total_price=row.total_price,
        currency=row.currency,
        status=BookingStatus(row.status),
        notes=row.notes,
        cancellation_reason=CancellationReason(row.cancellation_reason) if row.cancellation_reason else None,
        cancellation_notes=row.cancellation_notes,
        hold_expires_at=row.hold_expires_at,
        confirmed_at=row.confirmed_at,
        paid_at=row.paid_at,
        cancelled_at=row.cancelled_at,
        refunded_at=row.refunded_at,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def booking_from_domain(booking: Booking, row: BookingRow | None = None) -> BookingRow:
    """``row`` (a new one when None) with every column set from ``booking``."""
    row = row if row is not None else BookingRow(id=booking.id)
    row.reference_code = booking.reference_code
    row.resource_id = booking.resource_id
    row.user_id = booking.user_id
    row.client_id = booking.client_id
    row.start_at = booking.start
    row.end_at = booking.end
    row.participant_count = booking.participant_count
    row.price_per_unit = booking.price_per_unit
    row.pricing_unit = booking.pricing_unit.value
    row.total_price = booking.total_price
    row.currency = booking.currency
    row.status = booking.status.value
    row.notes = booking.notes
    row.cancellation_reason = booking.cancellation_reason.value if booking.cancellation_reason else None
    row.cancellation_notes = booking.cancellation_notes
    row.hold_expires_at = booking.hold_expires_at
    row.confirmed_at = booking.confirmed_at
    row.paid_at = booking.paid_at
    row.cancelled_at = booking.cancelled_at
    row.refunded_at = booking.refunded_at
    row.created_at = booking.created_at
    row.updated_at = booking.updated_at
    return row


@translate_errors
class SqlaBookings:
    """Bookings in the ``bookings`` table. ``add``/``save`` flush, so constraint errors surface at once."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, booking: Booking) -> None:
        self._session.add(booking_from_domain(booking))
        self._session.flush()

    def save(self, booking: Booking) -> None:
        row = self._session.get(BookingRow, booking.id)
        if row is None:
            raise NotFound(f"Booking {booking.id} does not exist.")
        booking_from_domain(booking, row)
        self._session.flush()

    def get(self, booking_id: str) -> Booking | None:
        row = self._session.get(BookingRow, booking_id)
        return booking_to_domain(row) if row else None

    def get_by_reference(self, reference_code: str) -> Booking | None:
        stmt = select(BookingRow).where(BookingRow.reference_code == reference_code)
        row = self._session.scalars(stmt).one_or_none()
        return booking_to_domain(row) if row else None

    def blocked_slots(self, resource_id: int, span: TimeRange, now: datetime) -> builtins.list[BookedSlot]:
        stmt = (
            select(BookingRow.id, BookingRow.start_at, BookingRow.end_at)
            .where(*_blocking(resource_id, span, now))
            .order_by(BookingRow.start_at, BookingRow.id)
        )
        return [
            BookedSlot(start=start, end=end, booking_id=booking_id)
            for booking_id, start, end in self._session.execute(stmt)
        ]

    def list(self, query: BookingQuery) -> builtins.list[Booking]:
        stmt = select(BookingRow).order_by(BookingRow.start_at.desc(), BookingRow.id.desc())
        if query.user_id is not None:
            stmt = stmt.where(BookingRow.user_id == query.user_id)
        if query.client_id is not None:
            stmt = stmt.where(BookingRow.client_id == query.client_id)
        if query.only_client_bookings:
            stmt = stmt.where(BookingRow.client_id.is_not(None))
        if query.starts_after is not None:
            stmt = stmt.where(BookingRow.start_at > query.starts_after)
        return [booking_to_domain(row) for row in self._session.scalars(stmt)]

    def expired_holds(self, now: datetime, resource_id: int | None = None) -> builtins.list[Booking]:
        stmt = (
            select(BookingRow)
            .where(
                BookingRow.status == BookingStatus.PENDING.value,
                BookingRow.hold_expires_at.is_not(None),
                BookingRow.hold_expires_at <= now,
            )
            .order_by(BookingRow.hold_expires_at, BookingRow.id)
            .execution_options(populate_existing=True)
        )
        if resource_id is not None:
            stmt = stmt.where(BookingRow.resource_id == resource_id)
        return [booking_to_domain(row) for row in self._session.scalars(stmt)]

    def ended(self, now: datetime) -> builtins.list[Booking]:
        stmt = (
            select(BookingRow)
            .where(BookingRow.status.in_(_LIVE), BookingRow.end_at <= now)
            .order_by(BookingRow.end_at, BookingRow.id)
        )
        return [booking_to_domain(row) for row in self._session.scalars(stmt)]


def _blocking(resource_id: int, span: TimeRange, now: datetime) -> tuple[ColumnElement[bool], ...]:
    """Bookings of the resource overlapping ``span`` that block time at ``now``."""
    return (
        BookingRow.resource_id == resource_id,
        BookingRow.start_at < span.end,
        BookingRow.end_at > span.start,
        or_(
            BookingRow.status.in_(_LIVE),
            and_(
                BookingRow.status == BookingStatus.PENDING.value,
                or_(BookingRow.hold_expires_at.is_(None), BookingRow.hold_expires_at > now),
            ),
        ),
    )
