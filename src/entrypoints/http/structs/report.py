"""The venue report (CONTRACT 7.7): per resource and per local weekday and hour."""

from __future__ import annotations

from datetime import date

import msgspec

from booking_core.report import HourOccupancy, ResourceReport, VenueReport
from entrypoints.http.structs._format import amount_in


class ResourceLineOut(msgspec.Struct, kw_only=True):
    """One resource over the report's dates; occupancy "0.00" to "1.00", money in the venue's currency."""

    id: int
    name: str
    open_minutes: int
    booked_minutes: int
    occupancy: str
    bookings: int
    cancellations: int
    no_shows: int
    revenue_paid: str
    revenue_refunded: str

    @classmethod
    def of(cls, line: ResourceReport, currency: str) -> ResourceLineOut:
        """The representation of ``line``."""
        return cls(
            id=line.resource.id,
            name=line.resource.name,
            open_minutes=line.open_minutes,
            booked_minutes=line.booked_minutes,
            occupancy=str(line.occupancy),
            bookings=line.bookings,
            cancellations=line.cancellations,
            no_shows=line.no_shows,
            revenue_paid=amount_in(line.revenue_paid, currency),
            revenue_refunded=amount_in(line.revenue_refunded, currency),
        )


class HourOut(msgspec.Struct, kw_only=True):
    """Occupancy of one local weekday (1 = Monday) and hour (0-23) over the report's dates."""

    weekday: int
    hour: int
    occupancy: str

    @classmethod
    def of(cls, hour: HourOccupancy) -> HourOut:
        """The representation of ``hour``."""
        return cls(weekday=hour.weekday, hour=hour.hour, occupancy=str(hour.occupancy))


class ReportOut(msgspec.Struct, kw_only=True, rename={"date_from": "from", "date_to": "to"}):
    """The report of a venue over its local dates ``from`` to ``to`` (both included)."""

    date_from: date
    date_to: date
    currency: str
    resources: list[ResourceLineOut]
    by_hour: list[HourOut]

    @classmethod
    def of(cls, report: VenueReport) -> ReportOut:
        """The representation of ``report``."""
        return cls(
            date_from=report.date_from,
            date_to=report.date_to,
            currency=report.currency,
            resources=[ResourceLineOut.of(line, report.currency) for line in report.resources],
            by_hour=[HourOut.of(hour) for hour in report.by_hour],
        )
