"""What the day sheet shows of one venue on one local date: per resource its opening windows, its
bookings and its closed time.

Read through the operator use cases with the same permission check as ``GET /operator/venues/{id}/day/``
(``require(staff, VIEW, venue)``: another venue reads as not found). Until the day-sheet use case of the
operator API (``booking_core.usecases.operator_day.day_sheet``) is merged, the columns carry the opening
windows and the catalog's closures only, and no bookings; :func:`day_columns` is the one place that
changes then.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from zoneinfo import ZoneInfo

from booking_core.catalog import Venue
from booking_core.errors import NotFound
from booking_core.localtime import local_instant
from booking_core.schedule import expand_windows
from booking_core.staff import Action, Staff
from booking_core.timerange import TimeRange
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_venues import StaffVenue, staff_venues
from booking_core.usecases.permissions import VENUE_NOT_FOUND, require


@dataclass(frozen=True, slots=True, kw_only=True)
class Opening:
    """A window the resource is open: the label and price of its time slot."""

    range: TimeRange
    label: str
    price_per_unit: Decimal
    currency: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SheetBooking:
    """A booking as the sheet shows it."""

    id: str
    reference_code: str
    range: TimeRange
    customer: str
    status: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Closed:
    """Closed time (a block): why, and a note."""

    range: TimeRange
    reason: str
    note: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Column:
    """One resource of the sheet."""

    resource_id: int
    name: str
    openings: list[Opening] = field(default_factory=list)
    bookings: list[SheetBooking] = field(default_factory=list)
    closed: list[Closed] = field(default_factory=list)


@dataclass(frozen=True, slots=True, kw_only=True)
class DayView:
    """A venue's resources on one local date."""

    venue: Venue
    day: dt.date
    columns: list[Column]
    #: bookings are shown (the day-sheet use case is there)
    with_bookings: bool

    @property
    def tz(self) -> ZoneInfo:
        """The venue's timezone: the sheet's clock."""
        return self.venue.tz


def staff_venue(deps: Deps, staff: Staff, venue_id: int) -> StaffVenue:
    """The venue ``venue_id`` if ``staff`` may see its day (else NotFound, or PermissionDenied)."""
    require(staff, Action.VIEW, venue_id)
    for found in staff_venues(deps, staff):
        if found.venue.id == venue_id:
            return found
    raise NotFound(VENUE_NOT_FOUND)


def today_at(deps: Deps, venue: Venue) -> dt.date:
    """Today's date where the venue is."""
    return deps.clock.now().astimezone(venue.tz).date()


def day_columns(deps: Deps, staff: Staff, venue_id: int, day: dt.date) -> DayView:
    """The sheet of ``venue_id`` on the local date ``day``: its active resources, by name."""
    found = staff_venue(deps, staff, venue_id)
    venue = found.venue
    span = TimeRange(
        local_instant(day, dt.time(0), venue.tz),
        local_instant(day + dt.timedelta(days=1), dt.time(0), venue.tz),
    )
    columns = []
    for resource in sorted((r for r in found.resources if r.is_active), key=lambda r: (r.name, r.id)):
        openings = [
            Opening(range=w.range, label=w.label, price_per_unit=w.price_per_unit, currency=resource.currency)
            for w in expand_windows(resource, day, day)
        ]
        closed = [
            Closed(range=p.range, reason=p.reason)
            for p in resource.unavailable_periods
            if p.range.start < span.end and span.start < p.range.end
        ]
        columns.append(Column(resource_id=resource.id, name=resource.name, openings=openings, closed=closed))
    return DayView(venue=venue, day=day, columns=columns, with_bookings=False)
