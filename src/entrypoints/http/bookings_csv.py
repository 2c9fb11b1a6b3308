"""The staff's bookings search as CSV (CONTRACT 7.4 ``format=csv``): a header row, then a row per
booking, written a chunk at a time as the search reads them.

Text that people typed (names, emails, notes) is written so that a spreadsheet shows it as text:
a cell that would start with ``=``, ``+``, ``-`` or ``@`` gets a leading apostrophe (OWASP's advice
against formula injection).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator

from booking_core.usecases.views import OpBookingView
from entrypoints.http.structs.operator import OpBooking

COLUMNS = (
    "id",
    "reference_code",
    "status",
    "venue_slug",
    "resource_id",
    "resource_name",
    "start_datetime",
    "end_datetime",
    "duration_minutes",
    "participant_count",
    "total_price",
    "currency",
    "customer_user_id",
    "customer_name",
    "customer_email",
    "source",
    "payment_method",
    "payment_status",
    "checked_in_at",
    "created_at",
    "notes",
)
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_chunks(chunks: Iterable[list[OpBookingView]]) -> Iterator[str]:
    """The header row, then one block of rows per chunk of bookings."""
    yield _lines([COLUMNS])
    for chunk in chunks:
        yield _lines(_row(OpBooking.of_op(op)) for op in chunk)


def _row(b: OpBooking) -> tuple[object, ...]:
    return (
        b.id,
        b.reference_code,
        b.status,
        b.resource.venue_slug,
        b.resource.id,
        _text(b.resource_name),
        b.start_datetime.isoformat(),
        b.end_datetime.isoformat(),
        b.duration_minutes,
        b.participant_count,
        b.total_price,
        b.currency,
        b.customer.user_id,
        _text(b.customer.name),
        _text(b.customer.email),
        b.source,
        b.payment_method,
        b.payment.status if b.payment is not None else "",
        b.checked_in_at.isoformat() if b.checked_in_at is not None else "",
        b.created_at.isoformat(),
        _text(b.notes),
    )


def _text(value: str) -> str:
    return "'" + value if value.startswith(_FORMULA_STARTS) else value


def _lines(rows: Iterable[Iterable[object]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(rows)
    return out.getvalue()
