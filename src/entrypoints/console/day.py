"""What the day sheet shows of one venue on one local date: per resource its opening windows, its
bookings with their customers, and its closed time (blocks).

Read through the day-sheet use case of the operator API (``booking_core.usecases.operator_day``), with its
permission check (another venue reads as not found) and its choice of bookings; here it is only put
into the shapes the page draws.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from zoneinfo import ZoneInfo

from booking_core.catalog import Venue
from booking_core.staff import Staff
from booking_core.timerange import TimeRange, subtract
from booking_core.usecases.deps import Deps
from booking_core.usecases.operator_day import ResourceDay, day_sheet


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

    @property
    def free(self) -> list[TimeRange]:
        """Open time that no live booking and no block takes: where a new booking may start."""
        taken = [b.range for b in self.bookings if b.status not in _GONE] + [c.range for c in self.closed]
        return subtract([o.range for o in self.openings], taken)


_GONE = frozenset({"cancelled", "refunded"})


@dataclass(frozen=True, slots=True, kw_only=True)
class DayView:
    """A venue's resources on one local date."""

    venue: Venue
    day: dt.date
    columns: list[Column]
    #: cancelled and refunded bookings are shown too
    include_cancelled: bool = False

    @property
    def tz(self) -> ZoneInfo:
        """The venue's timezone: the sheet's clock."""
        return self.venue.tz


def today_at(deps: Deps, venue: Venue) -> dt.date:
    """Today's date where the venue is."""
    return deps.clock.now().astimezone(venue.tz).date()


def _column(found: ResourceDay) -> Column:
    resource = found.resource
    return Column(
        resource_id=resource.id,
        name=resource.name,
        openings=[
            Opening(range=w.range, label=w.label, price_per_unit=w.price_per_unit, currency=resource.currency)
            for w in found.windows
        ],
        bookings=[
            SheetBooking(
                id=op.booking.id,
                reference_code=op.booking.reference_code,
                range=op.booking.span,
                customer=op.customer.full_name,
                status=op.booking.status.value,
            )
            for op in found.bookings
        ],
        closed=[Closed(range=b.range, reason=b.reason.value, note=b.note) for b in found.blocks],
    )


def day_columns(
    deps: Deps, staff: Staff, venue_id: int, day: dt.date | None, *, include_cancelled: bool = False
) -> DayView:
    """The sheet of ``venue_id`` on the local date ``day`` (None: today there), resources by name."""
    sheet = day_sheet(deps, staff, venue_id, day, include_cancelled)
    return DayView(
        venue=sheet.venue,
        day=sheet.date,
        columns=[_column(r) for r in sheet.resources],
        include_cancelled=include_cancelled,
    )
