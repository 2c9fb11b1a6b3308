"""The booking rules, the gap rule among them, checked in a fixed order.

1. the end lies after the start;
2. the start is aligned to ``booking_interval_minutes`` on the venue's wall clock;
3. the start is in the future, at least ``min_advance_booking_minutes`` and at most
   ``max_advance_booking_days`` ahead;
4. the duration lies between the minimum and the maximum booking;
5. 1 to ``capacity`` participants (the ``capacity_override`` of the time slot where the booking starts);
6. the booking lies wholly inside bookable windows, touching windows counting as one block;
7. it overlaps no blocking booking and no unavailable period;
8. gap rule (when ``prevent_unbookable_gaps``): in the free block that holds the booking, the time left
   before and after it is either none or at least the minimum booking.

Whether the resource exists and is bookable at all is the use case's concern.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from booking_core.catalog import Resource
from booking_core.errors import SlotUnavailable, ValidationFailed
from booking_core.localtime import is_aligned
from booking_core.schedule import Window, blocked_time, expand_windows
from booking_core.timerange import TimeRange, merge, subtract

_MINUTE = dt.timedelta(minutes=1)


def booking_span(start: dt.datetime, end: dt.datetime) -> TimeRange:
    """The span of a requested booking, refusing what cannot form one.

    Raises:
        ValidationFailed: a datetime without offset, or an end that is not after the start.
    """
    if start.utcoffset() is None:
        raise ValidationFailed("Start time must include a timezone offset.", field="start_datetime")
    if end.utcoffset() is None:
        raise ValidationFailed("End time must include a timezone offset.", field="end_datetime")
    if end <= start:
        raise ValidationFailed("End time must be after start time.", field="end_datetime")
    return TimeRange(start, end)


def gap_violation(free_block: TimeRange, span: TimeRange, min_minutes: int) -> int | None:
    """The first gap (in whole minutes) the booking leaves in its free block that is too short to book.

    Args:
        free_block: The free time that contains ``span``.
        span: The booking.
        min_minutes: The minimum booking duration.

    Returns:
        None when the time before and after ``span`` is each either nothing or at least ``min_minutes``.
    """
    shortest = dt.timedelta(minutes=min_minutes)
    for gap in (span.start - free_block.start, free_block.end - span.end):
        if dt.timedelta(0) < gap < shortest:
            return max(1, gap // _MINUTE)
    return None


def _check_lead_time(resource: Resource, start: dt.datetime, now: dt.datetime) -> None:
    # Lead times count real minutes and 24-hour days from the instant, whatever timezone ``now`` is
    # written in (aware arithmetic in a local zone would add wall-clock time across a DST change).
    now = now.astimezone(dt.UTC)
    if start <= now:
        raise ValidationFailed("Start time must be in the future.", field="start_datetime")
    minutes, days = resource.min_advance_booking_minutes, resource.max_advance_booking_days
    if start < now + dt.timedelta(minutes=minutes):
        raise ValidationFailed(
            f"Bookings must be made at least {minutes} minutes in advance.", field="start_datetime"
        )
    if start > now + dt.timedelta(days=days):
        raise ValidationFailed(
            f"Bookings can be made at most {days} days in advance.", field="start_datetime"
        )


def _check_duration(resource: Resource, span: TimeRange) -> None:
    shortest, longest = resource.min_booking_duration_minutes, resource.max_booking_duration_minutes
    if span.duration < dt.timedelta(minutes=shortest):
        raise ValidationFailed(f"Booking must last at least {shortest} minutes.")
    if longest is not None and span.duration > dt.timedelta(minutes=longest):
        raise ValidationFailed(f"Booking may last at most {longest} minutes.")


def _check_participants(resource: Resource, windows: list[Window], start: dt.datetime, count: int) -> None:
    capacity = resource.capacity
    for window in windows:
        if window.range.start <= start < window.range.end and window.slot.capacity_override is not None:
            capacity = window.slot.capacity_override
    if count < 1:
        raise ValidationFailed("At least one participant is required.", field="participant_count")
    if count > capacity:
        raise ValidationFailed(f"At most {capacity} participants are allowed.", field="participant_count")


def _windows_around(resource: Resource, span: TimeRange) -> list[Window]:
    """Windows of the local dates around the booking: wide enough that a free block cut off at the
    edge still leaves at least the minimum booking, so the gap rule never sees a false gap there."""
    tz = resource.tz
    pad = dt.timedelta(days=1 + resource.min_booking_duration_minutes // (24 * 60))
    return expand_windows(
        resource, span.start.astimezone(tz).date() - pad, span.end.astimezone(tz).date() + pad
    )


def validate_booking(
    resource: Resource,
    span: TimeRange,
    *,
    participant_count: int,
    blocking: Sequence[TimeRange],
    now: dt.datetime,
) -> None:
    """Check a requested booking against the resource's rules, in the order of this module's docstring.

    It is :func:`validate_request` followed by :func:`validate_against_bookings`.

    Args:
        resource: The resource to book.
        span: The requested time (see :func:`booking_span`).
        participant_count: Number of participants.
        blocking: Ranges of other bookings that block time.
        now: The current instant.

    Raises:
        ValidationFailed: A rule is broken; ``field`` names the request field, or is None.
        SlotUnavailable: The time is outside bookable windows or already blocked.
    """
    opening = validate_request(resource, span, participant_count=participant_count, now=now)
    validate_against_bookings(resource, span, opening, blocking)


def validate_request(
    resource: Resource, span: TimeRange, *, participant_count: int, now: dt.datetime
) -> TimeRange:
    """Rules 1 to 6, which need no other booking; returns the block of bookable windows holding ``span``.

    Raises as :func:`validate_booking`.
    """
    if span.is_empty:
        raise ValidationFailed("End time must be after start time.", field="end_datetime")
    interval = resource.booking_interval_minutes
    if not is_aligned(span.start, resource.tz, interval):
        raise ValidationFailed(f"Start time must align to the booking interval of {interval} minutes.")
    _check_lead_time(resource, span.start, now)
    _check_duration(resource, span)
    windows = _windows_around(resource, span)
    _check_participants(resource, windows, span.start, participant_count)

    opening = next((block for block in merge(w.range for w in windows) if block.contains(span)), None)
    if opening is None:
        raise SlotUnavailable("The requested time lies outside the bookable hours.")
    return opening


def validate_against_bookings(
    resource: Resource, span: TimeRange, opening: TimeRange, blocking: Sequence[TimeRange]
) -> None:
    """Rules 7 and 8 for a ``span`` that passed :func:`validate_request`, which gave ``opening``.

    Raises as :func:`validate_booking`.
    """
    blocked = [r for r in blocked_time(resource, blocking, opening) if not r.is_empty]
    if any(r.overlaps(span) for r in blocked):
        raise SlotUnavailable()

    if resource.prevent_unbookable_gaps:
        shortest = resource.min_booking_duration_minutes
        for free in subtract([opening], blocked):
            gap = gap_violation(free, span, shortest) if free.contains(span) else None
            if gap is not None:
                raise ValidationFailed(
                    f"This booking would leave a {gap}-minute gap; the minimum booking is {shortest} minutes."
                )
