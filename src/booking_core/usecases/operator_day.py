"""The day sheet: a venue's day as the front desk sees it (CONTRACT 7.2).

Per active resource of the venue (retired ones, ``is_active`` false, are left out): the opening
windows of the local date, its bookings with their customers, its closed time, and the time still
free as the calculated availability offers it, but without the minimum lead time (staff may book
at short notice). Read with one query per kind for the whole venue, never one per resource.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from booking_core.availability import AvailableRange, availability_span, available_ranges, local_days
from booking_core.booking import Booking, BookingStatus
from booking_core.catalog import Resource, UnavailablePeriod, Venue
from booking_core.errors import NotFound
from booking_core.schedule import Window, expand_windows
from booking_core.staff import Action, Staff
from booking_core.timerange import TimeRange
from booking_core.usecases.deps import Deps
from booking_core.usecases.permissions import VENUE_NOT_FOUND, require
from booking_core.usecases.views import OpBookingView, op_booking_views

#: What the sheet shows (a pending booking only while its hold lasts: a lapsed one reads as cancelled).
SHOWN = frozenset(
    {
        BookingStatus.PENDING,
        BookingStatus.CONFIRMED,
        BookingStatus.PAID,
        BookingStatus.COMPLETED,
        BookingStatus.NO_SHOW,
    }
)
#: What ``include_cancelled`` adds.
CANCELLED = frozenset({BookingStatus.CANCELLED, BookingStatus.REFUNDED})


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceDay:
    """One resource's day: windows, bookings, closed time and free ranges, each by start."""

    resource: Resource
    windows: list[Window]
    bookings: list[OpBookingView]
    blocks: list[UnavailablePeriod]
    free: list[AvailableRange]


@dataclass(frozen=True, slots=True, kw_only=True)
class DaySheet:
    """A venue's local date, resource by resource (by name)."""

    venue: Venue
    date: date
    resources: list[ResourceDay]


def day_sheet(
    deps: Deps, staff: Staff | None, venue_id: int, day: date | None, include_cancelled: bool
) -> DaySheet:
    """The day sheet of ``venue_id`` on the local date ``day`` (None: today in the venue's timezone).

    Bookings are those overlapping the date in ``pending`` (hold live), ``confirmed``, ``paid``,
    ``completed`` and ``no_show``, with ``include_cancelled`` also ``cancelled`` and ``refunded``.
    """
    require(staff, Action.VIEW, venue_id)
    now = deps.clock.now()
    shown = SHOWN | CANCELLED if include_cancelled else SHOWN
    with deps.read() as uow:
        venue = uow.resources.get_venue(venue_id)
        if venue is None:
            raise NotFound(VENUE_NOT_FOUND)
        day = day or now.astimezone(venue.tz).date()
        resources = [r for r in uow.resources.for_venue(venue_id) if r.is_active]
        if not resources:
            return DaySheet(venue=venue, date=day, resources=[])
        whole = local_days(resources[0], day, day)
        # one read for all: the date's bookings, and those the free ranges are computed against
        # (which reach beyond the date as far as a booking or the gap rule can see)
        spans = [availability_span(r, day, day, now, lead_time=False) for r in resources]
        reach = TimeRange(min(s.start for s in [whole, *spans]), max(s.end for s in [whole, *spans]))
        found = uow.bookings.overlapping([r.id for r in resources], reach, statuses=shown)
        on_day = [b for b in found if b.span.overlaps(whole) and b.as_of(now).status in shown]
        views = op_booking_views(uow, on_day, now)
    return DaySheet(
        venue=venue,
        date=day,
        resources=[_resource_day(r, day, found, views, now) for r in resources],
    )


def _resource_day(
    resource: Resource, day: date, found: list[Booking], views: list[OpBookingView], now: datetime
) -> ResourceDay:
    whole = local_days(resource, day, day)
    blocking = [b.span for b in found if b.resource_id == resource.id and b.blocks_time(now)]
    free = available_ranges(
        resource, day, day, blocking=blocking, now=now, demand=Decimal(0), lead_time=False
    )
    return ResourceDay(
        resource=resource,
        windows=expand_windows(resource, day, day),
        bookings=[v for v in views if v.booking.resource_id == resource.id],
        blocks=sorted(
            (p for p in resource.unavailable_periods if p.range.overlaps(whole)), key=lambda p: p.start
        ),
        free=free,
    )
