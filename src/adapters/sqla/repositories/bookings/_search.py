"""The staff's bookings search (:meth:`booking_core.ports.Bookings.search`) as one statement.

The venues' filter is a subquery of their resources, so the bookings are found through
``(resource_id, start_at)`` within a venue and through ``(start_at, id)`` (migration 0017) in the
search's own order over every venue. The text matches with ``LIKE`` on lower-cased columns (on
SQLite through ``unicode_lower``, which the engine registers: its own lower() folds ASCII alone):
the reference code, or the customer, looked up once in a subquery of the users whose email or name
holds it (measured: joining the customer to every booking cost seven times as much on a year of a
busy venue). ``%``, ``_`` and the escape character in the text match themselves.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Select, and_, false, func, literal, or_, select

from adapters.sqla.engine import UNICODE_LOWER
from adapters.sqla.models import BookingRow, ResourceRow, UserRow
from adapters.sqla.types import int64
from booking_core.ports import SearchKey, StaffBookingQuery, VenueSpan

T = BookingRow.__table__
_RESOURCES = ResourceRow.__table__
_USERS = UserRow.__table__
_ESCAPE = "\\"


def search_statement(dialect: str, query: StaffBookingQuery, after: SearchKey | None = None) -> Select[Any]:
    """The bookings ``query`` finds on the ``dialect``'s database, latest start first (ties by id,
    highest first); with ``after`` only those that come after that (start, id) in this order."""
    stmt = select(BookingRow).order_by(T.c.start_at.desc(), T.c.id.desc())
    if query.venue_ids is not None:
        stmt = stmt.where(T.c.resource_id.in_(_resources_of(query.venue_ids)))
    if query.resource_id is not None:
        stmt = stmt.where(T.c.resource_id == int64(query.resource_id))
    if query.starts is not None:
        stmt = stmt.where(or_(false(), *(_starting_in(entry) for entry in query.starts)))
    if query.status is not None:
        stmt = stmt.where(T.c.status == query.status.value)
    if query.text:
        lower = func.lower if dialect == "postgresql" else getattr(func, UNICODE_LOWER)
        stmt = stmt.where(_matching(query.text, lower))
    if after is not None:
        start, booking_id = after
        # spelled out rather than a row comparison, which SQLite's planner reads less well
        stmt = stmt.where(or_(T.c.start_at < start, and_(T.c.start_at == start, T.c.id < booking_id)))
    return stmt


def _resources_of(venue_ids: frozenset[int]) -> Select[Any]:
    return select(_RESOURCES.c.id).where(_RESOURCES.c.venue_id.in_([int64(v) for v in sorted(venue_ids)]))


def _starting_in(entry: VenueSpan) -> ColumnElement[bool]:
    return and_(
        T.c.resource_id.in_(_resources_of(entry.venue_ids)),
        T.c.start_at >= entry.span.start,
        T.c.start_at < entry.span.end,
    )


def _matching(text: str, lower: Any) -> ColumnElement[bool]:
    """The reference code, or a customer among those whose email or name holds ``text``: the
    customers are found once, not joined to every booking."""
    pattern = "%" + _escaped(text.lower()) + "%"
    name = _USERS.c.first_name + literal(" ") + _USERS.c.last_name
    customers = select(_USERS.c.id).where(
        or_(*(lower(c).like(pattern, escape=_ESCAPE) for c in (_USERS.c.email, name)))
    )
    return or_(lower(T.c.reference_code).like(pattern, escape=_ESCAPE), T.c.user_id.in_(customers))


def _escaped(text: str) -> str:
    return text.replace(_ESCAPE, _ESCAPE * 2).replace("%", _ESCAPE + "%").replace("_", _ESCAPE + "_")
