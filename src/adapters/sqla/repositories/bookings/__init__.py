"""Bookings: one repository per database (a strategy each), chosen once per engine.

Both share everything but the claim (:meth:`booking_core.ports.Bookings.claim`) and the statements
that differ: on PostgreSQL the claim is one statement behind the locks it needs, under the
exclusion constraint; on SQLite, whose single writer serializes every claim, a read and an INSERT.
"""

from adapters.sqla.repositories.bookings._base import SqlaBookings
from adapters.sqla.repositories.bookings._mapping import (
    booking_from_domain,
    booking_to_domain,
    booking_values,
)
from adapters.sqla.repositories.bookings.postgres import PostgresBookings
from adapters.sqla.repositories.bookings.sqlite import SqliteBookings


def bookings_for(dialect: str) -> type[SqlaBookings]:
    """The bookings repository of a database, by its SQLAlchemy dialect name."""
    return PostgresBookings if dialect == "postgresql" else SqliteBookings


__all__ = [
    "PostgresBookings",
    "SqlaBookings",
    "SqliteBookings",
    "booking_from_domain",
    "booking_to_domain",
    "booking_values",
    "bookings_for",
]
