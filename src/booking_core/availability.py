"""Availability: what is still free to book, and the raw material it is computed from.

Availability offers exactly what the booking rules accept (CONTRACT 4.1). The free ranges are the
time covered by the bookings the rules accept: the longest booking from every start they accept
(:func:`booking_core.bookable.longest_bookings`, the model the validator asks too), joined, cut to
the queried dates and split where the date, price, pricing unit or label changes. Free blocks are
taken whole, beyond the queried dates as far as a booking or the gap rule can see
(:func:`availability_span`), so a date's ranges do not depend on the query's other dates.

After sorting, linear in windows, blocking ranges and the aligned instants of free time.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal

from booking_core.bookable import BookingRules, longest_bookings
from booking_core.catalog import Resource, UnavailablePeriod
from booking_core.localtime import local_instant, next_aligned
from booking_core.pricing import dynamic_price, slot_prices
from booking_core.schedule import Window, blocked_time, expand_windows
from booking_core.timerange import TimeRange, intersect, merge, subtract

_DAY = dt.timedelta(days=1)
_MIDNIGHT = dt.time(0)
#: more than the longest real time between two aligned instants: an interval and any clock change
_CLOCK_CHANGE = dt.timedelta(hours=3)


@dataclass(frozen=True, slots=True, kw_only=True)
class AvailableRange:
    """A continuous free block on one local date with one price and label."""

    date: dt.date
    start_time: dt.time
    end_time: dt.time
    price_per_hour: Decimal
    currency: str
    label: str
    slot_prices: dict[str, Decimal] | None
    range: TimeRange


@dataclass(frozen=True, slots=True, kw_only=True)
class BookedSlot:
    """A booking's time as the raw availability shows it."""

    start: dt.datetime
    end: dt.datetime
    booking_id: str
    #: For an unpaid (pending) booking, the instant its hold lapses and the time is free again.
    hold_expires_at: dt.datetime | None = None

    @property
    def span(self) -> TimeRange:
        """The blocked instants."""
        return TimeRange(self.start, self.end)

    def blocks_at(self, now: dt.datetime) -> bool:
        """True while the slot holds its time: always, or until its hold lapses."""
        return self.hold_expires_at is None or now < self.hold_expires_at


@dataclass(frozen=True, slots=True, kw_only=True)
class RawAvailability:
    """Windows, bookings and closures of a date range, without subtracting anything."""

    windows: list[Window]
    booked_slots: list[BookedSlot]
    unavailable_periods: list[UnavailablePeriod]


def _split_by_window(
    windows: list[Window], blocks: Iterable[TimeRange]
) -> Iterator[tuple[Window, TimeRange]]:
    """Each block cut at window boundaries, paired with its window (both inputs sorted and disjoint)."""
    i = 0
    for block in blocks:
        while i < len(windows) and windows[i].range.end <= block.start:
            i += 1
        k = i
        while k < len(windows) and windows[k].range.start < block.end:
            part = windows[k].range.intersection(block)
            if part is not None:
                yield windows[k], part
            k += 1


def _traits(window: Window) -> tuple[object, ...]:
    return window.date, window.price_per_unit, window.pricing_unit, window.label


def _join_alike(pieces: Iterator[tuple[Window, TimeRange]]) -> Iterator[tuple[Window, TimeRange]]:
    """Touching pieces on one date with the same price, unit and label, joined."""
    current: tuple[Window, TimeRange] | None = None
    for window, part in pieces:
        if current is not None:
            first, joined = current
            if _traits(first) == _traits(window) and joined.end == part.start:
                current = (first, TimeRange(joined.start, part.end))
                continue
            yield current
        current = (window, part)
    if current is not None:
        yield current


def available_ranges(
    resource: Resource,
    start_date: dt.date,
    end_date: dt.date,
    *,
    blocking: Sequence[TimeRange],
    now: dt.datetime,
    demand: Decimal,
) -> list[AvailableRange]:
    """The free, bookable ranges of ``resource`` on the local dates ``start_date`` to ``end_date``.

    Every range can be booked from its start, unless it continues the range before it (split off at
    midnight or where the price, pricing unit or label changes); every start the booking rules
    accept at ``now`` lies in a range; every instant of a range lies in a booking they accept.

    Args:
        resource: The resource.
        start_date: First local date.
        end_date: Last local date, inclusive.
        blocking: Ranges of bookings that block time, at least those overlapping
            :func:`availability_span` (which reaches beyond the dates).
        now: The current instant.
        demand: The demand level for dynamic pricing (see :func:`booking_core.pricing.demand_level`).

    Returns:
        Ranges sorted by start.
    """
    ranges, _until = available_ranges_until(
        resource, start_date, end_date, blocking=blocking, now=now, demand=demand
    )
    return ranges


def available_ranges_until(
    resource: Resource,
    start_date: dt.date,
    end_date: dt.date,
    *,
    blocking: Sequence[TimeRange],
    now: dt.datetime,
    demand: Decimal,
) -> tuple[list[AvailableRange], dt.datetime | None]:
    """:func:`available_ranges`, and an instant before which time alone cannot change them.

    For every ``t`` from ``now`` up to (not including) the instant, ``available_ranges`` with
    ``now=t`` and the same ``blocking`` and ``demand`` gives the same list; None when no such
    instant is in sight. Time changes what the rules accept in two ways only: the lead-time cut
    passes the first start accepted, or the advance limit reaches a start beyond it. (Demand, which
    moves with time, is the caller's to hold fixed.)
    """
    if end_date < start_date:
        return [], None
    rules, now = BookingRules.of(resource), now.astimezone(dt.UTC)
    windows, free = _free_blocks(resource, availability_span(resource, start_date, end_date, now), blocking)
    bookings = [booking for block in free for booking in longest_bookings(rules, block, now)]
    offered = intersect(bookings, [_local_days(resource, start_date, end_date)])
    on_dates = [w for w in windows if start_date <= w.date <= end_date]
    return _ranges(resource, on_dates, offered, demand=demand), _unchanged_until(rules, free, bookings, now)


def availability_span(
    resource: Resource, start_date: dt.date, end_date: dt.date, now: dt.datetime
) -> TimeRange:
    """The time whose windows and blocking decide the free ranges of the local dates at ``now``.

    :func:`available_ranges` needs the blocking ranges that overlap it. It reaches back to the
    first start that could still book into the dates (the lead-time cut, or the longest booking
    before the first date, but not across a break in the windows) less a minimum booking, and
    ahead two minimum bookings and an interval past the last date. A free block cut off there
    leaves every verdict that matters to the dates as it is: the gap rule only tells a gap shorter
    than the minimum booking from a longer one.
    """
    rules = BookingRules.of(resource)
    days = _local_days(resource, start_date, max(start_date, end_date))
    first_start = rules.earliest(now)
    if rules.longest is not None:
        first_start = max(first_start, days.start - rules.longest)
    start = _unbroken_since(resource, days.start, first_start - rules.shortest)
    interval = dt.timedelta(minutes=min(rules.interval_minutes, 24 * 60))
    end = days.end + 2 * rules.shortest + interval + _CLOCK_CHANGE
    return TimeRange(start, max(start, end))


def _local_days(resource: Resource, start_date: dt.date, end_date: dt.date) -> TimeRange:
    """The instants of the local dates ``start_date`` to ``end_date``."""
    tz = resource.tz
    return TimeRange(local_instant(start_date, _MIDNIGHT, tz), local_instant(end_date + _DAY, _MIDNIGHT, tz))


def _unbroken_since(resource: Resource, instant: dt.datetime, floor: dt.datetime) -> dt.datetime:
    """The earliest instant, not before ``floor``, from which windows run without a break up to
    ``instant`` (``instant`` itself when no window reaches it from before)."""
    tz = resource.tz
    start, day = instant, instant.astimezone(tz).date()
    while start > floor:
        before = day - _DAY
        stretches = merge(w.range for w in expand_windows(resource, before, day))
        stretch = next((s for s in stretches if s.start < start <= s.end), None)
        if stretch is None:
            break
        start, day = stretch.start, before
        if start > local_instant(before, _MIDNIGHT, tz):
            break  # the stretch begins on the earlier day
    return max(start, floor)


def _free_blocks(
    resource: Resource, span: TimeRange, blocking: Sequence[TimeRange]
) -> tuple[list[Window], list[TimeRange]]:
    """The windows of the local dates ``span`` touches, and their time within ``span`` merged, minus
    blocking time and unavailable periods."""
    tz = resource.tz
    windows = expand_windows(resource, span.start.astimezone(tz).date(), span.end.astimezone(tz).date())
    opening = intersect((w.range for w in windows), [span])
    return windows, subtract(opening, blocked_time(resource, blocking, span))


def _unchanged_until(
    rules: BookingRules, free: list[TimeRange], bookings: list[TimeRange], now: dt.datetime
) -> dt.datetime | None:
    """When the lead-time cut reaches the first start accepted, or the advance limit the next start
    beyond it in a free block; whichever comes first (None: neither)."""
    moments = []
    if bookings:  # sorted by start
        moments.append(bookings[0].start - rules.lead)
    latest = rules.latest(now)
    if any(block.end > latest for block in free):
        beyond = next_aligned(latest + dt.timedelta(microseconds=1), rules.tz, rules.interval_minutes)
        moments.append(beyond - rules.ahead)
    return min(moments, default=None)


def _ranges(
    resource: Resource, windows: list[Window], offered: list[TimeRange], *, demand: Decimal
) -> list[AvailableRange]:
    tz, pricing = resource.tz, resource.dynamic_pricing
    return [
        AvailableRange(
            date=window.date,
            start_time=part.start.astimezone(tz).time(),
            end_time=part.end.astimezone(tz).time(),
            price_per_hour=dynamic_price(window.price_per_unit, demand, pricing),
            currency=resource.currency,
            label=window.label,
            slot_prices=slot_prices(resource, part, base=window.price_per_unit, demand=demand),
            range=part,
        )
        for window, part in _join_alike(_split_by_window(windows, offered))
    ]


def raw_availability(
    resource: Resource, start_date: dt.date, end_date: dt.date, *, booked: Sequence[BookedSlot]
) -> RawAvailability:
    """Windows of the local dates ``start_date`` to ``end_date`` with the bookings and closures in them.

    Args:
        resource: The resource.
        start_date: First local date.
        end_date: Last local date, inclusive.
        booked: Blocking bookings; only those overlapping the dates are kept.

    Returns:
        Windows, booked slots and unavailable periods, each sorted by start.
    """
    if end_date < start_date:
        return RawAvailability(windows=[], booked_slots=[], unavailable_periods=[])
    span = _local_days(resource, start_date, end_date)
    slots = [b for b in booked if b.start < span.end and span.start < b.end]
    periods = [p for p in resource.unavailable_periods if p.range.overlaps(span)]
    return RawAvailability(
        windows=expand_windows(resource, start_date, end_date),
        booked_slots=sorted(slots, key=lambda b: (b.start.astimezone(dt.UTC), b.booking_id)),
        unavailable_periods=sorted(periods, key=lambda p: p.range.start),
    )
