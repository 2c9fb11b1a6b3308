"""The report's money by calendar month: the months its dates touch, and what each took."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True, slots=True, kw_only=True)
class MonthRevenue:
    """The money of the bookings starting on the local dates ``date_from`` to ``date_to`` (one
    calendar month, cut to the report's dates), summed as the report's resource lines sum it."""

    date_from: dt.date
    date_to: dt.date
    revenue_paid: Decimal
    revenue_refunded: Decimal

    @property
    def month(self) -> dt.date:
        """The first day of the month."""
        return self.date_from.replace(day=1)


def months(date_from: dt.date, date_to: dt.date) -> list[tuple[dt.date, dt.date]]:
    """The calendar months of the dates ``date_from`` to ``date_to`` (inclusive), each as its first and
    last date inside them: ``2026-05-15..2026-07-02`` gives May 15-31, June 1-30 and July 1-2."""
    found: list[tuple[dt.date, dt.date]] = []
    first = date_from
    while first <= date_to:
        following = (first.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
        found.append((first, min(date_to, following - dt.timedelta(days=1))))
        first = following
    return found
