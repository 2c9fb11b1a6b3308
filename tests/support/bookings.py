"""Builders of bookings for the storage contract tests (one resource in Berlin, one user)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from booking_core.booking import Booking, BookingStatus
from booking_core.ports import UnitOfWork

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)
DAY = date(2026, 6, 10)
USER_ID = "00000000-0000-4000-8000-000000000001"

_counter = iter(range(1, 1_000_000))


class HasUnitOfWork(Protocol):
    """A storage under test: anything with a unit-of-work factory."""

    @property
    def uow(self) -> Callable[[], UnitOfWork]: ...


def at(hhmm: str, day: date = DAY) -> datetime:
    """``hhmm`` on ``day`` in Berlin."""
    return datetime.combine(day, time.fromisoformat(hhmm), BERLIN)


def make_booking(start: str | datetime, end: str | datetime, **fields: Any) -> Booking:
    """A confirmed booking of resource 1 by USER_ID (times as ``HH:MM`` on DAY, or instants)."""
    n = next(_counter)
    defaults: dict[str, Any] = {
        "id": f"00000000-0000-4000-9000-{n:012d}",
        "reference_code": f"R{n:07d}",
        "resource_id": 1,
        "user_id": USER_ID,
        "start": at(start) if isinstance(start, str) else start,
        "end": at(end) if isinstance(end, str) else end,
        "price_per_unit": Decimal("20.00"),
        "total_price": Decimal("40.00"),
        "status": BookingStatus.CONFIRMED,
        "created_at": NOW,
        "updated_at": NOW,
    }
    return Booking(**(defaults | fields))


def add_bookings(backend: HasUnitOfWork, *bookings: Booking) -> None:
    """Store ``bookings`` in one committed unit of work."""
    with backend.uow() as uow:
        for booking in bookings:
            uow.bookings.add(booking)
        uow.commit()
