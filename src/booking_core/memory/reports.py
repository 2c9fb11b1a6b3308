"""The venue report's sums over the in-memory tables, as the databases compute them."""

from __future__ import annotations

import builtins
from collections.abc import Collection
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from booking_core.booking import Booking, BookingStatus, CancellationReason
from booking_core.payments import TAKEN_STATUSES, Payment
from booking_core.report import OCCUPYING, BookedBucket, ResourceFigures
from booking_core.timerange import TimeRange

_CANCELLED = frozenset({BookingStatus.CANCELLED, BookingStatus.REFUNDED})
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class InMemoryVenueReports:
    """:class:`~booking_core.ports.VenueReports` row by row (the fake; the databases sum)."""

    def __init__(self, bookings: dict[str, Booking], payments: dict[str, Payment]) -> None:
        self._bookings = bookings
        self._payments = payments

    def _starting_in(self, resource_ids: Collection[int], span: TimeRange) -> builtins.list[Booking]:
        ids = set(resource_ids)
        return [
            b for b in self._bookings.values() if b.resource_id in ids and span.start <= b.start < span.end
        ]

    def resource_figures(
        self, resource_ids: Collection[int], span: TimeRange
    ) -> builtins.dict[int, ResourceFigures]:
        found: dict[int, ResourceFigures] = {}
        bookings = self._starting_in(resource_ids, span)
        paid: dict[str, list[Payment]] = {}
        for payment in self._payments.values():
            paid.setdefault(payment.booking_id, []).append(payment)
        for booking in bookings:
            before = found.get(booking.resource_id) or ResourceFigures(resource_id=booking.resource_id)
            payments = paid.get(booking.id, [])
            occupying = booking.status in OCCUPYING
            found[booking.resource_id] = ResourceFigures(
                resource_id=booking.resource_id,
                bookings=before.bookings + occupying,
                cancellations=before.cancellations + _is_cancellation(booking),
                no_shows=before.no_shows + (booking.status is BookingStatus.NO_SHOW),
                booked_seconds=before.booked_seconds + (_seconds(booking) if occupying else 0),
                revenue_paid=before.revenue_paid
                + sum((p.amount for p in payments if p.status in TAKEN_STATUSES), Decimal(0)),
                revenue_refunded=before.revenue_refunded
                + sum((p.refunded_amount for p in payments), Decimal(0)),
            )
        return found

    def booked_buckets(
        self, resource_ids: Collection[int], span: TimeRange, *, bucket_minutes: int
    ) -> builtins.list[BookedBucket]:
        step = bucket_minutes * 60
        seconds: dict[int, int] = {}
        for booking in self._starting_in(resource_ids, span):
            if booking.status not in OCCUPYING:
                continue
            start, end = _epoch(booking.start), _epoch(booking.end)
            bucket = start - start % step
            while bucket < end:
                seconds[bucket] = seconds.get(bucket, 0) + min(end, bucket + step) - max(start, bucket)
                bucket += step
        return [
            BookedBucket(start=_EPOCH + timedelta(seconds=k), seconds=v)
            for k, v in sorted(seconds.items())
            if v
        ]


def _is_cancellation(booking: Booking) -> bool:
    return booking.status in _CANCELLED and booking.cancellation_reason is not CancellationReason.EXPIRED


def _epoch(instant: datetime) -> int:
    return int((instant - _EPOCH).total_seconds() // 1)


def _seconds(booking: Booking) -> int:
    return _epoch(booking.end) - _epoch(booking.start)
