"""The unit of work: one transaction over every repository."""

from __future__ import annotations

from types import TracebackType
from typing import Protocol, Self

from booking_core.ports.account_codes import AccountCodes
from booking_core.ports.blocks import Blocks
from booking_core.ports.idempotency import IdempotencyRecords
from booking_core.ports.mail import OutboxQueue
from booking_core.ports.reads import AvailabilityReads
from booking_core.ports.refunds import Refunds
from booking_core.ports.reports import VenueReports
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
from booking_core.ports.staff import AuditLog, StaffRoles


class UnitOfWork(Protocol):
    """A transaction. Leaving the ``with`` block without ``commit()`` rolls everything back.

    A storage failure raises :class:`~booking_core.errors.StorageUnavailable`, a conflict with a
    concurrent transaction that is worth retrying (deadlock, serialization failure) its subclass
    :class:`~booking_core.errors.TransientConflict`; a commit that breaks the double-booking guard
    raises :class:`~booking_core.errors.SlotUnavailable`. A wait for a lock longer than the
    storage's lock timeout (``BOOKING_DB_LOCK_TIMEOUT_MS``) raises ``StorageUnavailable``: it is not
    run again, so no request waits much longer than that for one lock.

    **Lock order.** Every path that changes a booking (creating, cancelling, a provider event, the
    hold's expiry, the operator's commands, the worker's sweeps) takes its locks in this order, so
    that no two transactions ever wait on each other:

    0. the booking's user, when a pending booking is claimed (:meth:`Bookings.claim`): the count of
       the user's unpaid holds must not change until the booking is stored; nothing else locks a user;
    1. the booking's resource: exclusively where the decision reads the resource's other bookings
       (a claim whose neighbourhood is ``serialized`` under the gap rule, or that finds lapsed holds
       in its way; a provider event, whose late payment may have to find out whether its time is
       still free), shared otherwise (any other change of an existing booking, through
       :meth:`Bookings.lock_for_change`; storing a new booking holds it shared, too);
    1a. the claimed time, where the resource is not held exclusively: a claim of a new booking, or
       a booking's new time (:meth:`Bookings.reclaim`, after the booking's lock), waits for any
       concurrent claim of overlapping time, so that two of them never both reach the storage's
       overlap guard, where each would wait for the other. The one exception to this order: a claim
       that finds lapsed holds in its way takes the resource exclusively after its time, so it and
       a move of a booking onto the same time may deadlock; the database breaks it and the use case
       runs again (``TransientConflict``). The worker's sweep expires lapsed holds before claims
       meet them, so it is rare;
    2. the booking (:meth:`Bookings.lock_for_change`), and after it other bookings of the same
       resource (lapsed holds that are expired in passing), only while holding the resource
       exclusively;
    3. what belongs to the booking, in any order, as only the booking's lock holder writes it: the
       provider event's processed id, its payments, its commission, its refund request, its
       outbox notices.

    Work on rows of the third kind alone (sending a refund request, the outbox worker's claims, a
    commission payout) takes no booking or resource lock at all. Opening a payment intent locks the
    booking without its resource (:meth:`Bookings.lock_for_payment`): it changes only the payments,
    so while it holds the booking it waits for nothing else. A unit of work holding a booking's
    lock never asks for its resource's (the shared lock taken first covers what the database takes
    itself when the booking changes), nor for another booking's unless it holds their resource
    exclusively. SQLite has one writer at a time, so there the order holds trivially.
    """

    @property
    def resources(self) -> Resources:
        """The resources of this transaction."""

    @property
    def bookings(self) -> Bookings:
        """The bookings of this transaction."""

    @property
    def blocks(self) -> Blocks:
        """The blocks (closed time placed by staff) of this transaction."""

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

    @property
    def staff(self) -> StaffRoles:
        """The staff roles of this transaction."""

    @property
    def audit(self) -> AuditLog:
        """The audit log of this transaction."""

    @property
    def availability(self) -> AvailabilityReads:
        """The reads availability is computed from, with their version."""

    @property
    def reports(self) -> VenueReports:
        """The venue report's sums over the bookings."""

    def catalog_revision(self) -> int | None:
        """The catalog's revision in this transaction (:class:`~booking_core.ports.CatalogRevision`):
        read once, on its own statement, and again only after this unit of work writes the catalog.
        What the storage's caches of catalog data compare against."""

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
