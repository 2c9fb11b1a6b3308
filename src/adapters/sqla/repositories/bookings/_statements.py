"""Core statements on the ``bookings`` table that both databases run, built once: the hot paths
skip the ORM's per-statement machinery. Each strategy adds the statements of its own database."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Select, and_, bindparam, func, insert, or_, select, text

from adapters.sqla import driver
from adapters.sqla.models import BookingRow
from adapters.sqla.models.bookings import BLOCKING_STATUS_SQL, LIVE_STATUS_SQL, PENDING_STATUS_SQL
from adapters.sqla.types import UtcDateTime

T = BookingRow.__table__
#: What a booking's slot is made of (``_mapping.slot``).
SLOT_COLUMNS = (T.c.id, T.c.start_at, T.c.end_at, T.c.status, T.c.hold_expires_at)
OVERLAPS = and_(
    T.c.resource_id == bindparam("resource_id"),
    T.c.start_at < bindparam("end", type_=UtcDateTime),
    T.c.end_at > bindparam("start", type_=UtcDateTime),
)
HOLD_LAPSED = and_(
    text(PENDING_STATUS_SQL),  # literal: the partial index's predicate
    T.c.hold_expires_at.is_not(None),
    T.c.hold_expires_at <= bindparam("now", type_=UtcDateTime),
)
# As Booking.blocks_time at :now: confirmed and paid always block, pending only while its hold
# lasts. The statuses are literal SQL, like the partial indexes' predicates.
HOLD_LIVE = or_(T.c.hold_expires_at.is_(None), T.c.hold_expires_at > bindparam("now", type_=UtcDateTime))
BLOCKS_AT = or_(text(LIVE_STATUS_SQL), and_(text(PENDING_STATUS_SQL), HOLD_LIVE))


def blocked(overlaps: ColumnElement[bool]) -> Select[Any]:
    """The slots of the bookings ``overlaps`` finds that block time at ``:now``, by start."""
    return select(*SLOT_COLUMNS).where(overlaps, BLOCKS_AT).order_by(T.c.start_at, T.c.id)


def in_blocking_state(overlaps: ColumnElement[bool]) -> Select[Any]:
    """The slots of the bookings ``overlaps`` finds in a blocking state, lapsed holds included: what
    the overlap constraint counts until they are expired. A claim tells them apart by ``now``."""
    return select(*SLOT_COLUMNS).where(overlaps).order_by(T.c.start_at, T.c.id)


def live(overlaps: ColumnElement[bool]) -> Select[Any]:
    """The time of the confirmed and paid bookings ``overlaps`` finds: what the demand level counts."""
    return select(T.c.start_at, T.c.end_at).where(overlaps, text(LIVE_STATUS_SQL)).order_by(T.c.start_at)


#: How many pending bookings of ``:holder`` hold their time at ``:now`` (found through the user's index).
UNPAID_HOLDS = select(func.count()).where(
    T.c.user_id == bindparam("holder"), text(PENDING_STATUS_SQL), HOLD_LIVE
)
BLOCKING = text(BLOCKING_STATUS_SQL)
INSERT = driver.DriverStatement(insert(T))
# populate_existing: a row this session read before is read again, as it is now
LOCK_BOOKING = (
    select(BookingRow)
    .where(BookingRow.id == bindparam("booking_id"))
    .with_for_update()
    .execution_options(populate_existing=True)
)
