"""Storage ports, one per role, each with only what the use cases need."""

from __future__ import annotations

import builtins
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

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
from booking_core.booking import Booking, BookingStatus
from booking_core.catalog import Resource, Venue
from booking_core.claims import Accept, Neighbourhood
from booking_core.commission import Commission
from booking_core.payments import Payment
from booking_core.payout import PayoutBatch
from booking_core.timerange import TimeRange


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceQuery:
    """Filters of the resource listing; None means "any"."""

    venue_id: int | None = None
    venue_slug: str | None = None
    activity_id: int | None = None
    is_active: bool | None = True
    is_bookable: bool | None = True


@dataclass(frozen=True, slots=True, kw_only=True)
class BookingQuery:
    """Filters of a booking listing. At least one of ``user_id``/``client_id`` is set by callers.

    ``upcoming_at``: only bookings that start after that instant and block time then (live, and
    not a lapsed hold), listed soonest first; without it every booking, latest start first.
    """

    user_id: str | None = None
    client_id: int | None = None
    upcoming_at: datetime | None = None
    only_client_bookings: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class VenueSpan:
    """The instants of some venues' local dates: one span per timezone, as the use case works it out."""

    venue_ids: frozenset[int]
    span: TimeRange


@dataclass(frozen=True, slots=True, kw_only=True)
class StaffBookingQuery:
    """Filters of the staff's bookings search (CONTRACT 7.4); None means "any".

    ``venue_ids``: bookings of these venues' resources only (None: of every venue). ``starts``: when
    given, only bookings starting in the span of their venue's entry (a venue without one: none).
    ``text``: a part of the reference code, the customer's email or name, any case.
    """

    venue_ids: frozenset[int] | None = None
    resource_id: int | None = None
    starts: tuple[VenueSpan, ...] | None = None
    status: BookingStatus | None = None
    text: str | None = None


#: Where a bookings search stands: the (start, id) of the last booking read.
SearchKey = tuple[datetime, str]


class Resources(Protocol):
    """Read access to the catalog, and the per-resource lock that serializes booking."""

    def get(self, resource_id: int) -> Resource | None:
        """The resource with its venue, schedules and unavailable periods."""

    def list(
        self, query: ResourceQuery, *, limit: int | None = None, offset: int = 0
    ) -> builtins.list[Resource]:
        """Resources matching ``query``, ordered by venue then name (ties by id); at most ``limit``
        from ``offset``."""

    def for_venue(self, venue_id: int) -> builtins.list[Resource]:
        """All resources of one venue, active or not."""

    def get_venue(self, venue_id: int) -> Venue | None:
        """One venue."""

    def venues(self, venue_ids: Collection[int] | None = None) -> builtins.list[Venue]:
        """Venues by name (ties by id), active or not: all, or those of ``venue_ids``."""

    def lock(self, resource_id: int) -> None:
        """Hold an exclusive lock on the resource until the unit of work ends."""


class Bookings(Protocol):
    """Bookings and the queries that availability and the worker need."""

    def add(self, booking: Booking) -> None:
        """Store a new booking."""

    def claim(self, booking: Booking, near: Neighbourhood, accept: Accept, *, now: datetime) -> None:
        """Store ``booking`` exactly when ``accept`` takes the time around it as it is at ``now``,
        with no concurrent claim able to change that time between the check and the store.

        The storage shows ``accept`` the :class:`~booking_core.claims.ClaimCheck` of ``near``: the
        blocking claims there, and for a pending booking its user's other unpaid holds. To keep
        that true until the unit of work ends, it locks in the order of
        :class:`~booking_core.ports.UnitOfWork`: the user of a pending booking (so that the count
        stays exact), then the resource where ``near.serialized`` asks for it, else the claimed time
        (concurrent claims of overlapping time are decided one after another); lapsed holds in the
        way are expired (under the resource's lock) rather than shown. Two claims whose times overlap
        never both commit: the storage's overlap constraint decides a race the check did not see
        (:class:`~booking_core.errors.SlotUnavailable`). When ``accept`` raises, its error comes out
        and the unit of work must not commit. A deadlock comes out as
        :class:`~booking_core.errors.TransientConflict`, for the use case to run again whole.
        """

    def reclaim(self, moved: Booking, near: Neighbourhood, accept: Accept, *, now: datetime) -> None:
        """Store ``moved``, a stored booking given a new time (or resource), exactly when ``accept``
        takes the time around it as it is at ``now``: :meth:`claim` for a booking that exists.

        The caller holds the booking's lock (:meth:`lock_for_change`, ``resource_first``). The booking's
        own stored time is not shown to ``accept`` and does not stand in its way; any other blocking
        claim does, lapsed holds expired first, and ``near.serialized`` locks the new resource as
        :meth:`claim` does. The storage's overlap constraint covers the changed time too, so a move and
        a concurrent claim of overlapping time never both commit
        (:class:`~booking_core.errors.SlotUnavailable`).
        """

    def save(self, booking: Booking) -> None:
        """Store a changed booking."""

    def get(self, booking_id: str) -> Booking | None:
        """One booking by id, as committed (or changed in this unit of work); no lock is taken."""

    def lock_for_change(self, booking_id: str, *, resource_first: bool = False) -> Booking | None:
        """The booking re-read under an exclusive lock that lasts until the unit of work ends.

        Every change of a booking or of its payments is decided on what this returns, so concurrent
        changes of one booking are applied one after another, each on the state the previous one
        left. The booking's resource is locked before the booking, as the lock order of
        :class:`~booking_core.ports.UnitOfWork` says: shared, so that changes of different bookings
        of one resource do not wait for each other; with ``resource_first`` exclusively, for
        decisions that depend on the resource's other bookings (a late payment asking whether its
        time is still free), which then wait for bookings of the resource being made.
        """

    def lock_for_payment(self, booking_id: str) -> Booking | None:
        """The booking re-read under the same exclusive lock, but without its resource's: for a unit
        of work that changes the booking's payments and never the booking itself (opening a payment
        intent, which waits for the provider meanwhile and should not hold up the resource's bookings).
        """

    def get_by_reference(self, reference_code: str) -> Booking | None:
        """One booking by its reference code."""

    def blocked_slots(self, resource_id: int, span: TimeRange, now: datetime) -> builtins.list[BookedSlot]:
        """Id and time of the resource's bookings overlapping ``span`` that block time at ``now``."""

    def live_spans(self, resource_id: int, span: TimeRange) -> builtins.list[TimeRange]:
        """The time of the resource's ``confirmed`` and ``paid`` bookings overlapping ``span``, by start:
        what the demand level counts (unpaid holds do not)."""

    def overlapping(
        self,
        resource_ids: Collection[int],
        span: TimeRange,
        *,
        statuses: Collection[BookingStatus] | None = None,
    ) -> builtins.list[Booking]:
        """The bookings of any of ``resource_ids`` overlapping ``span`` (in one of ``statuses``;
        None: any), by start then id, read in one step for all of them (a venue's day, the
        bookings in a block's way); no lock is taken."""

    def list(self, query: BookingQuery, *, limit: int, offset: int) -> builtins.list[Booking]:
        """At most ``limit`` bookings matching ``query`` from ``offset``, in its order (ties by id)."""

    def search(self, query: StaffBookingQuery, *, limit: int, offset: int) -> builtins.list[Booking]:
        """At most ``limit`` bookings matching ``query`` from ``offset``, latest start first (ties by
        id, highest first)."""

    def search_after(
        self, query: StaffBookingQuery, after: SearchKey | None, *, limit: int
    ) -> builtins.list[Booking]:
        """The next ``limit`` bookings in :meth:`search`'s order after the one at ``after`` (from the
        first when None): a whole result read chunk by chunk, each on its own statement, without an
        offset to skip and unchanged by bookings added since on the chunks already read."""

    def expired_holds(self, now: datetime, resource_id: int | None = None) -> builtins.list[Booking]:
        """Pending bookings whose hold lapsed at or before ``now``."""

    def ended(self, now: datetime) -> builtins.list[Booking]:
        """Paid or confirmed bookings whose end has passed."""


class Users(Protocol):
    """People who book."""

    def get(self, user_id: str) -> User | None:
        """One user by id."""

    def get_many(self, user_ids: Collection[str]) -> dict[str, User]:
        """The users of ``user_ids`` that exist, by id, in one step (a page's users, not one by one)."""

    def get_by_email(self, email: str) -> User | None:
        """One user by email, compared case-insensitively."""

    def add(self, user: User) -> None:
        """Store a new user."""

    def update(self, user: User) -> None:
        """Store the changed fields of an existing user (password, confirmation...)."""


class Tokens(Protocol):
    """API tokens, stored only as hashes."""

    def add(self, token_hash: str, principal: Principal, created_at: datetime) -> None:
        """Store a new token for a user or a client."""

    def principal(self, token_hash: str) -> Principal | None:
        """Who a live token belongs to."""

    def revoke(self, token_hash: str) -> None:
        """Make a token unusable."""

    def revoke_all(self, user_id: str, now: datetime) -> None:
        """Make every token of the user unusable."""


class Clients(Protocol):
    """Partner applications."""

    def get(self, client_id: int) -> Client | None:
        """One client by id."""

    def get_many(self, client_ids: Collection[int]) -> dict[int, Client]:
        """:meth:`get` for several clients at once, by id (unknown ids left out)."""


class UserMappings(Protocol):
    """Clients' ids for users."""

    def get(self, client_id: int, external_id: str) -> UserMapping | None:
        """The mapping of one external id."""

    def for_user(self, client_id: int, user_id: str) -> UserMapping | None:
        """The client's mapping of one of our users."""

    def for_users(self, client_id: int, user_ids: Sequence[str]) -> dict[str, UserMapping]:
        """:meth:`for_user` for several users at once, by user id (users without a mapping left out)."""

    def for_pairs(self, pairs: Collection[tuple[int, str]]) -> dict[tuple[int, str], UserMapping]:
        """:meth:`for_user` of several (client id, user id) pairs at once, by pair (pairs without a
        mapping left out): a page of bookings made through many clients in one statement."""

    def add(self, mapping: UserMapping) -> None:
        """Store a new mapping."""

    def list(
        self, client_id: int, *, is_active: bool | None, limit: int, offset: int
    ) -> builtins.list[UserMapping]:
        """At most ``limit`` of the client's mappings from ``offset``, ordered by creation then id."""


class ResourceMappings(Protocol):
    """Clients' ids for resources."""

    def get(self, client_id: int, external_id: str) -> ResourceMapping | None:
        """The mapping of one external id."""

    def add(self, mapping: ResourceMapping) -> None:
        """Store a new mapping."""

    def list(self, client_id: int, *, limit: int, offset: int) -> builtins.list[ResourceMapping]:
        """At most ``limit`` of the client's mappings from ``offset``, ordered by creation then id."""

    def for_resources(self, client_id: int, resource_ids: Sequence[int]) -> builtins.list[ResourceMapping]:
        """The client's mappings of these resources."""


class VenueMappings(Protocol):
    """Clients' ids for venues, with the operator's approval."""

    def get(self, client_id: int, external_id: str) -> VenueMapping | None:
        """The mapping of one external id."""

    def get_by_id(self, mapping_id: str) -> VenueMapping | None:
        """One mapping by its own id (operator commands)."""

    def add(self, mapping: VenueMapping) -> None:
        """Store a new mapping."""

    def save(self, mapping: VenueMapping) -> None:
        """Store a changed mapping."""

    def list(
        self,
        client_id: int | None,
        approval_status: ApprovalStatus | None,
        *,
        limit: int | None = None,
        offset: int = 0,
    ) -> builtins.list[VenueMapping]:
        """Mappings of one client (or all for None) ordered by creation then id; at most ``limit``
        (None: all) from ``offset``."""


class Commissions(Protocol):
    """Clients' commission records."""

    def add(self, commission: Commission) -> None:
        """Store a new record."""

    def save(self, commission: Commission) -> None:
        """Store a changed record."""

    def of_booking(self, booking_id: str) -> builtins.list[Commission]:
        """The records of one booking (the one its payment earned, then any correcting ones), oldest
        first, locked until the transaction ends (they are about to change)."""

    def list(
        self, *, client_id: int | None, month: str, limit: int | None = None, offset: int = 0
    ) -> builtins.list[Commission]:
        """Records of one month, for one client or all, oldest first; at most ``limit`` from ``offset``."""

    def open_for_payout(self, month: str) -> builtins.list[Commission]:
        """The month's open records that no payout batch holds, locked until the transaction ends.

        A concurrent payout waits for this transaction, then no longer sees the records it held.
        """

    def in_batch(self, batch_id: str) -> builtins.list[Commission]:
        """The records a payout batch holds, locked until the transaction ends."""

    def add_batch(self, batch: PayoutBatch) -> None:
        """Store a new payout batch. At most one batch of a month may be prepared and not completed."""

    def save_batch(self, batch: PayoutBatch) -> None:
        """Store a changed payout batch."""

    def unfinished_batch(self, month: str) -> PayoutBatch | None:
        """The month's batch that is prepared but not completed, locked until the transaction ends."""


class Payments(Protocol):
    """Payment intents and their outcome, and the provider events already handled."""

    def add(self, payment: Payment) -> None:
        """Store a new payment."""

    def save(self, payment: Payment) -> None:
        """Store a changed payment."""

    def for_booking(self, booking_id: str) -> Sequence[Payment]:
        """Payments of one booking, oldest first."""

    def for_bookings(self, booking_ids: Sequence[str]) -> dict[str, Sequence[Payment]]:
        """:meth:`for_booking` for several bookings at once, by booking id (those without any left out)."""

    def by_intent(self, payment_intent_id: str) -> Payment | None:
        """The payment of one provider intent."""

    def mark_event_processed(self, event_id: str, processed_at: datetime) -> bool:
        """Record an inbound event id; False when it was recorded before."""
