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

from sqlalchemy.orm import Session

from adapters.sqla.errors import translate_errors
from adapters.sqla.repositories.reports._statements import MONEY, STATEMENTS
from booking_core.report import BookedBucket, ResourceFigures
from booking_core.timerange import TimeRange


@translate_errors
class SqlaVenueReports:
    """The report's sums in the database: a few rows come back, whatever the span."""

    def __init__(self, session: Session) -> None:
        self._session = session
        self._figures, self._buckets = STATEMENTS[session.get_bind().dialect.name]

    def resource_figures(
        self, resource_ids: Collection[int], span: TimeRange
    ) -> builtins.dict[int, ResourceFigures]:
        params = _params(resource_ids, span)
        if not params["resource_ids"]:
            return {}
        connection = self._session.connection()
        money = {
            rid: (_money(paid), _money(refunded)) for rid, paid, refunded in connection.execute(MONEY, params)
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
