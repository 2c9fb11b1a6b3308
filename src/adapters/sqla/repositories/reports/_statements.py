"""The report's statements, built once per database: lengths in whole seconds since the epoch, the
booked time cut at the UTC bucket edges (``generate_series`` on PostgreSQL, a recursive CTE on SQLite)."""

from __future__ import annotations

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

from adapters.sqla.models import BookingRow, PaymentRow
from adapters.sqla.types import UtcDateTime
from booking_core.booking import BookingStatus
from booking_core.payments import TAKEN_STATUSES
from booking_core.report import OCCUPYING

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
MONEY = (
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


def _shapes(dialect: str) -> Select[int, int, int]:
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


#: Per dialect: the sums per resource, and the booked time per bucket.
STATEMENTS = {
    "postgresql": (_figures("postgresql"), _buckets_postgres()),
    "sqlite": (_figures("sqlite"), _buckets_sqlite()),
}
