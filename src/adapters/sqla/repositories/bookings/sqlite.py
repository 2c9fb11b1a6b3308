"""Bookings on SQLite: a claim is a read and an INSERT by the only writer.

Every writing unit of work begins with ``BEGIN IMMEDIATE``, which excludes every other writer until
it ends: nothing can come between the check and the INSERT, so no lock of its own is needed. SQLite
has no exclusion constraint: the claim refuses a booking in the way itself, whatever ``accept`` says.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_

from adapters.sqla.errors import translate_errors
from adapters.sqla.repositories.bookings._base import SqlaBookings
from adapters.sqla.repositories.bookings._statements import (
    BLOCKING,
    OVERLAPS,
    UNPAID_HOLDS,
    blocked,
    in_blocking_state,
    live,
)
from booking_core.booking import Booking, BookingStatus
from booking_core.claims import Accept, Neighbourhood

_NEAR_SLOTS = in_blocking_state(and_(OVERLAPS, BLOCKING))


@translate_errors
class SqliteBookings(SqlaBookings):
    """Bookings on SQLite, where one writer at a time makes every claim's check and store one step."""

    _DIALECT = "sqlite"
    _BLOCKED = blocked(OVERLAPS)
    _LIVE = live(OVERLAPS)
    _NEAR = _NEAR_SLOTS

    def claim(self, booking: Booking, near: Neighbourhood, accept: Accept, *, now: datetime) -> None:
        connection = self._session.connection()
        span = {"resource_id": booking.resource_id, "start": near.span.start, "end": near.span.end}
        found = connection.execute(_NEAR_SLOTS, span).all()
        unpaid = 0
        if booking.status is BookingStatus.PENDING:
            unpaid = connection.execute(UNPAID_HOLDS, {"holder": booking.user_id, "now": now}).scalar_one()
        self._settle(booking, found, unpaid, accept, stored=False, now=now)

    def _lock_claimed_time(self, claim: Booking, near: Neighbourhood) -> None:
        """Nothing to lock: ``BEGIN IMMEDIATE`` already excludes every other writer."""

    def _lock_resource(self, resource_id: int) -> None:
        """Nothing to lock: ``BEGIN IMMEDIATE`` already excludes every other writer."""

    def _lock_resource_of(self, booking_id: str, *, exclusive: bool) -> None:
        """Nothing to lock: ``BEGIN IMMEDIATE`` already excludes every other writer."""
