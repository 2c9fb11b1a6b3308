"""The staff's bookings search (:meth:`booking_core.ports.Bookings.search`) as one statement.

The venues' filter is a subquery of their resources, so the bookings are found through
``(resource_id, start_at)`` within a venue and through ``(start_at, id)`` (migration 0017) in the
search's own order over every venue. The text matches with ``LIKE`` on lower-cased columns (on
SQLite through ``unicode_lower``, which the engine registers: its own lower() folds ASCII alone):
the reference code, or the customer. ``%``, ``_`` and the escape character in the text match
themselves.

The customers come first, in a query of their own (:func:`customers_matching`): the users whose
email or name holds the text, found on PostgreSQL through the trigram indexes of migration 0019.
When they are few (at most :data:`FEW_CUSTOMERS`) the search names them, so that PostgreSQL knows how
many bookings they have and finds them through ``(user_id, start_at, id)`` and the reference's
trigram index together, rather than filtering every booking in order: over the 10 million bookings
of ``make bench-scale`` a text that matches one reference or nothing took 7 to 9 s that way, and
now takes 1 to 15 ms (docs/performance.md, "Operator reads"). When they are many (a
text such as "example"), the bookings in order are mostly matches and the search filters them,
looking each booking's customer up by its key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, false, func, or_, select
from sqlalchemy.orm import Session

from adapters.sqla.engine import UNICODE_LOWER
from adapters.sqla.models import BookingRow, ResourceRow, UserRow
from adapters.sqla.models.accounts import FULL_NAME
from adapters.sqla.types import int64
from booking_core.ports import SearchKey, StaffBookingQuery, VenueSpan

T = BookingRow.__table__
_RESOURCES = ResourceRow.__table__
_USERS = UserRow.__table__
_ESCAPE = "\\"
#: At most this many customers matching the text are named in the search (:func:`customers_matching`).
FEW_CUSTOMERS = 1000


def customers_matching(session: Session, dialect: str, text: str | None) -> list[str] | None:
    """The ids of the users whose email or name holds ``text`` (any case), if there are at most
    :data:`FEW_CUSTOMERS` of them; None when there are more (or no text)."""
    if not text:
        return None
    stmt = select(_USERS.c.id).where(_customer_matching(text, _lower(dialect))).limit(FEW_CUSTOMERS + 1)
    found = list(session.scalars(stmt))
    return found if len(found) <= FEW_CUSTOMERS else None


def search_statement(
    dialect: str,
    query: StaffBookingQuery,
    after: SearchKey | None = None,
    *,
    customers: Sequence[str] | None = None,
) -> Select[Any]:
    """The bookings ``query`` finds on the ``dialect``'s database, latest start first (ties by id,
    highest first); with ``after`` only those that come after that (start, id) in this order.

    ``customers``: every user whose email or name holds ``query.text``, when
    :func:`customers_matching` found them few; None has the statement find them itself."""
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
        stmt = stmt.where(_matching(query.text, _lower(dialect), customers))
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


def _lower(dialect: str) -> Any:
    return func.lower if dialect == "postgresql" else getattr(func, UNICODE_LOWER)


def _pattern(text: str) -> str:
    return "%" + _escaped(text.lower()) + "%"


def _customer_matching(text: str, lower: Any) -> ColumnElement[bool]:
    """A user whose email or name holds ``text``: the expressions of the trigram indexes (0019)."""
    pattern = _pattern(text)
    return or_(*(lower(c).like(pattern, escape=_ESCAPE) for c in (_USERS.c.email, FULL_NAME)))


def _matching(text: str, lower: Any, customers: Sequence[str] | None) -> ColumnElement[bool]:
    """The reference code holds ``text``, or the customer is one of ``customers`` (None: the
    booking's customer, looked up by its key, is one whose email or name holds ``text``)."""
    by_reference: ColumnElement[bool] = lower(T.c.reference_code).like(_pattern(text), escape=_ESCAPE)
    if customers is None:
        # each booking's customer by its key: "IN (subquery)" of a few hundred thousand customers
        # outgrows the memory of a hashed subplan, and PostgreSQL then scans the list once per booking
        customer = select(_USERS.c.id).where(_USERS.c.id == T.c.user_id, _customer_matching(text, lower))
        return or_(by_reference, customer.exists())
    if not customers:
        return by_reference
    return or_(by_reference, T.c.user_id.in_(customers))


def _escaped(text: str) -> str:
    return text.replace(_ESCAPE, _ESCAPE * 2).replace("%", _ESCAPE + "%").replace("_", _ESCAPE + "_")
