"""What every use case is given: the ports, built once by the composition root."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from booking_core.ports import (
    CatalogFiles,
    Clock,
    Currencies,
    IdGenerator,
    PasswordHasher,
    PaymentGateway,
    UnitOfWork,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Deps:
    """The ports a use case may use. ``uow`` opens a fresh unit of work per call.

    ``reads`` opens one for use cases that only read: the storage may then skip the transaction
    (each statement sees what is committed), which costs fewer round trips. None means ``uow``.
    ``lagging_reads`` opens one for read-only work that may see the latest writes a moment late
    (browsing, availability, lists): a read replica. Never for a check a write depends on. None
    means ``reads``.
    ``catalog`` reads, checks and upserts venues in the catalog file's shape (the operator API's
    catalog, CONTRACT 7.5); None where no storage adapter provides it (the in-memory store).
    ``max_unpaid_per_user``: pending bookings with a live hold one user may have at once.
    ``currencies`` gives each currency's minor unit and the amounts the payment provider takes.
    """

    uow: Callable[[], UnitOfWork]
    clock: Clock
    ids: IdGenerator
    passwords: PasswordHasher
    payments: PaymentGateway
    currencies: Currencies
    hold_minutes: int = 15
    max_unpaid_per_user: int = 5
    reads: Callable[[], UnitOfWork] | None = None
    lagging_reads: Callable[[], UnitOfWork] | None = None
    catalog: CatalogFiles | None = None

    def read(self) -> UnitOfWork:
        """A unit of work for reading only (never commit it)."""
        return (self.reads or self.uow)()

    def read_lagging(self) -> UnitOfWork:
        """A unit of work for reading only, possibly a moment behind the latest writes (never commit it)."""
        return (self.lagging_reads or self.reads or self.uow)()
