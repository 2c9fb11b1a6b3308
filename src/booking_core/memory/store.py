"""An in-memory database and unit of work with the same guarantees as the real storage."""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from datetime import datetime
from types import TracebackType
from typing import Self

from booking_core.account_codes import AccountCode, CodePurpose
from booking_core.accounts import Client, Principal, ResourceMapping, User, UserMapping, VenueMapping
from booking_core.audit import AuditEntry
from booking_core.booking import BLOCKING_STATUSES, Booking
from booking_core.catalog import Resource
from booking_core.commission import Commission
from booking_core.errors import SlotUnavailable
from booking_core.memory.account_codes import InMemoryAccountCodes
from booking_core.memory.blocks import InMemoryBlocks
from booking_core.memory.outbox import InMemoryOutbox
from booking_core.memory.reads import InMemoryAvailabilityReads
from booking_core.memory.reports import InMemoryVenueReports
from booking_core.memory.repositories import (
    InMemoryBookings,
    InMemoryClients,
    InMemoryCommissions,
    InMemoryIdempotency,
    InMemoryPayments,
    InMemoryRefunds,
    InMemoryResourceMappings,
    InMemoryResources,
    InMemoryTokens,
    InMemoryUserMappings,
    InMemoryUsers,
    InMemoryVenueMappings,
)
from booking_core.memory.staff import InMemoryAuditLog, InMemoryStaffRoles, RoleKey
from booking_core.outbox import OutboxEntry
from booking_core.payments import Payment, RefundRequest
from booking_core.payout import PayoutBatch
from booking_core.ports import IdempotencyRecord
from booking_core.staff import StaffRole


@dataclass
class Tables:
    """The rows of the in-memory database, keyed by id."""

    resources: dict[int, Resource] = field(default_factory=dict)
    bookings: dict[str, Booking] = field(default_factory=dict)
    users: dict[str, User] = field(default_factory=dict)
    tokens: dict[str, tuple[Principal, bool]] = field(default_factory=dict)
    account_codes: dict[tuple[str, CodePurpose], AccountCode] = field(default_factory=dict)
    clients: dict[int, Client] = field(default_factory=dict)
    user_mappings: dict[str, UserMapping] = field(default_factory=dict)
    resource_mappings: dict[str, ResourceMapping] = field(default_factory=dict)
    venue_mappings: dict[str, VenueMapping] = field(default_factory=dict)
    commissions: dict[str, Commission] = field(default_factory=dict)
    payout_batches: dict[str, PayoutBatch] = field(default_factory=dict)
    payments: dict[str, Payment] = field(default_factory=dict)
    processed_events: set[str] = field(default_factory=set)
    refunds: dict[str, RefundRequest] = field(default_factory=dict)
    outbox: dict[str, OutboxEntry] = field(default_factory=dict)
    idempotency: dict[tuple[str, str], IdempotencyRecord] = field(default_factory=dict)
    staff_roles: dict[RoleKey, StaffRole] = field(default_factory=dict)
    audit: list[AuditEntry] = field(default_factory=list)
    #: How many commits made these tables: the data version of everything in them.
    generation: int = 0

    def snapshot(self) -> Tables:
        """A copy whose containers can change without touching these (rows are immutable)."""
        return Tables(**{f.name: copy.copy(getattr(self, f.name)) for f in fields(self)})


class InMemoryStore:
    """Committed state shared by every unit of work made from it.

    Transactions are serialized by one lock, like SQLite's ``BEGIN IMMEDIATE``.
    """

    def __init__(self) -> None:
        self.tables = Tables()
        self.lock = threading.RLock()

    def uow(self) -> InMemoryUnitOfWork:
        """A new unit of work on this store (pass ``store.uow`` as ``Deps.uow``)."""
        return InMemoryUnitOfWork(self)

    def add_resource(self, resource: Resource) -> None:
        """Seed the catalog."""
        self.tables.resources[resource.id] = resource
        self.tables.generation += 1

    def add_client(self, client: Client, token_hash: str | None = None) -> None:
        """Seed a client and, optionally, its token."""
        self.tables.clients[client.id] = client
        if token_hash:
            self.tables.tokens[token_hash] = (Principal(client_id=client.id), False)


class InMemoryUnitOfWork:
    """A transaction over a snapshot of the store; ``commit`` publishes it."""

    def __init__(self, store: InMemoryStore) -> None:
        self._store = store
        self._tables = Tables()
        self._bind()

    def _bind(self) -> None:
        t = self._tables
        self.resources = InMemoryResources(t.resources)
        self.bookings = InMemoryBookings(t.bookings, t.users, t.resources)
        self.blocks = InMemoryBlocks(t.resources)
        self.availability = InMemoryAvailabilityReads(
            self.resources, self.bookings, lambda: self._tables.generation
        )
        self.users = InMemoryUsers(t.users)
        self.tokens = InMemoryTokens(t.tokens, t.users)
        self.account_codes = InMemoryAccountCodes(t.account_codes)
        self.clients = InMemoryClients(t.clients)
        self.user_mappings = InMemoryUserMappings(t.user_mappings)
        self.resource_mappings = InMemoryResourceMappings(t.resource_mappings)
        self.venue_mappings = InMemoryVenueMappings(t.venue_mappings)
        self.commissions = InMemoryCommissions(t.commissions, t.payout_batches)
        self.payments = InMemoryPayments(t.payments, t.processed_events)
        self.refunds = InMemoryRefunds(t.refunds)
        self.outbox = self.outbox_queue = InMemoryOutbox(t.outbox)
        self.idempotency = InMemoryIdempotency(t.idempotency)
        self.reports = InMemoryVenueReports(t.bookings, t.payments)
        self.staff = InMemoryStaffRoles(t.staff_roles)
        self.audit = InMemoryAuditLog(t.audit)

    def catalog_revision(self) -> int | None:
        """The store's commit count (any commit may have changed the catalog)."""
        return self._tables.generation

    def __enter__(self) -> Self:
        self._store.lock.acquire()
        self._tables = self._store.tables.snapshot()
        self._bind()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._tables = Tables()
        self._store.lock.release()

    def commit(self) -> None:
        """Publish the changes, refusing overlapping blocking bookings like the database does."""
        _check_no_overlap(self._tables.bookings.values())
        self._tables.generation = self._store.tables.generation + 1
        self._store.tables = self._tables.snapshot()

    def rollback(self) -> None:
        """Forget the changes made since the last commit."""
        self._tables = self._store.tables.snapshot()
        self._bind()


def _check_no_overlap(bookings: Iterable[Booking]) -> None:
    live = sorted(
        (b for b in bookings if b.status in BLOCKING_STATUSES), key=lambda b: (b.resource_id, b.start)
    )
    reach: dict[int, datetime] = {}
    for booking in live:
        if booking.resource_id in reach and booking.start < reach[booking.resource_id]:
            raise SlotUnavailable()
        reach[booking.resource_id] = max(booking.end, reach.get(booking.resource_id, booking.end))
