"""The venue report (CONTRACT 7.7): how full a venue's resources were, by resource and by local
weekday and hour, and the money they took.

The storage sums the bookings (:class:`~booking_core.ports.VenueReports`): per resource, and the
booked time per UTC bucket. This module adds what only the domain knows: the open time, from the
schedule expansion day by day, and the venue's clock, which turns a UTC bucket into a local weekday
and hour (on a day that changes clocks, the repeated hour counts twice, on both sides, and the
skipped one not at all, for open and booked time alike). The money may also be had per calendar month.
"""

from booking_core.report._figures import (
    MAX_REPORT_DAYS,
    OCCUPYING,
    BookedBucket,
    HourOccupancy,
    ResourceFigures,
    ResourceReport,
    VenueReport,
    WeekdayHour,
    occupancy,
    resource_report,
)
from booking_core.report._hours import bucket_minutes, buckets_by_hour, by_hour, weekday_hour
from booking_core.report._months import MonthRevenue, months
from booking_core.report._open_time import open_ranges, open_time, seconds_by_hour

__all__ = [
    "MAX_REPORT_DAYS",
    "OCCUPYING",
    "BookedBucket",
    "HourOccupancy",
    "MonthRevenue",
    "ResourceFigures",
    "ResourceReport",
    "VenueReport",
    "WeekdayHour",
    "bucket_minutes",
    "buckets_by_hour",
    "by_hour",
    "months",
    "occupancy",
    "open_ranges",
    "open_time",
    "resource_report",
    "seconds_by_hour",
    "weekday_hour",
]
