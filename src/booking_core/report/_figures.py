"""The report's figures: what the storage sums, the lines and the whole report, and occupancy."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from booking_core.booking import BookingStatus
from booking_core.catalog import Resource
from booking_core.report._months import MonthRevenue

#: The bookings whose time counts as occupied.
OCCUPYING = frozenset(
    {BookingStatus.CONFIRMED, BookingStatus.PAID, BookingStatus.COMPLETED, BookingStatus.NO_SHOW}
)
#: The most days one report covers (both ends included).
MAX_REPORT_DAYS = 366

_CENT = Decimal("0.01")
#: (ISO weekday 1-7, local hour 0-23)
WeekdayHour = tuple[int, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceFigures:
    """What the storage sums for one resource over the bookings starting in a span.

    ``bookings`` and ``booked_seconds`` count the :data:`OCCUPYING` statuses; ``cancellations`` the
    cancelled and refunded bookings but lapsed holds; ``revenue_paid`` the amounts of the payments
    whose money was taken (refunded later or not), ``revenue_refunded`` what of it was given back.
    """

    resource_id: int
    bookings: int = 0
    cancellations: int = 0
    no_shows: int = 0
    booked_seconds: int = 0
    revenue_paid: Decimal = Decimal(0)
    revenue_refunded: Decimal = Decimal(0)


@dataclass(frozen=True, slots=True, kw_only=True)
class BookedBucket:
    """The occupying bookings' time inside ``[start, start + bucket)``, summed over resources."""

    start: dt.datetime
    seconds: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceReport:
    """One resource's line of the report."""

    resource: Resource
    open_minutes: int
    booked_minutes: int
    occupancy: Decimal
    bookings: int
    cancellations: int
    no_shows: int
    revenue_paid: Decimal
    revenue_refunded: Decimal


@dataclass(frozen=True, slots=True, kw_only=True)
class HourOccupancy:
    """Occupancy of one local weekday (1 = Monday) and hour over the report's dates."""

    weekday: int
    hour: int
    occupancy: Decimal


@dataclass(frozen=True, slots=True, kw_only=True)
class VenueReport:
    """The report of a venue over the local dates ``date_from`` to ``date_to`` (inclusive)."""

    venue_id: int
    date_from: dt.date
    date_to: dt.date
    currency: str
    resources: list[ResourceReport]
    by_hour: list[HourOccupancy]
    #: the money per calendar month of the dates, when asked for (the console's bars; not in 7.7)
    by_month: list[MonthRevenue] = field(default_factory=list)


def occupancy(booked_seconds: float, open_seconds: float) -> Decimal:
    """Booked over open time, rounded half-up to hundredths, from ``0.00`` to at most ``1.00``."""
    if open_seconds <= 0:
        return Decimal("0.00")
    share = Decimal(booked_seconds) / Decimal(open_seconds)
    return min(share, Decimal(1)).quantize(_CENT, rounding=ROUND_HALF_UP)


def resource_report(
    resource: Resource, figures: ResourceFigures, open_seconds: int, quantum: Decimal
) -> ResourceReport:
    """A resource's line from its sums and open time; money to ``quantum`` (the currency's decimals)."""
    return ResourceReport(
        resource=resource,
        open_minutes=open_seconds // 60,
        booked_minutes=figures.booked_seconds // 60,
        occupancy=occupancy(figures.booked_seconds, open_seconds),
        bookings=figures.bookings,
        cancellations=figures.cancellations,
        no_shows=figures.no_shows,
        revenue_paid=figures.revenue_paid.quantize(quantum, rounding=ROUND_HALF_UP),
        revenue_refunded=figures.revenue_refunded.quantize(quantum, rounding=ROUND_HALF_UP),
    )
