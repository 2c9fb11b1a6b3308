"""Bookings, and the overlap queries the double-booking check and the worker run."""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    CompoundSelect,
    Select,
    and_,
    bindparam,
    exists,
    func,
    insert,
    literal_column,
    null,
    or_,
    select,
    text,
)
from sqlalchemy.orm import Session

from adapters.sqla import driver
from adapters.sqla.errors import translate_errors
from adapters.sqla.models import BookingRow, ResourceRow
from adapters.sqla.models.bookings import BLOCKING_STATUS_SQL, LIVE_STATUS_SQL, PENDING_STATUS_SQL
from adapters.sqla.types import UtcDateTime
from booking_core.availability import BookedSlot
from booking_core.booking import Booking, BookingStatus, CancellationReason
from booking_core.catalog import PriceUnit
from booking_core.errors import NotFound
from booking_core.ports.repositories import BookingCheck, BookingQuery
from booking_core.timerange import TimeRange


def booking_to_domain(row: BookingRow) -> Booking:
    return Booking(
        id=row.id,
        reference_code=row.reference_code,
        resource_id=row.resource_id,
        user_id=row.user_id,
        client_id=row.client_id,
        start=row.start_at,
        end=row.end_at,
        participant_count=row.participant_count,
        price_per_unit=row.price_per_unit,
        pricing_unit=PriceUnit(row.pricing_unit),
        total_price=row.total_price,
        currency=row.currency,
        status=BookingStatus(row.status),
        notes=row.notes,
        cancellation_reason=CancellationReason(row.cancellation_reason) if row.cancellation_reason else None,
        cancellation_notes=row.cancellation_notes,
        hold_expires_at=row.hold_expires_at,
        confirmed_at=row.confirmed_at,
        paid_at=row.paid_at,
        cancelled_at=row.cancelled_at,
        refunded_at=row.refunded_at,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def booking_from_domain(booking: Booking, row: BookingRow | None = None) -> BookingRow:
    """``row`` (a new one when None) with every column set from ``booking``."""
    row = row if row is not None else BookingRow(id=booking.id)
    for column, value in booking_values(booking).items():
        setattr(row, column, value)
    return row


@translate_errors
class SqlaBookings:
    """Bookings in the ``bookings`` table. ``add``/``save`` flush, so constraint errors surface at once."""

    def __init__(self, session: Session) -> None:
        self._session = session
        self._postgres = session.get_bind().dialect.name == "postgresql"

    def add(self, booking: Booking) -> None:
        # A plain INSERT: the ORM's flush machinery costs more than the statement for one new row.
        driver.execute(self._session, _INSERT, booking_values(booking))

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
        # SQLite: the writer's lock taken by BEGIN IMMEDIATE already excludes every other writer.
        # PostgreSQL: the resource's row before the booking's, always (the lock order of UnitOfWork).
        if self._postgres:
            lock = _LOCK_RESOURCE_OF if resource_first else _SHARE_RESOURCE_OF
            self._session.connection().execute(lock, {"booking_id": booking_id})
        row = self._session.scalars(_LOCK_BOOKING, {"booking_id": booking_id}).one_or_none()
        return booking_to_domain(row) if row else None

    def lock_for_payment(self, booking_id: str) -> Booking | None:
        row = self._session.scalars(_LOCK_BOOKING, {"booking_id": booking_id}).one_or_none()
        return booking_to_domain(row) if row else None

    def get_by_reference(self, reference_code: str) -> Booking | None:
        stmt = select(BookingRow).where(BookingRow.reference_code == reference_code)
        row = self._session.scalars(stmt).one_or_none()
        return booking_to_domain(row) if row else None

    def blocked_slots(self, resource_id: int, span: TimeRange, now: datetime) -> builtins.list[BookedSlot]:
        rows = self._session.connection().execute(
            _BLOCKED_POSTGRES if self._postgres else _BLOCKED,
            {"resource_id": resource_id, "start": span.start, "end": span.end, "now": now},
        )
        return [_slot(*row) for row in rows]

    def live_spans(self, resource_id: int, span: TimeRange) -> builtins.list[TimeRange]:
        rows = self._session.connection().execute(
            _LIVE_POSTGRES if self._postgres else _LIVE,
            {"resource_id": resource_id, "start": span.start, "end": span.end},
        )
        return [TimeRange(start, end) for start, end in rows]

    def unpaid_holds(self, user_id: str, now: datetime) -> int:
        count: int = (
            self._session.connection().execute(_UNPAID_HOLDS, {"user_id": user_id, "now": now}).scalar_one()
        )
        return count

    def booking_check(self, resource_id: int, span: TimeRange, now: datetime) -> BookingCheck:
        return _classified(self._check_rows(resource_id, span), span, now)

    def add_unless_overlapped(self, booking: Booking, checked: TimeRange, now: datetime) -> BookingCheck:
        if self._postgres:
            # One statement: the check, and the INSERT unless the check found the booking's time taken.
            params = {**booking_values(booking), "start": checked.start, "end": checked.end}
            found = driver.run(self._session, ADD_UNLESS_OVERLAPPED, params)
            stored = any(start is None for _, start, _, _, _ in found)  # the INSERT's row: its id alone
            rows = sorted(_slot_rows(r for r in found if r[1] is not None), key=lambda r: (r[1], r[0]))
        else:
            rows = self._check_rows(booking.resource_id, checked)
            stored = not any(booking.span.overlaps(TimeRange(start, end)) for _, start, end, _, _ in rows)
            if stored:
                self.add(booking)
        return replace(_classified(rows, checked, now), stored=stored)

    def _check_rows(self, resource_id: int, span: TimeRange) -> Sequence[Sequence[Any]]:
        """The slot columns of the resource's bookings in a blocking state overlapping ``span``."""
        params = {"resource_id": resource_id, "start": span.start, "end": span.end}
        return self._session.connection().execute(_CHECK_POSTGRES if self._postgres else _CHECK, params).all()

    def list(self, query: BookingQuery, *, limit: int, offset: int) -> builtins.list[Booking]:
        # (user_id, start_at, id) and the partial (client_id, start_at, id) serve both orders
        now = query.upcoming_at
        if now is None:
            stmt = select(BookingRow).order_by(BookingRow.start_at.desc(), BookingRow.id.desc())
        else:
            stmt = (
                select(BookingRow)
                .where(BookingRow.start_at > now, _BLOCKS_AT)
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

    def expired_holds(self, now: datetime, resource_id: int | None = None) -> builtins.list[Booking]:
        stmt = (
            select(BookingRow)
            .where(_HOLD_LAPSED)
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


def _slot_rows(found: Iterable[Sequence[Any]]) -> builtins.list[tuple[Any, ...]]:
    """Rows of the slot columns read on the driver, their instants as ``UtcDateTime`` reads them."""
    return [
        (i, driver.utc(start), driver.utc(end), status, driver.utc_or_none(hold))
        for i, start, end, status, hold in found
    ]


def _classified(rows: Iterable[Sequence[Any]], span: TimeRange, now: datetime) -> BookingCheck:
    """The check's rows (bookings in a blocking state near ``span``) split as ``BookingCheck`` says."""
    blocked: builtins.list[BookedSlot] = []
    lapsed: builtins.list[str] = []
    for row in rows:
        slot = _slot(*row)
        if slot.blocks_at(now):
            if slot.span.overlaps(span):
                blocked.append(slot)
        else:
            lapsed.append(slot.booking_id)
    return BookingCheck(blocked=blocked, lapsed_hold_ids=lapsed)


def _slot(booking_id: str, start: datetime, end: datetime, status: str, hold: datetime | None) -> BookedSlot:
    pending = status == BookingStatus.PENDING.value
    return BookedSlot(start=start, end=end, booking_id=booking_id, hold_expires_at=hold if pending else None)


# Core statements on the table, built once: the hot paths skip the ORM's per-statement machinery.
_T = BookingRow.__table__
_SLOT_COLUMNS = (
    _T.c.id,
    _T.c.start_at,
    _T.c.end_at,
    _T.c.status,
    _T.c.hold_expires_at,
)
_OVERLAPS = and_(
    _T.c.resource_id == bindparam("resource_id"),
    _T.c.start_at < bindparam("end", type_=UtcDateTime),
    _T.c.end_at > bindparam("start", type_=UtcDateTime),
)
# PostgreSQL: the same test in the words of the exclusion constraint, so that its GiST index finds
# the few bookings near the span instead of a B-tree scan over all of the resource's history. The
# index is partial: its status predicate is spelled out literally so that even a generic plan of the
# prepared statement can use it.
_BLOCKING_RANGE = func.tstzrange(_T.c.start_at, _T.c.end_at, literal_column("'[)'"))
_QUERY_RANGE = func.tstzrange(
    bindparam("start", type_=UtcDateTime), bindparam("end", type_=UtcDateTime), literal_column("'[)'")
)
_OVERLAPS_POSTGRES = and_(
    _T.c.resource_id == bindparam("resource_id"),
    _BLOCKING_RANGE.op("&&")(_QUERY_RANGE),
    text(BLOCKING_STATUS_SQL),
)
_HOLD_LAPSED = and_(
    text(PENDING_STATUS_SQL),  # literal: the partial index's predicate
    _T.c.hold_expires_at.is_not(None),
    _T.c.hold_expires_at <= bindparam("now", type_=UtcDateTime),
)

# As Booking.blocks_time at :now: confirmed and paid always block, pending only while its hold
# lasts. The statuses are literal SQL, like the partial indexes' predicates.
_BLOCKS_AT = or_(
    text(LIVE_STATUS_SQL),
    and_(
        text(PENDING_STATUS_SQL),
        or_(_T.c.hold_expires_at.is_(None), _T.c.hold_expires_at > bindparam("now", type_=UtcDateTime)),
    ),
)


def _blocked(overlaps: ColumnElement[bool]) -> Select[Any]:
    return select(*_SLOT_COLUMNS).where(overlaps, _BLOCKS_AT).order_by(_T.c.start_at, _T.c.id)


def _check(overlaps: ColumnElement[bool]) -> Select[Any]:
    # Every booking in a blocking state in the span, lapsed holds included (the caller tells them
    # apart by ``now``). On PostgreSQL this is the exclusion constraint's own test, so the GiST index
    # answers it even in the generic plan of the prepared statement, which the server then keeps
    # instead of planning each execution anew (as it did while a lapsed-hold branch was ORed in).
    return select(*_SLOT_COLUMNS).where(overlaps).order_by(_T.c.start_at, _T.c.id)


_BLOCKED, _BLOCKED_POSTGRES = _blocked(_OVERLAPS), _blocked(_OVERLAPS_POSTGRES)


def _live(overlaps: ColumnElement[bool]) -> Select[Any]:
    return select(_T.c.start_at, _T.c.end_at).where(overlaps, text(LIVE_STATUS_SQL)).order_by(_T.c.start_at)


# what the demand level counts: on PostgreSQL through the exclusion constraint's GiST index, as above
_LIVE, _LIVE_POSTGRES = _live(_OVERLAPS), _live(_OVERLAPS_POSTGRES)
# a user's pending bookings that still block time (as _BLOCKS_AT), found through the user's index
_UNPAID_HOLDS = select(func.count()).where(
    _T.c.user_id == bindparam("user_id"),
    text(PENDING_STATUS_SQL),
    or_(_T.c.hold_expires_at.is_(None), _T.c.hold_expires_at > bindparam("now", type_=UtcDateTime)),
)
_CHECK, _CHECK_POSTGRES = _check(and_(_OVERLAPS, text(BLOCKING_STATUS_SQL))), _check(_OVERLAPS_POSTGRES)
_INSERT = driver.DriverStatement(insert(_T))
# The resource of a booking, locked; the subquery that finds it locks nothing itself.
_RESOURCE_OF = select(ResourceRow.__table__.c.id).where(
    ResourceRow.__table__.c.id
    == select(_T.c.resource_id).where(_T.c.id == bindparam("booking_id")).scalar_subquery()
)
# FOR UPDATE: excludes booking creation on the resource (its lock, and its INSERT's foreign-key check)
_LOCK_RESOURCE_OF = _RESOURCE_OF.with_for_update(of=ResourceRow.__table__)
# FOR KEY SHARE: what the booking counter's trigger takes on the resource when a change of the
# booking reaches a counter row of its own for the first time (the foreign-key check of its INSERT),
# taken here up front. Shared: changes of a resource's bookings do not wait for one another.
_SHARE_RESOURCE_OF = _RESOURCE_OF.with_for_update(of=ResourceRow.__table__, read=True, key_share=True)
# populate_existing: a row this session read before is read again, as it is now
_LOCK_BOOKING = (
    select(BookingRow)
    .where(BookingRow.id == bindparam("booking_id"))
    .with_for_update()
    .execution_options(populate_existing=True)
)


def _add_unless_overlapped() -> CompoundSelect[Any]:
    # WITH near AS (the check), stored AS (INSERT ... SELECT <values> WHERE NOT EXISTS (a row of near
    # overlapping the booking) RETURNING id) SELECT near's rows UNION ALL stored's id. The INSERT does
    # not see its own row in near (one snapshot), and the resource's lock keeps others out meanwhile.
    near = _check(_OVERLAPS_POSTGRES).order_by(None).cte("near")
    overlapped: Select[Any] = (
        select(literal_column("1"))
        .select_from(near)
        .where(
            near.c.start_at < bindparam("end_at", type_=UtcDateTime),
            near.c.end_at > bindparam("start_at", type_=UtcDateTime),
        )
    )
    values = select(*(bindparam(c.name, type_=c.type) for c in _T.columns)).where(~exists(overlapped))
    stored = insert(_T).from_select([c.name for c in _T.columns], values).returning(_T.c.id).cte("stored")
    return select(*near.c).union_all(select(stored.c.id, null(), null(), null(), null()))


#: Public for the benchmark's booking floor, which runs the booking's own statements on a bare pool.
ADD_UNLESS_OVERLAPPED = driver.DriverStatement(_add_unless_overlapped())


def booking_values(booking: Booking) -> dict[str, object]:
    """The ``bookings`` columns of ``booking``."""
    return {
        "id": booking.id,
        "reference_code": booking.reference_code,
        "resource_id": booking.resource_id,
        "user_id": booking.user_id,
        "client_id": booking.client_id,
        "start_at": booking.start,
        "end_at": booking.end,
        "participant_count": booking.participant_count,
        "price_per_unit": booking.price_per_unit,
        "pricing_unit": booking.pricing_unit.value,
        "total_price": booking.total_price,
        "currency": booking.currency,
        "status": booking.status.value,
        "notes": booking.notes,
        "cancellation_reason": booking.cancellation_reason.value if booking.cancellation_reason else None,
        "cancellation_notes": booking.cancellation_notes,
        "hold_expires_at": booking.hold_expires_at,
        "confirmed_at": booking.confirmed_at,
        "paid_at": booking.paid_at,
        "cancelled_at": booking.cancelled_at,
        "refunded_at": booking.refunded_at,
        "created_at": booking.created_at,
        "updated_at": booking.updated_at,
    }
