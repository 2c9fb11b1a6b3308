"""What can be booked: a resource's booking rules as one model, asked by the validator and by availability.

:class:`BookingRules` puts each rule as a question about a booking, answered with the refusal it
stands for or None. :mod:`booking_core.rules` raises the first refusal a request meets;
:func:`longest_bookings` tries every start and end in a free block and keeps what no rule refuses:
availability offers the time of those bookings from their starts. Neither decides anything by
itself, so what is offered is exactly what is accepted (CONTRACT 4.1).
"""

from __future__ import annotations

import datetime as dt
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from booking_core.catalog import Resource
from booking_core.errors import ValidationFailed
from booking_core.localtime import aligned_instants, is_aligned
from booking_core.timerange import TimeRange

_MINUTE = dt.timedelta(minutes=1)
_NONE = dt.timedelta(0)


def _in_utc(now: dt.datetime) -> dt.datetime:
    # Lead times are real minutes and 24-hour days from the instant, whatever timezone ``now`` is
    # written in (aware arithmetic in a local zone would add wall-clock time across a clock change).
    return now if now.tzinfo is dt.UTC else now.astimezone(dt.UTC)


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
        if _too_short(gap, shortest):
            return max(1, gap // _MINUTE)
    return None


def _too_short(gap: dt.timedelta, shortest: dt.timedelta) -> bool:
    # free time left beside a booking that no booking could fill; none left is fine
    return _NONE < gap < shortest


@dataclass(frozen=True, slots=True, kw_only=True)
class BookingRules:
    """The rules every booking of one resource must pass, but for participants and overlaps.

    Durations and lead times are real time (a booking across a clock change lasts what the clocks
    say it lasts in UTC); alignment is read on the venue's wall clock.
    """

    tz: ZoneInfo
    interval_minutes: int
    shortest: dt.timedelta
    longest: dt.timedelta | None
    gap_rule: bool
    lead: dt.timedelta
    ahead: dt.timedelta

    @classmethod
    def of(cls, resource: Resource, *, lead_time: bool = True) -> BookingRules:
        """The rules of ``resource``; with ``lead_time`` False without its minimum lead time (any
        start after now: what staff may book)."""
        longest = resource.max_booking_duration_minutes
        return cls(
            tz=resource.tz,
            interval_minutes=resource.booking_interval_minutes,
            shortest=dt.timedelta(minutes=resource.min_booking_duration_minutes),
            longest=None if longest is None else dt.timedelta(minutes=longest),
            gap_rule=resource.prevent_unbookable_gaps,
            lead=dt.timedelta(minutes=resource.min_advance_booking_minutes if lead_time else 0),
            ahead=dt.timedelta(days=resource.max_advance_booking_days),
        )

    def earliest(self, now: dt.datetime) -> dt.datetime:
        """No start before this instant is accepted at ``now`` (nor ``now`` itself)."""
        return _in_utc(now) + self.lead

    def latest(self, now: dt.datetime) -> dt.datetime:
        """No start after this instant is accepted at ``now``."""
        return _in_utc(now) + self.ahead

    def alignment_refusal(self, span: TimeRange) -> ValidationFailed | None:
        """Start and end each at a whole minute of the wall clock divisible by the interval."""
        interval = self.interval_minutes
        if not is_aligned(span.start, self.tz, interval):
            return ValidationFailed(f"Start time must align to the booking interval of {interval} minutes.")
        if not is_aligned(span.end, self.tz, interval):
            return ValidationFailed(f"End time must align to the {interval}-minute booking interval.")
        return None

    def lead_refusal(self, start: dt.datetime, now: dt.datetime) -> ValidationFailed | None:
        """A start after ``now``, at least the lead time and at most the advance limit ahead of it."""
        now = _in_utc(now)
        if start <= now:
            return ValidationFailed("Start time must be in the future.", field="start_datetime")
        if start < now + self.lead:
            minutes = self.lead // _MINUTE
            return ValidationFailed(
                f"Bookings must be made at least {minutes} minutes in advance.", field="start_datetime"
            )
        if start > now + self.ahead:
            return ValidationFailed(
                f"Bookings can be made at most {self.ahead.days} days in advance.", field="start_datetime"
            )
        return None

    def duration_refusal(self, span: TimeRange) -> ValidationFailed | None:
        """A duration from the minimum to the maximum booking."""
        if span.duration < self.shortest:
            return ValidationFailed(f"Booking must last at least {self.shortest // _MINUTE} minutes.")
        if self.longest is not None and span.duration > self.longest:
            return ValidationFailed(f"Booking may last at most {self.longest // _MINUTE} minutes.")
        return None

    def leaves_short_gap(self, gap: dt.timedelta) -> bool:
        """True when the gap rule is on and ``gap`` of free time is left but too short to book."""
        return self.gap_rule and _too_short(gap, self.shortest)

    def gap_refusal(self, free_block: TimeRange, span: TimeRange) -> ValidationFailed | None:
        """The gap rule: before and after the booking, its free block keeps nothing or a bookable gap.

        ``free_block`` is measured whole: windows merged, blocking time subtracted, no lead-time cut.
        """
        shortest = self.shortest // _MINUTE
        gap = gap_violation(free_block, span, shortest) if self.gap_rule else None
        if gap is None:
            return None
        return ValidationFailed(
            f"This booking would leave a {gap}-minute gap; the minimum booking is {shortest} minutes."
        )


def longest_bookings(rules: BookingRules, block: TimeRange, now: dt.datetime) -> Iterator[TimeRange]:
    """For every start the rules accept in the free ``block`` at ``now``, the longest booking from it.

    ``block`` must be a whole free block (windows merged, blocking time subtracted), as the gap rule
    measures it; a booking inside it overlaps nothing and lies in bookable windows. Starts and ends
    are tried among the block's aligned instants, the only ones alignment lets through, and each
    booking tried is asked every other refusal of ``rules``. Where a loop stops early, every
    candidate after it would be refused for the same reason.

    Yields:
        Bookings sorted by start.
    """
    points = aligned_instants(block.start, block.end, rules.tz, rules.interval_minutes)
    now = _in_utc(now)
    latest = rules.latest(now)
    # the last point can only be an end; starts before the lead-time cut are refused by lead_refusal
    for i in range(bisect_left(points, rules.earliest(now)), len(points) - 1):
        start = points[i]
        if start > latest:
            break  # so is every later start
        if rules.lead_refusal(start, now) is not None or rules.leaves_short_gap(start - block.start):
            continue
        end = _longest_end(rules, block, points, i)
        if end is not None:
            yield TimeRange(start, end)


def _longest_end(
    rules: BookingRules, block: TimeRange, points: Sequence[dt.datetime], i: int
) -> dt.datetime | None:
    """The latest of ``points`` after ``points[i]`` that ends a booking the rules accept, if any."""
    start = points[i]
    stop = len(points) if rules.longest is None else bisect_right(points, start + rules.longest)
    for j in range(stop - 1, i, -1):
        span = TimeRange(start, points[j])
        if span.duration < rules.shortest:
            return None  # every earlier end is shorter still
        if rules.duration_refusal(span) is None and rules.gap_refusal(block, span) is None:
            return points[j]
    return None
