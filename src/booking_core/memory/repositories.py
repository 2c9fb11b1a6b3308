"""Dictionary-backed repositories for the in-memory unit of work."""

from __future__ import annotations

import builtins
from collections.abc import Collection, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TypeVar

from booking_core.accounts import (
    ApprovalStatus,
    Client,
    Principal,
    ResourceMapping,
    User,
    UserMapping,
    VenueMapping,
)
from booking_core.availability import BookedSlot
from booking_core.booking import BLOCKING_STATUSES, Booking, BookingStatus
from booking_core.catalog import Resource, Venue
from booking_core.claims import Accept, ClaimCheck, Neighbourhood, expired_hold
from booking_core.commission import Commission, CommissionStatus
from booking_core.errors import BadRequest, SlotUnavailable
from booking_core.memory._renamed import old_name
from booking_core.memory.search import search
from booking_core.payments import Payment, RefundRequest
from booking_core.payout import PayoutBatch, PayoutStatus
from booking_core.ports import BookingQuery, IdempotencyRecord, ResourceQuery, SearchKey, StaffBookingQuery
from booking_core.timerange import TimeRange


class InMemoryResources:
    """The catalog."""

    def __init__(self, rows: dict[int, Resource]) -> None:
        self._rows = rows

    def get(self, resource_id: int) -> Resource | None:
        return self._rows.get(resource_id)

    def list(
        self, query: ResourceQuery, *, limit: int | None = None, offset: int = 0
    ) -> builtins.list[Resource]:
        def keep(r: Resource) -> bool:
            return (
                (query.venue_id is None or r.venue.id == query.venue_id)
                and (query.venue_slug is None or r.venue.slug == query.venue_slug)
                and (query.activity_id is None or any(a.id == query.activity_id for a in r.activity_types))
                and (query.is_active is None or r.is_active == query.is_active)
                and (query.is_bookable is None or r.is_bookable == query.is_bookable)
            )

        found = sorted(filter(keep, self._rows.values()), key=lambda r: (r.venue.name, r.name, r.id))
        return _page(found, limit, offset)

    def for_venue(self, venue_id: int) -> builtins.list[Resource]:
        return sorted(
            (r for r in self._rows.values() if r.venue.id == venue_id), key=lambda r: (r.name, r.id)
        )

    def get_venue(self, venue_id: int) -> Venue | None:
        return next((r.venue for r in self._rows.values() if r.venue.id == venue_id), None)

    def venues(self, venue_ids: Collection[int] | None = None) -> builtins.list[Venue]:
        found = {r.venue.id: r.venue for r in self._rows.values()}
        chosen = (v for v in found.values() if venue_ids is None or v.id in venue_ids)
        return sorted(chosen, key=lambda v: (v.name, v.id))

    def lock(self, resource_id: int) -> None:
        """Nothing to do: the store's lock serializes whole transactions."""


class InMemoryBookings:
    """Bookings by id; the search reads the users and resources given too."""

    def __init__(
        self,
        rows: dict[str, Booking],
        users: dict[str, User] | None = None,
        resources: dict[int, Resource] | None = None,
    ) -> None:
        self._rows = rows
        self._users = users if users is not None else {}
        self._resources = resources if resources is not None else {}

    def add(self, booking: Booking) -> None:
        self._rows[booking.id] = booking

    save = add

    def claim(self, booking: Booking, near: Neighbourhood, accept: Accept, *, now: datetime) -> None:
        """Check and store in one step: the store's lock already serializes whole units of work."""
        resource_id = booking.resource_id
        lapsed = self.expired_holds(now, resource_id)
        if any(b.span.overlaps(near.span) for b in lapsed):  # then all of them, as the databases do
            for hold in lapsed:
                if (expired := expired_hold(hold, now)) is not None:
                    self.save(expired)
        unpaid = self._unpaid_holds(booking.user_id, now) if booking.status is BookingStatus.PENDING else 0
        accept(ClaimCheck(blocking=self.blocked_slots(resource_id, near.span, now), unpaid_holds=unpaid))
        overlapped = any(
            b.resource_id == resource_id and b.status in BLOCKING_STATUSES and b.span.overlaps(booking.span)
            for b in self._rows.values()
        )
        if overlapped:  # what the databases' overlap constraint refuses, whatever ``accept`` said
            raise SlotUnavailable()
        self.add(booking)

    def reclaim(self, moved: Booking, near: Neighbourhood, accept: Accept, *, now: datetime) -> None:
        """Check and store in one step, the moved booking's own stored time not counting."""
        resource_id = moved.resource_id
        lapsed = self.expired_holds(now, resource_id)
        if any(b.span.overlaps(near.span) for b in lapsed):
            for hold in lapsed:
                if (expired := expired_hold(hold, now)) is not None:
                    self.save(expired)
        others = [s for s in self.blocked_slots(resource_id, near.span, now) if s.booking_id != moved.id]
        accept(ClaimCheck(blocking=others))
        overlapped = any(
            b.id != moved.id
            and b.resource_id == resource_id
            and b.status in BLOCKING_STATUSES
            and b.span.overlaps(moved.span)
            for b in self._rows.values()
        )
        if overlapped:
            raise SlotUnavailable()
        self.save(moved)

    def get(self, booking_id: str) -> Booking | None:
        return self._rows.get(booking_id)

    def lock_for_change(self, booking_id: str, *, resource_first: bool = False) -> Booking | None:
        """The booking: the store's lock already serializes whole units of work."""
        return self._rows.get(booking_id)

    def lock_for_payment(self, booking_id: str) -> Booking | None:
        """The booking: the store's lock already serializes whole units of work."""
        return self._rows.get(booking_id)

    def get_by_reference(self, reference_code: str) -> Booking | None:
        return next((b for b in self._rows.values() if b.reference_code == reference_code), None)

    def blocked_slots(self, resource_id: int, span: TimeRange, now: datetime) -> builtins.list[BookedSlot]:
        blocking = (
            b
            for b in self._rows.values()
            if b.resource_id == resource_id and b.blocks_time(now) and b.span.overlaps(span)
        )
        return [_slot(b) for b in sorted(blocking, key=lambda b: (b.start, b.id))]

    def live_spans(self, resource_id: int, span: TimeRange) -> builtins.list[TimeRange]:
        live = {BookingStatus.CONFIRMED, BookingStatus.PAID}
        found = (
            b.span
            for b in self._rows.values()
            if b.resource_id == resource_id and b.status in live and b.span.overlaps(span)
        )
        return sorted(found, key=lambda r: r.start)

    def overlapping(
        self,
        resource_ids: Collection[int],
        span: TimeRange,
        *,
        statuses: Collection[BookingStatus] | None = None,
    ) -> builtins.list[Booking]:
        wanted = set(resource_ids)
        found = (
            b
            for b in self._rows.values()
            if b.resource_id in wanted
            and b.span.overlaps(span)
            and (statuses is None or b.status in statuses)
        )
        return sorted(found, key=lambda b: (b.start, b.id))

    def _unpaid_holds(self, user_id: str, now: datetime) -> int:
        pending = BookingStatus.PENDING
        return sum(
            1
            for b in self._rows.values()
            if b.user_id == user_id and b.status is pending and b.blocks_time(now)
        )

    def list(self, query: BookingQuery, *, limit: int, offset: int) -> builtins.list[Booking]:
        now = query.upcoming_at

        def keep(b: Booking) -> bool:
            return (
                (query.user_id is None or b.user_id == query.user_id)
                and (query.client_id is None or b.client_id == query.client_id)
                and (not query.only_client_bookings or b.client_id is not None)
                and (now is None or (b.start > now and b.blocks_time(now)))
            )

        found = sorted(filter(keep, self._rows.values()), key=lambda b: (b.start, b.id), reverse=now is None)
        return _page(found, limit, offset)

    def search(self, query: StaffBookingQuery, *, limit: int, offset: int) -> builtins.list[Booking]:
        return _page(search(query, self._rows.values(), self._users, self._resources), limit, offset)

    def search_after(
        self, query: StaffBookingQuery, after: SearchKey | None, *, limit: int
    ) -> builtins.list[Booking]:
        return search(query, self._rows.values(), self._users, self._resources, after)[:limit]

    def expired_holds(self, now: datetime, resource_id: int | None = None) -> builtins.list[Booking]:
        return [
            b
            for b in self._rows.values()
            if b.hold_expired(now) and (resource_id is None or b.resource_id == resource_id)
        ]

    def ended(self, now: datetime) -> builtins.list[Booking]:
        done = {BookingStatus.PAID, BookingStatus.CONFIRMED}
        return [b for b in self._rows.values() if b.status in done and b.end <= now]


def _slot(booking: Booking) -> BookedSlot:
    hold = booking.hold_expires_at if booking.status is BookingStatus.PENDING else None
    return BookedSlot(start=booking.start, end=booking.end, booking_id=booking.id, hold_expires_at=hold)


class InMemoryUsers:
    """Users by id."""

    def __init__(self, rows: dict[str, User]) -> None:
        self._rows = rows

    def get(self, user_id: str) -> User | None:
        return self._rows.get(user_id)

    def get_many(self, user_ids: Collection[str]) -> dict[str, User]:
        return {i: self._rows[i] for i in user_ids if i in self._rows}

    def get_by_email(self, email: str) -> User | None:
        wanted = email.strip().lower()
        return next((u for u in self._rows.values() if u.email.lower() == wanted), None)

    def add(self, user: User) -> None:
        self._rows[user.id] = user

    def update(self, user: User) -> None:
        if user.id in self._rows:
            self._rows[user.id] = user


class InMemoryTokens:
    """Token hashes with their principal and whether they were revoked.

    A user's principal says whether the user has confirmed their email, as it stands now.
    """

    def __init__(self, rows: dict[str, tuple[Principal, bool]], users: dict[str, User] | None = None) -> None:
        self._rows = rows
        self._users = users if users is not None else {}

    def add(self, token_hash: str, principal: Principal, created_at: datetime) -> None:
        self._rows[token_hash] = (principal, False)

    def principal(self, token_hash: str) -> Principal | None:
        found = self._rows.get(token_hash)
        if not found or found[1]:
            return None
        principal = found[0]
        user = self._users.get(principal.user_id) if principal.user_id else None
        return replace(principal, email_confirmed=user.email_confirmed) if user else principal

    def revoke(self, token_hash: str) -> None:
        if token_hash in self._rows:
            self._rows[token_hash] = (self._rows[token_hash][0], True)

    def revoke_all(self, user_id: str, now: datetime) -> None:
        for token_hash, (principal, _) in builtins.list(self._rows.items()):
            if principal.user_id == user_id:
                self._rows[token_hash] = (principal, True)


class InMemoryClients:
    """Clients by id."""

    def __init__(self, rows: dict[int, Client]) -> None:
        self._rows = rows

    def get(self, client_id: int) -> Client | None:
        return self._rows.get(client_id)

    def get_many(self, client_ids: Collection[int]) -> dict[int, Client]:
        return {cid: self._rows[cid] for cid in client_ids if cid in self._rows}


_M = TypeVar("_M", UserMapping, ResourceMapping, VenueMapping)
_T = TypeVar("_T")


def _page(rows: builtins.list[_T], limit: int | None, offset: int) -> builtins.list[_T]:
    """At most ``limit`` of ``rows`` from ``offset`` (all from ``offset`` without a limit)."""
    return rows[offset : None if limit is None else offset + limit]


def _ordered(rows: Sequence[_M]) -> builtins.list[_M]:
    return sorted(rows, key=lambda m: (m.created_at, m.id))


class InMemoryUserMappings:
    """User mappings by id."""

    def __init__(self, rows: dict[str, UserMapping]) -> None:
        self._rows = rows

    def get(self, client_id: int, external_id: str) -> UserMapping | None:
        return next(
            (m for m in self._rows.values() if m.client_id == client_id and m.external_id == external_id),
            None,
        )

    def for_user(self, client_id: int, user_id: str) -> UserMapping | None:
        return next(
            (m for m in self._rows.values() if m.client_id == client_id and m.user_id == user_id), None
        )

    def for_users(self, client_id: int, user_ids: Sequence[str]) -> dict[str, UserMapping]:
        found = {user_id: self.for_user(client_id, user_id) for user_id in set(user_ids)}
        return {user_id: mapping for user_id, mapping in found.items() if mapping is not None}

    def for_pairs(self, pairs: Collection[tuple[int, str]]) -> dict[tuple[int, str], UserMapping]:
        found = {pair: self.for_user(*pair) for pair in set(pairs)}
        return {pair: mapping for pair, mapping in found.items() if mapping is not None}

    def add(self, mapping: UserMapping) -> None:
        self._rows[mapping.id] = mapping

    def list(
        self, client_id: int, *, is_active: bool | None, limit: int, offset: int
    ) -> builtins.list[UserMapping]:
        mine = [
            m
            for m in self._rows.values()
            if m.client_id == client_id and (is_active is None or m.is_active == is_active)
        ]
        return _page(_ordered(mine), limit, offset)


class InMemoryResourceMappings:
    """Resource mappings by id."""

    def __init__(self, rows: dict[str, ResourceMapping]) -> None:
        self._rows = rows

    def get(self, client_id: int, external_id: str) -> ResourceMapping | None:
        return next(
            (m for m in self._rows.values() if m.client_id == client_id and m.external_id == external_id),
            None,
        )

    def add(self, mapping: ResourceMapping) -> None:
        self._rows[mapping.id] = mapping

    def list(self, client_id: int, *, limit: int, offset: int) -> builtins.list[ResourceMapping]:
        return _page(_ordered([m for m in self._rows.values() if m.client_id == client_id]), limit, offset)

    def for_resources(self, client_id: int, resource_ids: Sequence[int]) -> builtins.list[ResourceMapping]:
        wanted = set(resource_ids)
        return _ordered(
            [m for m in self._rows.values() if m.client_id == client_id and m.resource_id in wanted]
        )


class InMemoryVenueMappings:
    """Venue mappings by id."""

    def __init__(self, rows: dict[str, VenueMapping]) -> None:
        self._rows = rows

    def get(self, client_id: int, external_id: str) -> VenueMapping | None:
        return next(
            (m for m in self._rows.values() if m.client_id == client_id and m.external_id == external_id),
            None,
        )

    def get_by_id(self, mapping_id: str) -> VenueMapping | None:
        return self._rows.get(mapping_id)

    def add(self, mapping: VenueMapping) -> None:
        self._rows[mapping.id] = mapping

    save = add

    def list(
        self,
        client_id: int | None,
        approval_status: ApprovalStatus | None,
        *,
        limit: int | None = None,
        offset: int = 0,
    ) -> builtins.list[VenueMapping]:
        found = _ordered(
            [
                m
                for m in self._rows.values()
                if (client_id is None or m.client_id == client_id)
                and (approval_status is None or m.approval_status is approval_status)
            ]
        )
        return _page(found, limit, offset)


class InMemoryCommissions:
    """Commission records and payout batches by id (the store's lock serializes transactions)."""

    def __init__(self, rows: dict[str, Commission], batches: dict[str, PayoutBatch]) -> None:
        self._rows = rows
        self._batches = batches

    def add(self, commission: Commission) -> None:
        self._rows[commission.id] = commission

    save = add

    def of_booking(self, booking_id: str) -> builtins.list[Commission]:
        return sorted(
            (c for c in self._rows.values() if c.booking_id == booking_id), key=lambda c: (c.created_at, c.id)
        )

    def list(
        self, *, client_id: int | None, month: str, limit: int | None = None, offset: int = 0
    ) -> builtins.list[Commission]:
        found = sorted(
            (
                c
                for c in self._rows.values()
                if c.month == month and (client_id is None or c.client_id == client_id)
            ),
            key=lambda c: (c.created_at, c.id),
        )
        return _page(found, limit, offset)

    def open_for_payout(self, month: str) -> builtins.list[Commission]:
        return [
            c
            for c in self.list(client_id=None, month=month)
            if c.status is CommissionStatus.OPEN and c.payout_batch_id is None
        ]

    def in_batch(self, batch_id: str) -> builtins.list[Commission]:
        return sorted((c for c in self._rows.values() if c.payout_batch_id == batch_id), key=lambda c: c.id)

    def add_batch(self, batch: PayoutBatch) -> None:
        if self.unfinished_batch(batch.month) is not None:
            raise BadRequest(f"A payout batch of {batch.month} is prepared and not completed already.")
        self._batches[batch.id] = batch

    def save_batch(self, batch: PayoutBatch) -> None:
        self._batches[batch.id] = batch

    def unfinished_batch(self, month: str) -> PayoutBatch | None:
        return next(
            (b for b in self._batches.values() if b.month == month and b.status is PayoutStatus.PREPARED),
            None,
        )


class InMemoryPayments:
    """Payments by id, and the provider events already applied."""

    def __init__(self, rows: dict[str, Payment], processed: set[str]) -> None:
        self._rows = rows
        self._processed = processed

    def add(self, payment: Payment) -> None:
        self._rows[payment.id] = payment

    save = add

    def for_booking(self, booking_id: str) -> Sequence[Payment]:
        return sorted(
            (p for p in self._rows.values() if p.booking_id == booking_id), key=lambda p: (p.created_at, p.id)
        )

    def for_bookings(self, booking_ids: Sequence[str]) -> dict[str, Sequence[Payment]]:
        found = {booking_id: self.for_booking(booking_id) for booking_id in set(booking_ids)}
        return {booking_id: payments for booking_id, payments in found.items() if payments}

    def by_intent(self, payment_intent_id: str) -> Payment | None:
        return next((p for p in self._rows.values() if p.payment_intent_id == payment_intent_id), None)

    def mark_event_processed(self, event_id: str, processed_at: datetime) -> bool:
        if event_id in self._processed:
            return False
        self._processed.add(event_id)
        return True


class InMemoryIdempotency:
    """First responses by (scope, key)."""

    def __init__(self, rows: dict[tuple[str, str], IdempotencyRecord]) -> None:
        self._rows = rows

    def get(self, scope: str, key: str) -> IdempotencyRecord | None:
        return self._rows.get((scope, key))

    def add(self, record: IdempotencyRecord) -> None:
        self._rows[(record.scope, record.key)] = record


class InMemoryRefunds:
    """Refund requests by payment id."""

    def __init__(self, rows: dict[str, RefundRequest]) -> None:
        self._rows = rows

    def add(self, request: RefundRequest) -> bool:
        if request.payment_id in self._rows:
            return False
        self._rows[request.payment_id] = request
        return True

    def get(self, payment_id: str) -> RefundRequest | None:
        return self._rows.get(payment_id)

    def due(self, now: datetime, limit: int = 50) -> builtins.list[RefundRequest]:
        due = (r for r in self._rows.values() if r.accepted_at is None and r.next_attempt_at <= now)
        return sorted(due, key=lambda r: (r.next_attempt_at, r.payment_id))[:limit]

    def claim(self, payment_id: str, now: datetime, until: datetime) -> bool:
        found = self._rows.get(payment_id)
        if found is None or found.accepted_at is not None or found.next_attempt_at > now:
            return False
        self._rows[payment_id] = replace(found, attempts=found.attempts + 1, next_attempt_at=until)
        return True

    def accepted(self, payment_id: str, refund_id: str | None, now: datetime) -> None:
        found = self._rows.get(payment_id)
        if found is not None and found.accepted_at is None:
            self._rows[payment_id] = replace(found, accepted_at=now, provider_refund_id=refund_id)

    def failed(self, payment_id: str, error: str, retry_at: datetime) -> None:
        found = self._rows.get(payment_id)
        if found is not None:
            self._rows[payment_id] = replace(found, last_error=error[:2000], next_attempt_at=retry_at)


#: The names before ``InMemory*`` (deprecated, for one release).
_RENAMED: dict[str, type] = {
    "MemoryResources": InMemoryResources,
    "MemoryBookings": InMemoryBookings,
    "MemoryUsers": InMemoryUsers,
    "MemoryTokens": InMemoryTokens,
    "MemoryClients": InMemoryClients,
    "MemoryUserMappings": InMemoryUserMappings,
    "MemoryResourceMappings": InMemoryResourceMappings,
    "MemoryVenueMappings": InMemoryVenueMappings,
    "MemoryCommissions": InMemoryCommissions,
    "MemoryPayments": InMemoryPayments,
    "MemoryIdempotency": InMemoryIdempotency,
    "MemoryRefunds": InMemoryRefunds,
}


def __getattr__(name: str) -> type:
    return old_name(__name__, name, _RENAMED)
