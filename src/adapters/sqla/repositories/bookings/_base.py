"""What both databases' bookings repositories share: everything but the claim and the statements
that differ (the strategies in ``postgres.py`` and ``sqlite.py``)."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Collection, Iterable, Sequence
from datetime import datetime
from typing import Any, ClassVar

from sqlalchemy import BigInteger, Select, bindparam, select, text
from sqlalchemy.orm import Session

from adapters.sqla import driver
from adapters.sqla.errors import translate_errors
from adapters.sqla.models import BookingRow
from adapters.sqla.models.bookings import LIVE_STATUS_SQL
from adapters.sqla.repositories.bookings._mapping import (
    booking_from_domain,
    booking_to_domain,
    booking_values,
    slot,
)
from adapters.sqla.repositories.bookings._search import customers_matching, search_statement
from adapters.sqla.repositories.bookings._statements import BLOCKS_AT, HOLD_LAPSED, INSERT, LOCK_BOOKING
from booking_core.availability import BookedSlot
from booking_core.booking import Booking, BookingStatus
from booking_core.claims import Accept, ClaimCheck, Neighbourhood, expired_hold
from booking_core.errors import NotFound, SlotUnavailable
from booking_core.ports.repositories import BookingQuery, SearchKey, StaffBookingQuery
from booking_core.timerange import TimeRange


@translate_errors
class SqlaBookings:
    """Bookings in the ``bookings`` table. ``add``/``save`` flush, so constraint errors surface at once.

    A strategy per database sets its dialect's name (:attr:`_DIALECT`), the statements that differ
    (:attr:`_BLOCKED`, :attr:`_LIVE`, :attr:`_NEAR`), the locks (:meth:`_lock_claimed_time`,
    :meth:`_lock_resource`, :meth:`_lock_resource_of`) and ``claim``.
    """

    _DIALECT: ClassVar[str]
    _BLOCKED: ClassVar[Select[Any]]
    _LIVE: ClassVar[Select[Any]]
    #: The slots in a blocking state (lapsed holds included) overlapping ``:start``..``:end``.
    _NEAR: ClassVar[Select[Any]]

    def __init__(self, session: Session) -> None:
        self._session = session

    def _lock_claimed_time(self, claim: Booking, near: Neighbourhood) -> None:
        """Lock what keeps ``near`` as read until the unit of work ends: no concurrent claim can
        change it (the strategy's way)."""
        raise NotImplementedError

    def _lock_resource(self, resource_id: int) -> None:
        """Lock the resource exclusively until the unit of work ends (the strategy's way)."""
        raise NotImplementedError

    def _lock_resource_of(self, booking_id: str, *, exclusive: bool) -> None:
        """Lock the booking's resource before the booking (the lock order of ``UnitOfWork``)."""
        raise NotImplementedError

    def add(self, booking: Booking) -> None:
        # A plain INSERT: the ORM's flush machinery costs more than the statement for one new row.
        driver.execute(self._session, INSERT, booking_values(booking))

    def reclaim(self, moved: Booking, near: Neighbourhood, accept: Accept, *, now: datetime) -> None:
        # One way on both databases: the caller holds the booking's lock; the claimed time's lock
        # (the resource under the gap rule, else the hours the new time touches) keeps the
        # neighbourhood as read, so a concurrent claim of the same time waits for this one. The
        # overlap constraint stays the guard behind it on PostgreSQL; on SQLite the single writer
        # lets none come in between.
        self._lock_claimed_time(moved, near)
        params = {"resource_id": moved.resource_id, "start": near.span.start, "end": near.span.end}
        found = [row for row in self._session.connection().execute(self._NEAR, params) if row[0] != moved.id]
        self._settle(moved, found, 0, accept, stored=False, now=now, store=self.save)

    def save(self, booking: Booking) -> None:
        row = self._session.get(BookingRow, booking.id)
        if row is None:
            raise NotFound(f"Booking {booking.id} does not exist.")
        booking_from_domain(booking, row)
        self._session.flush()

    def get(self, booking_id: str) -> Booking | None:
        row = self._session.get(BookingRow, booking_id)
        return booking_to_domain(row) if row else None

    def lock_for_change(self, booking_id: str, *, resource_first: bool = False) -> Booking | None:
        self._lock_resource_of(booking_id, exclusive=resource_first)
        return self.lock_for_payment(booking_id)

    def lock_for_payment(self, booking_id: str) -> Booking | None:
        row = self._session.scalars(LOCK_BOOKING, {"booking_id": booking_id}).one_or_none()
        return booking_to_domain(row) if row else None

    def get_by_reference(self, reference_code: str) -> Booking | None:
        stmt = select(BookingRow).where(BookingRow.reference_code == reference_code)
        row = self._session.scalars(stmt).one_or_none()
        return booking_to_domain(row) if row else None

    def blocked_slots(self, resource_id: int, span: TimeRange, now: datetime) -> builtins.list[BookedSlot]:
        params = {"resource_id": resource_id, "start": span.start, "end": span.end, "now": now}
        return [slot(*row) for row in self._session.connection().execute(self._BLOCKED, params)]

    def live_spans(self, resource_id: int, span: TimeRange) -> builtins.list[TimeRange]:
        params = {"resource_id": resource_id, "start": span.start, "end": span.end}
        return [
            TimeRange(start, end) for start, end in self._session.connection().execute(self._LIVE, params)
        ]

    def overlapping(
        self,
        resource_ids: Collection[int],
        span: TimeRange,
        *,
        statuses: Collection[BookingStatus] | None = None,
    ) -> builtins.list[Booking]:
        # (resource_id, start_at) finds them; one statement for every resource, ids bound as BIGINT
        ids = bindparam("resource_ids", builtins.list(resource_ids), expanding=True, type_=BigInteger)
        stmt = (
            select(BookingRow)
            .where(
                BookingRow.resource_id.in_(ids),
                BookingRow.start_at < span.end,
                BookingRow.end_at > span.start,
            )
            .order_by(BookingRow.start_at, BookingRow.id)
        )
        if statuses is not None:
            stmt = stmt.where(BookingRow.status.in_([s.value for s in statuses]))
        return [booking_to_domain(row) for row in self._session.scalars(stmt)]

    def _settle(
        self,
        booking: Booking,
        found: Iterable[Sequence[Any]],
        unpaid: int,
        accept: Accept,
        *,
        stored: bool,
        now: datetime,
        store: Callable[[Booking], None] | None = None,
    ) -> None:
        """The end of every claim, once the storage has read (and perhaps stored) it: lapsed holds
        in the way expired, ``accept`` asked, and the booking stored (``store``, by default added)
        if only they stood in its way."""
        slots = [slot(*row) for row in found]
        if any(not s.blocks_at(now) for s in slots):  # rare: the worker's sweep usually got there first
            self._expire_lapsed_holds(booking.resource_id, now)
        blocking = [s for s in slots if s.blocks_at(now)]
        accept(ClaimCheck(blocking=blocking, unpaid_holds=unpaid))
        if not stored:
            if any(s.span.overlaps(booking.span) for s in blocking):  # whatever ``accept`` said
                raise SlotUnavailable()
            # on PostgreSQL only lapsed holds stood in its way (expired now); the constraint decides a race
            (store or self.add)(booking)

    def _expire_lapsed_holds(self, resource_id: int, now: datetime) -> None:
        """Expire all of the resource's lapsed holds (the query is the same as for those in the way),
        each locked and re-read first, under the resource's exclusive lock (``UnitOfWork``'s order)."""
        self._lock_resource(resource_id)
        for lapsed in self.expired_holds(now, resource_id):
            booking = self.lock_for_change(lapsed.id)
            expired = expired_hold(booking, now) if booking is not None else None
            if expired is not None:
                self.save(expired)

    def list(self, query: BookingQuery, *, limit: int, offset: int) -> builtins.list[Booking]:
        # (user_id, start_at, id) and the partial (client_id, start_at, id) serve both orders
        now = query.upcoming_at
        if now is None:
            stmt = select(BookingRow).order_by(BookingRow.start_at.desc(), BookingRow.id.desc())
        else:
            stmt = (
                select(BookingRow)
                .where(BookingRow.start_at > now, BLOCKS_AT)
                .order_by(BookingRow.start_at, BookingRow.id)
                .params(now=now)
            )
        if query.user_id is not None:
            stmt = stmt.where(BookingRow.user_id == query.user_id)
        if query.client_id is not None:
            stmt = stmt.where(BookingRow.client_id == query.client_id)
        if query.only_client_bookings:
            stmt = stmt.where(BookingRow.client_id.is_not(None))
        return [booking_to_domain(row) for row in self._session.scalars(stmt.limit(limit).offset(offset))]

    def search(self, query: StaffBookingQuery, *, limit: int, offset: int) -> builtins.list[Booking]:
        stmt = self._search_statement(query).limit(limit).offset(offset)
        return [booking_to_domain(row) for row in self._session.scalars(stmt)]

    def search_after(
        self, query: StaffBookingQuery, after: SearchKey | None, *, limit: int
    ) -> builtins.list[Booking]:
        stmt = self._search_statement(query, after).limit(limit)
        return [booking_to_domain(row) for row in self._session.scalars(stmt)]

    def _search_statement(self, query: StaffBookingQuery, after: SearchKey | None = None) -> Select[Any]:
        customers = customers_matching(self._session, self._DIALECT, query.text)
        return search_statement(self._DIALECT, query, after, customers=customers)

    def expired_holds(self, now: datetime, resource_id: int | None = None) -> builtins.list[Booking]:
        stmt = (
            select(BookingRow)
            .where(HOLD_LAPSED)
            .order_by(BookingRow.hold_expires_at, BookingRow.id)
            .execution_options(populate_existing=True)
        )
        if resource_id is not None:
            stmt = stmt.where(BookingRow.resource_id == resource_id)
        return [booking_to_domain(row) for row in self._session.scalars(stmt, {"now": now})]

    def ended(self, now: datetime) -> builtins.list[Booking]:
        stmt = (
            select(BookingRow)
            .where(text(LIVE_STATUS_SQL), BookingRow.end_at <= now)
            .order_by(BookingRow.end_at, BookingRow.id)
        )
        return [booking_to_domain(row) for row in self._session.scalars(stmt)]
