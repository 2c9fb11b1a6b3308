"""The unit of work: one transaction over every repository."""

from __future__ import annotations

from types import TracebackType
from typing import Protocol, Self

from booking_core.ports.account_codes import AccountCodes
from booking_core.ports.idempotency import IdempotencyRecords
from booking_core.ports.mail import OutboxQueue
from booking_core.ports.refunds import Refunds
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

    A storage failure raises :class:`~booking_core.errors.StorageUnavailable`, a conflict with a
    concurrent transaction that is worth retrying (deadlock, serialization failure, a busy database)
    its subclass :class:`~booking_core.errors.TransientConflict`; a commit that breaks the
    double-booking guard raises :class:`~booking_core.errors.SlotUnavailable`.
    """

    @property
    def resources(self) -> Resources:
        """The resources of this transaction."""

    @property
    def bookings(self) -> Bookings:
        """The bookings of this transaction."""

    @property
    def users(self) -> Users:
        """The users of this transaction."""

    @property
    def tokens(self) -> Tokens:
        """The tokens of this transaction."""

    @property
    def account_codes(self) -> AccountCodes:
        """The one-time codes of this transaction."""

    @property
    def clients(self) -> Clients:
        """The clients of this transaction."""

    @property
    def user_mappings(self) -> UserMappings:
        """The user mappings of this transaction."""

    @property
    def resource_mappings(self) -> ResourceMappings:
        """The resource mappings of this transaction."""

    @property
    def venue_mappings(self) -> VenueMappings:
        """The venue mappings of this transaction."""

    @property
    def commissions(self) -> Commissions:
        """The commissions of this transaction."""

    @property
    def payments(self) -> Payments:
        """The payments of this transaction."""

    @property
    def refunds(self) -> Refunds:
        """The refund requests of this transaction."""

    @property
    def outbox(self) -> Outbox:
        """The outbox of this transaction."""

    @property
    def outbox_queue(self) -> OutboxQueue:
        """The worker's side of the same outbox (claiming and settling deliveries)."""

    @property
    def idempotency(self) -> IdempotencyRecords:
        """The idempotency of this transaction."""

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
