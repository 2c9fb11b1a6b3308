"""The venue report's sums (:class:`~booking_core.ports.VenueReports`), each one statement.

Instants are compared as they are stored; lengths are taken in whole seconds since the epoch
(PostgreSQL's ``extract(epoch ...)``, SQLite's ``strftime('%s', ...)`` of its UTC text), so both
databases count the same seconds. The booked time per UTC bucket cuts each booking at the bucket
edges: on PostgreSQL with ``generate_series``, on SQLite with a recursive CTE, nested in the
statement's FROM so that it still begins with SELECT (a read-only unit of work runs nothing else).
"""

from __future__ import annotations

import builtins
from collections.abc import Collection
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Integer,
    Select,
    and_,
    bindparam,
    case,
    cast,
    func,
    select,
    true,
)
from sqlalchemy.orm import Session

from adapters.sqla.errors import translate_errors
from adapters.sqla.models import BookingRow, PaymentRow
from adapters.sqla.types import UtcDateTime
from booking_core.booking import BookingStatus
from booking_core.payments import TAKEN_STATUSES
from booking_core.report import OCCUPYING, BookedBucket, ResourceFigures
from booking_core.timerange import TimeRange

B = BookingRow.__table__
P = PaymentRow.__table__
_OCCUPYING = B.c.status.in_(sorted(s.value for s in OCCUPYING))
# a lapsed hold is cancelled by the system, not by anyone: not a cancellation
_CANCELLED = and_(
    B.c.status.in_([BookingStatus.CANCELLED.value, BookingStatus.REFUNDED.value]),
    func.coalesce(B.c.cancellation_reason, "") != "expired",
)
_IN_SPAN = and_(
    B.c.resource_id.in_(bindparam("resource_ids", expanding=True)),
    B.c.start_at >= bindparam("start", type_=UtcDateTime),
    B.c.start_at < bindparam("end", type_=UtcDateTime),
)


def _count(condition: ColumnElement[bool]) -> ColumnElement[Any]:
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


def _epoch(dialect: str, instant: ColumnElement[Any]) -> ColumnElement[int]:
    """Whole seconds since the epoch of a stored instant."""
    if dialect == "postgresql":
        return cast(func.floor(func.extract("epoch", instant)), BigInteger)
    return cast(func.strftime("%s", instant), Integer)


def _figures(dialect: str) -> Select[Any]:
    seconds = _epoch(dialect, B.c.end_at) - _epoch(dialect, B.c.start_at)
    return (
        select(
            B.c.resource_id,
            _count(_OCCUPYING),
            _count(_CANCELLED),
            _count(B.c.status == BookingStatus.NO_SHOW.value),
            func.coalesce(func.sum(case((_OCCUPYING, seconds), else_=0)), 0),
        )
        .where(_IN_SPAN)
        .group_by(B.c.resource_id)
    )


# The money of the same bookings: one row per payment, so a booking paid twice counts twice.
_MONEY = (
    select(
        B.c.resource_id,
        func.coalesce(
            func.sum(case((P.c.status.in_(sorted(s.value for s in TAKEN_STATUSES)), P.c.amount), else_=0)), 0
        ).label("paid"),
        func.coalesce(func.sum(P.c.refunded_amount), 0).label("refunded"),
    )
    .select_from(P.join(B, B.c.id == P.c.booking_id))
    .where(_IN_SPAN)
    .group_by(B.c.resource_id)
)


def _shapes(dialect: str) -> Select[Any]:
    """The occupying bookings in the span as (start, end) in epoch seconds, each with how many
    bookings share it: the courts of a venue are booked at the same hours, so a year of bookings is a
    few thousand shapes (and PostgreSQL's planner, which guesses a thousand rows per series, no
    longer thinks the cut costs enough to compile it first)."""
    start, end = _epoch(dialect, B.c.start_at), _epoch(dialect, B.c.end_at)
    return (
        select(start.label("s"), end.label("e"), func.count().label("n"))
        .where(_IN_SPAN, _OCCUPYING)
        .group_by(start, end)
    )


def _buckets_postgres() -> Select[Any]:
    # shapes x the buckets each one touches; the first bucket is the one holding its start
    step = bindparam("step", type_=BigInteger)
    shapes = _shapes("postgresql").subquery("shapes")
    s, e, n = shapes.c.s, shapes.c.e, shapes.c.n
    # a function in FROM sees the tables before it (implicitly LATERAL)
    series = func.generate_series(s - s % step, e - 1, step).table_valued("k").render_derived("buckets")
    k = series.c.k
    cut = (func.least(e, k + step) - func.greatest(s, k)) * n
    return select(k, func.sum(cut)).select_from(shapes.join(series, true())).group_by(k).order_by(k)


def _buckets_sqlite() -> Select[Any]:
    step = bindparam("step", type_=Integer)
    shapes = _shapes("sqlite").subquery("shapes")
    first = select((shapes.c.s - shapes.c.s % step).label("k"), shapes.c.s, shapes.c.e, shapes.c.n)
    walk = first.cte("walk", recursive=True, nesting=True)
    walk = walk.union_all(
        select(walk.c.k + step, walk.c.s, walk.c.e, walk.c.n).where(walk.c.k + step < walk.c.e)
    )
    cut = (func.min(walk.c.e, walk.c.k + step) - func.max(walk.c.s, walk.c.k)) * walk.c.n
    inner = select(walk.c.k.label("k"), func.sum(cut).label("seconds")).group_by(walk.c.k).subquery()
    return select(inner.c.k, inner.c.seconds).order_by(inner.c.k)


_STATEMENTS = {
    "postgresql": (_figures("postgresql"), _buckets_postgres()),
    "sqlite": (_figures("sqlite"), _buckets_sqlite()),
}


@translate_errors
class SqlaVenueReports:
    """The report's sums in the database: a few rows come back, whatever the span."""

    def __init__(self, session: Session) -> None:
        self._session = session
        self._figures, self._buckets = _STATEMENTS[session.get_bind().dialect.name]

    def resource_figures(
        self, resource_ids: Collection[int], span: TimeRange
    ) -> builtins.dict[int, ResourceFigures]:
        params = _params(resource_ids, span)
        if not params["resource_ids"]:
            return {}
        connection = self._session.connection()
        money = {
            rid: (_money(paid), _money(refunded))
            for rid, paid, refunded in connection.execute(_MONEY, params)
        }
        found = {}
        for rid, bookings, cancellations, no_shows, seconds in connection.execute(self._figures, params):
            paid, refunded = money.get(rid, (Decimal(0), Decimal(0)))
            found[rid] = ResourceFigures(
                resource_id=rid,
                bookings=int(bookings),
                cancellations=int(cancellations),
                no_shows=int(no_shows),
                booked_seconds=int(seconds),
                revenue_paid=paid,
                revenue_refunded=refunded,
            )
        return found

    def booked_buckets(
        self, resource_ids: Collection[int], span: TimeRange, *, bucket_minutes: int
    ) -> builtins.list[BookedBucket]:
        params = _params(resource_ids, span) | {"step": bucket_minutes * 60}
        if not params["resource_ids"]:
            return []
        rows = self._session.connection().execute(self._buckets, params)
        return [
            BookedBucket(start=datetime.fromtimestamp(int(k), UTC), seconds=int(seconds))
            for k, seconds in rows
            if seconds
        ]


def _params(resource_ids: Collection[int], span: TimeRange) -> dict[str, Any]:
    return {"resource_ids": sorted(resource_ids), "start": span.start, "end": span.end}


def _money(value: Any) -> Decimal:
    """A sum of amounts as an exact decimal: SQLite sums NUMERIC as floating point, whose error
    rounding to the column's cents removes."""
    return Decimal(str(value)).quantize(Decimal("0.01")) if not isinstance(value, Decimal) else value
