"""Between ``bookings`` rows and domain bookings, both ways; no row leaves the adapter."""

from __future__ import annotations

from datetime import datetime

from adapters.sqla.models import BookingRow
from booking_core.availability import BookedSlot
from booking_core.booking import Booking, BookingSource, BookingStatus, CancellationReason, PaymentMethod
from booking_core.catalog import PriceUnit


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
        source=BookingSource(row.source),
        payment_method=PaymentMethod(row.payment_method),
        checked_in_at=row.checked_in_at,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def booking_from_domain(booking: Booking, row: BookingRow | None = None) -> BookingRow:
    """``row`` (a new one when None) with every column set from ``booking``."""
    row = row if row is not None else BookingRow(id=booking.id)
    for column, value in booking_values(booking).items():
        setattr(row, column, value)
    return row


def booking_values(booking: Booking) -> dict[str, object]:
    """The ``bookings`` columns of ``booking``."""
    return {
        "id": booking.id,
        "reference_code": booking.reference_code,
        "resource_id": booking.resource_id,
        "user_id": booking.user_id,
        "client_id": booking.client_id,
        "start_at": booking.start,
        "end_at": booking.end,
        "participant_count": booking.participant_count,
        "price_per_unit": booking.price_per_unit,
        "pricing_unit": booking.pricing_unit.value,
        "total_price": booking.total_price,
        "currency": booking.currency,
        "status": booking.status.value,
        "notes": booking.notes,
        "cancellation_reason": booking.cancellation_reason.value if booking.cancellation_reason else None,
        "cancellation_notes": booking.cancellation_notes,
        "hold_expires_at": booking.hold_expires_at,
        "confirmed_at": booking.confirmed_at,
        "paid_at": booking.paid_at,
        "cancelled_at": booking.cancelled_at,
        "refunded_at": booking.refunded_at,
        "source": booking.source.value,
        "payment_method": booking.payment_method.value,
        "checked_in_at": booking.checked_in_at,
        "created_at": booking.created_at,
        "updated_at": booking.updated_at,
    }


def slot(booking_id: str, start: datetime, end: datetime, status: str, hold: datetime | None) -> BookedSlot:
    """A booking's slot from the slot columns (:data:`SLOT_COLUMNS` of the statements)."""
    pending = status == BookingStatus.PENDING.value
    return BookedSlot(start=start, end=end, booking_id=booking_id, hold_expires_at=hold if pending else None)
