"""The service's own compiled statements, for the benchmarks' floors: the one place they reach them.

The booking floor runs what a ``POST /api/v1/bookings/`` asks of PostgreSQL (the token with the
catalog revision, then the claim) on a bare pool, so that what a booking costs beyond it is the
service's. Production modules keep these for their own use; nothing there is public for a benchmark.
"""

from adapters.sqla.repositories.accounts import PRINCIPAL
from adapters.sqla.repositories.bookings import booking_values
from adapters.sqla.repositories.bookings.postgres import CLAIM

__all__ = ["CLAIM", "PRINCIPAL", "booking_values"]
