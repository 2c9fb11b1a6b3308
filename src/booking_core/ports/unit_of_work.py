"""The unit of work: one transaction over every repository."""

from __future__ import annotations

from types import TracebackType
from typing import Protocol, Self

from booking_core.ports.idempotency import IdempotencyRecords
from booking_core.ports.repositories import (
    Bookings,
    Clients,
    Commissions,
    Payments,
    ResourceMappings,
    Resources,
    Tokens,
    UserMappings,
    Users,
    VenueMappings,
)
from booking_core.ports.services import Outbox


class UnitOfWork(Protocol):
    """A transaction. Leaving the ``with`` block without ``commit()`` rolls everything back.

    A storage failure raises :class:`~booking_core.errors.StorageUnavailable`; a commit that
    breaks the double-booking guard raises :class:`~booking_core.errors.SlotUnavailable`.
    """

    resources: Resources
    bookings: Bookings
    users: Users
    tokens: Tokens
    clients: Clients
    user_mappings: UserMappings
    resource_mappings: ResourceMappings
    venue_mappings: VenueMappings
    commissions: Commissions
    payments: Payments
    outbox: Outbox
    idempotency: IdempotencyRecords

    def __enter__(self) -> Self:
        """Begin the transaction."""

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Roll back whatever was not committed, and release the connection."""

    def commit(self) -> None:
        """Make the changes durable."""

    def rollback(self) -> None:
        """Discard the changes."""
