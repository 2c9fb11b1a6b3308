"""The free ranges: the time of the bookings the rules accept, cut to the dates, split by price,
each part offered from the first start the rules accept in it.

The bookings the rules accept are the longest from every start they accept
(:func:`booking_core.bookable.longest_bookings`, the model the validator asks too). Their time is
joined, cut to the queried dates and split where the date, price, pricing unit or label changes;
each part then begins at the first of those starts inside it, or is left out when it holds none
(a booking can run on into time where none may start). After sorting, linear in windows, blocking
ranges and the aligned instants of free time.
"""

from __future__ import annotations

import datetime as dt
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal

from booking_core.availability._reach import availability_span, local_days
from booking_core.bookable import BookingRules, longest_bookings
from booking_core.catalog import Resource
from booking_core.localtime import next_aligned
from booking_core.pricing import dynamic_price, slot_prices
from booking_core.schedule import Window, blocked_time, expand_windows
from booking_core.timerange import TimeRange, intersect, subtract


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
    lead_time: bool = True,
) -> list[AvailableRange]:
    """The free, bookable ranges of ``resource`` on the local dates ``start_date`` to ``end_date``.

    Every range starts at a start the booking rules accept at ``now``, so it can be booked from its
    start; every start they accept lies in a range; every instant of a range lies in a booking they
    accept. Not every instant of such a booking lies in a range: one can run on past midnight or a
    change of price or label into time where no booking may start, and no range starts there.

    Args:
        resource: The resource.
        start_date: First local date.
        end_date: Last local date, inclusive.
        blocking: Ranges of bookings that block time, at least those overlapping
            :func:`availability_span` (which reaches beyond the dates).
        now: The current instant.
        demand: The demand level for dynamic pricing (see :func:`booking_core.pricing.demand_level`).
        lead_time: False to offer starts from ``now`` on, ignoring ``min_advance_booking_minutes``
            (what staff, who may book at short notice, see on the day sheet).

    Returns:
        Ranges sorted by start.
    """
    ranges, _until = available_ranges_until(
        resource, start_date, end_date, blocking=blocking, now=now, demand=demand, lead_time=lead_time
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
    lead_time: bool = True,
) -> tuple[list[AvailableRange], dt.datetime | None]:
    """:func:`available_ranges`, and an instant before which time alone cannot change them.

    For every ``t`` from ``now`` up to (not including) the instant, ``available_ranges`` with
    ``now=t`` and the same ``blocking`` and ``demand`` gives the same list; None when no such
    instant is in sight. The ranges follow from the bookings the rules accept (their time and
    their starts), and time changes those in two ways only: the lead-time cut passes the first
    start accepted, or the advance limit reaches a start beyond it. (Demand, which moves with time,
    is the caller's to hold fixed.)
    """
    if end_date < start_date:
        return [], None
    rules, now = BookingRules.of(resource, lead_time=lead_time), now.astimezone(dt.UTC)
    span = availability_span(resource, start_date, end_date, now, lead_time=lead_time)
    windows, free = _free_blocks(resource, span, blocking)
    bookings = [booking for block in free for booking in longest_bookings(rules, block, now)]
    offered = intersect(bookings, [local_days(resource, start_date, end_date)])
    on_dates = [w for w in windows if start_date <= w.date <= end_date]
    pieces = _join_alike(_split_by_window(on_dates, offered))
    starts = [booking.start for booking in bookings]  # sorted, as the free blocks are
    ranges = _ranges(resource, _from_first_start(pieces, starts), demand=demand)
    return ranges, _unchanged_until(rules, free, bookings, now)


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


def _from_first_start(
    pieces: Iterable[tuple[Window, TimeRange]], starts: Sequence[dt.datetime]
) -> Iterator[tuple[Window, TimeRange]]:
    """Each piece from the first of the sorted ``starts`` inside it to its end; one without any is
    left out."""
    for window, part in pieces:
        i = bisect_left(starts, part.start)
        if i < len(starts) and starts[i] < part.end:
            yield window, TimeRange(starts[i], part.end)


def _ranges(
    resource: Resource, pieces: Iterable[tuple[Window, TimeRange]], *, demand: Decimal
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
        for window, part in pieces
    ]
