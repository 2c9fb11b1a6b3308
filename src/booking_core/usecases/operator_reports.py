"""The venue report for its managers (CONTRACT 7.7).

The database sums the bookings (:class:`~booking_core.ports.VenueReports`): a year's report reads a
few rows per resource and per booked hour, never the bookings one by one. What is computed here is
per local day, not per booking: the open time from the schedules, and the venue's clock that turns
UTC buckets into weekdays and hours (:mod:`booking_core.report`). The money per calendar month (the
console's bars) asks the same sums once per month, and only when asked for: the API's report does not
carry it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import date, time, timedelta
from decimal import ROUND_HALF_UP, Decimal
from zoneinfo import ZoneInfo

from booking_core.catalog import Resource
from booking_core.errors import BadRequest, NotFound
from booking_core.localtime import local_instant
from booking_core.report import (
    MAX_REPORT_DAYS,
    MonthRevenue,
    VenueReport,
    bucket_minutes,
    buckets_by_hour,
    by_hour,
    months,
    open_time,
    resource_report,
)
from booking_core.report import ResourceFigures as Figures
from booking_core.staff import Action, Staff
from booking_core.timerange import TimeRange
from booking_core.usecases.deps import Deps
from booking_core.usecases.permissions import VENUE_NOT_FOUND, require

#: The currency of a venue without resources (nothing to sum in any case).
_NO_CURRENCY = "EUR"


def check_report_dates(date_from: date, date_to: date) -> None:
    """``date_to`` not before ``date_from``, and at most :data:`MAX_REPORT_DAYS` days in all."""
    if date_to < date_from:
        raise BadRequest("to: must not be before from.")
    if (date_to - date_from).days + 1 > MAX_REPORT_DAYS:
        raise BadRequest(f"to: the report covers at most {MAX_REPORT_DAYS} days from `from`.")


def venue_report(
    deps: Deps,
    staff: Staff | None,
    venue_id: int,
    date_from: date,
    date_to: date,
    *,
    by_month: bool = False,
) -> VenueReport:
    """The venue's report over its local dates ``date_from`` to ``date_to`` (inclusive), for its
    managers and admins (``staff`` None: the command line).

    Every active resource is listed, and an inactive one that has bookings in the dates. Occupancy
    counts confirmed, paid, completed and no-show bookings starting in the dates, against the open
    time (bookable windows less closures); ``by_hour`` sums both over the listed resources per
    local weekday and hour that has open time. With ``by_month``, ``by_month`` holds the money of
    the listed resources per calendar month of the dates, read in the same transaction, so that
    the months add up to the lines.
    """
    require(staff, Action.MANAGE_VENUE, venue_id)
    check_report_dates(date_from, date_to)
    with deps.read() as uow:
        venue = uow.resources.get_venue(venue_id)
        if venue is None:
            raise NotFound(VENUE_NOT_FOUND)
        span = _local_dates(venue.tz, date_from, date_to)
        everything = uow.resources.for_venue(venue_id)
        figures = uow.reports.resource_figures([r.id for r in everything], span)
        listed = [r for r in everything if r.is_active or r.id in figures]
        size = bucket_minutes(venue.tz, span)
        booked = buckets_by_hour(
            uow.reports.booked_buckets([r.id for r in listed], span, bucket_minutes=size), venue.tz
        )
        monthly = {
            dates: uow.reports.resource_figures([r.id for r in listed], _local_dates(venue.tz, *dates))
            for dates in (months(date_from, date_to) if by_month else [])
        }
    currency = _currency(listed)
    quantum = deps.currencies.unit(currency).minor
    opened = {r.id: open_time(r, date_from, date_to) for r in listed}
    lines = [
        resource_report(
            r, figures.get(r.id) or Figures(resource_id=r.id), sum(opened[r.id].values()), quantum
        )
        for r in listed
    ]
    return VenueReport(
        venue_id=venue_id,
        date_from=date_from,
        date_to=date_to,
        currency=currency,
        resources=lines,
        by_hour=by_hour(sum(opened.values(), Counter()), booked),
        by_month=[_month(first, last, sums.values(), quantum) for (first, last), sums in monthly.items()],
    )


def _month(first: date, last: date, sums: Iterable[Figures], quantum: Decimal) -> MonthRevenue:
    """One month's money over the resources, to ``quantum`` as the lines are."""
    found = list(sums)
    return MonthRevenue(
        date_from=first,
        date_to=last,
        revenue_paid=_money(sum((f.revenue_paid for f in found), Decimal(0)), quantum),
        revenue_refunded=_money(sum((f.revenue_refunded for f in found), Decimal(0)), quantum),
    )


def _money(amount: Decimal, quantum: Decimal) -> Decimal:
    return amount.quantize(quantum, rounding=ROUND_HALF_UP)


def _local_dates(tz: ZoneInfo, first: date, last: date) -> TimeRange:
    """The instants of the local dates ``first`` to ``last``."""
    return TimeRange(local_instant(first, time(0), tz), local_instant(last + timedelta(days=1), time(0), tz))


def _currency(resources: list[Resource]) -> str:
    """The venue's currency: its resources' (the most common, should they differ)."""
    found = Counter(r.currency.upper() for r in resources)
    return found.most_common(1)[0][0] if found else _NO_CURRENCY
