"""The read port of the venue report: sums over a venue's bookings, computed by the storage."""

from __future__ import annotations

import builtins
from collections.abc import Collection
from typing import Protocol

from booking_core.report import BookedBucket, ResourceFigures
from booking_core.timerange import TimeRange


class VenueReports(Protocol):
    """Sums over the bookings of some resources that start in a span, each in one statement, so
    that a year's report costs the same few round trips as a day's."""

    def resource_figures(
        self, resource_ids: Collection[int], span: TimeRange
    ) -> builtins.dict[int, ResourceFigures]:
        """Per resource (those without any booking left out), the counts, booked time and money of
        its bookings starting in ``span`` (:class:`~booking_core.report.ResourceFigures`)."""

    def booked_buckets(
        self, resource_ids: Collection[int], span: TimeRange, *, bucket_minutes: int
    ) -> builtins.list[BookedBucket]:
        """The time of the occupying bookings (:data:`~booking_core.report.OCCUPYING`) starting in
        ``span``, summed over the resources per UTC bucket of ``bucket_minutes`` (a divisor of 60;
        buckets start at whole multiples of it since the epoch), by start; empty buckets left out."""
