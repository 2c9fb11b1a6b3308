"""Bookings on PostgreSQL: a claim is one statement behind the locks it needs.

The overlap guard is the ``btree_gist`` exclusion constraint over (resource, time range) of the
bookings in a blocking state, so the statements below ask for overlaps in its words (``&&`` on
``tstzrange``): its GiST index then finds the few bookings near a span instead of a B-tree scan over
the resource's history. That index is partial; its status predicate is spelled out literally so
that even a generic plan of a prepared statement can use it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import (
    BigInteger,
    CompoundSelect,
    Select,
    and_,
    bindparam,
    cast,
    exists,
    func,
    insert,
    literal_column,
    null,
    select,
    text,
    true,
)

from adapters.sqla import driver
from adapters.sqla.errors import translate_errors
from adapters.sqla.models import ResourceRow, UserRow
from adapters.sqla.repositories.bookings._base import SqlaBookings
from adapters.sqla.repositories.bookings._mapping import booking_values
from adapters.sqla.repositories.bookings._statements import (
    BLOCKING,
    UNPAID_HOLDS,
    T,
    blocked,
    in_blocking_state,
    live,
)
from adapters.sqla.types import UtcDateTime
from booking_core.booking import Booking, BookingStatus
from booking_core.claims import Accept, Neighbourhood

_OVERLAPS = and_(
    T.c.resource_id == bindparam("resource_id"),
    func.tstzrange(T.c.start_at, T.c.end_at, literal_column("'[)'")).op("&&")(
        func.tstzrange(
            bindparam("start", type_=UtcDateTime), bindparam("end", type_=UtcDateTime), literal_column("'[)'")
        )
    ),
    BLOCKING,
)


@translate_errors
class PostgresBookings(SqlaBookings):
    """Bookings on PostgreSQL, where concurrent transactions lock rows and the constraint decides races."""

    _DIALECT = "postgresql"
    _BLOCKED = blocked(_OVERLAPS)
    _LIVE = live(_OVERLAPS)
    _NEAR = in_blocking_state(_OVERLAPS)

    def claim(self, booking: Booking, near: Neighbourhood, accept: Accept, *, now: datetime) -> None:
        # Locks first, in UnitOfWork's order, each in a statement before the claim's: a statement
        # reads the data as it was when it began, so a count taken in the statement that waited for
        # the user's lock could miss a booking committed meanwhile. Sent together, the claim runs
        # the moment the locks are held.
        holder = booking.user_id if booking.status is BookingStatus.PENDING else None
        locks: list[Step] = [(LOCK_USER, {"user_id": holder})] if holder is not None else []
        locks.append(_time_lock(booking, near))
        params = {
            **booking_values(booking),
            "start": near.span.start,
            "end": near.span.end,
            "now": now,
            "holder": holder,
        }
        *_, rows = driver.run_in_turn(self._session, [*locks, (CLAIM, params)])
        found = [_slot_row(row) for row in rows if row[1] is not None]
        stored = any(row[1] is None for row in rows)  # the INSERT's row: its id alone
        self._settle(booking, found, rows[0][5], accept, stored=stored, now=now)

    def _lock_claimed_time(self, claim: Booking, near: Neighbourhood) -> None:
        lock, params = _time_lock(claim, near)
        driver.run(self._session, lock, params)

    def _lock_resource(self, resource_id: int) -> None:
        driver.run(self._session, LOCK_RESOURCE, {"resource_id": resource_id})

    def _lock_resource_of(self, booking_id: str, *, exclusive: bool) -> None:
        lock = _LOCK_RESOURCE_OF if exclusive else _SHARE_RESOURCE_OF
        self._session.connection().execute(lock, {"booking_id": booking_id})


Step = tuple[driver.DriverStatement, dict[str, Any]]
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_HOUR = timedelta(hours=1)
_LOCK_KEYS = 2**31 - 1  # the advisory lock's keys are 32-bit integers


def _time_lock(claim: Booking, near: Neighbourhood) -> Step:
    """What a claim locks so that no concurrent claim can change its neighbourhood: the resource
    where the gap rule reads beyond the claimed time, else each hour of the resource it touches."""
    if near.serialized:
        return LOCK_RESOURCE, {"resource_id": claim.resource_id}
    return LOCK_HOURS, {
        "resource_key": claim.resource_id % _LOCK_KEYS,
        "first_hour": (claim.start - _EPOCH) // _HOUR,
        "last_hour": (claim.end - _EPOCH - timedelta(microseconds=1)) // _HOUR,
    }


def _slot_row(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """The slot columns of a row read on the driver, their instants as ``UtcDateTime`` reads them."""
    booking_id, start, end, status, hold = row[:5]
    return booking_id, driver.utc(start), driver.utc(end), status, driver.utc_or_none(hold)


def _claim() -> CompoundSelect[Any]:
    # WITH near AS (the bookings in a blocking state in the neighbourhood), unpaid AS (the holder's
    # count), stored AS (INSERT ... SELECT <values> WHERE NOT EXISTS (a row of near overlapping the
    # booking) RETURNING id) SELECT near's rows UNION ALL stored's id, each with the count. The INSERT
    # does not see its own row in near or unpaid (one snapshot); at least one row comes back, as the
    # booking is stored unless a row of near is in its way.
    near = in_blocking_state(_OVERLAPS).order_by(None).cte("near")
    unpaid = UNPAID_HOLDS.cte("unpaid")
    overlapped: Select[Any] = (
        select(literal_column("1"))
        .select_from(near)
        .where(
            near.c.start_at < bindparam("end_at", type_=UtcDateTime),
            near.c.end_at > bindparam("start_at", type_=UtcDateTime),
        )
    )
    values = select(*(bindparam(c.name, type_=c.type) for c in T.columns)).where(~exists(overlapped))
    stored = insert(T).from_select([c.name for c in T.columns], values).returning(T.c.id).cte("stored")
    count = cast(unpaid.c[0], BigInteger)
    return (
        select(*near.c, count)
        .select_from(near.join(unpaid, true()))
        .union_all(
            select(stored.c.id, null(), null(), null(), null(), count).select_from(
                stored.join(unpaid, true())
            )
        )
    )


#: The claim's statement: the check, the count and the INSERT unless a booking is in the way.
CLAIM = driver.DriverStatement(_claim())
# NO KEY UPDATE: serializes the user's claims of unpaid holds, yet lets rows that merely reference
# the user (a login's token, a booking's foreign-key check) proceed meanwhile
LOCK_USER = driver.DriverStatement(
    select(UserRow.id).where(UserRow.id == bindparam("user_id")).with_for_update(key_share=True)
)
#: Each hour of a resource that a claim touches (since 1970, UTC), locked in ascending order until
#: the unit of work ends. Two claims of overlapping time share an hour, so the later one waits here
#: and then sees the earlier one committed. Without it both INSERTs would reach the overlap
#: constraint, each find the other's uncommitted row and wait for it: a deadlock, which PostgreSQL
#: breaks only after ``deadlock_timeout`` (a second), over and over while an hour is contested.
LOCK_HOURS = driver.DriverStatement(
    text(
        "SELECT pg_advisory_xact_lock(CAST(:resource_key AS integer), CAST(hour AS integer)) "
        "FROM generate_series(CAST(:first_hour AS bigint), CAST(:last_hour AS bigint)) AS hour"
    )
)
_RESOURCES = ResourceRow.__table__
#: FOR UPDATE: excludes claims on the resource (its lock, and the FOR KEY SHARE of their INSERTs'
#: foreign-key checks) until the unit of work ends.
LOCK_RESOURCE = driver.DriverStatement(
    select(_RESOURCES.c.id)
    .where(_RESOURCES.c.id == bindparam("resource_id", type_=BigInteger))
    .with_for_update(of=_RESOURCES)
)
# The resource of a booking, locked; the subquery that finds it locks nothing itself.
_RESOURCE_OF = select(_RESOURCES.c.id).where(
    _RESOURCES.c.id == select(T.c.resource_id).where(T.c.id == bindparam("booking_id")).scalar_subquery()
)
_LOCK_RESOURCE_OF = _RESOURCE_OF.with_for_update(of=_RESOURCES)
# FOR KEY SHARE: what the booking counter's trigger takes on the resource when a change of the
# booking reaches a counter row of its own for the first time (the foreign-key check of its INSERT),
# taken here up front. Shared: changes of a resource's bookings do not wait for one another.
_SHARE_RESOURCE_OF = _RESOURCE_OF.with_for_update(of=_RESOURCES, read=True, key_share=True)
