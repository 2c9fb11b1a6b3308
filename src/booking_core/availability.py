"""Availability: what is still free to book, and the raw material it is computed from.

``available_ranges`` subtracts blocking time from all windows in one sweep
(:func:`booking_core.timerange.subtract`) and maps the free blocks back to their windows in a second
sweep, so it is linear in windows plus blocking ranges after sorting.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal

from booking_core.catalog import Resource, UnavailablePeriod
from booking_core.localtime import local_instant, next_aligned
from booking_core.pricing import dynamic_price, slot_prices
from booking_core.schedule import Window, blocked_time, expand_windows
from booking_core.timerange import TimeRange, subtract


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


def _bookable_blocks(resource: Resource, free: list[TimeRange], now: dt.datetime) -> Iterator[TimeRange]:
    """Free blocks within the lead-time limits that are long enough to hold a booking.

    A block reaching back before ``now + min_advance_booking_minutes`` is cut there and then starts at
    the next aligned start, where a booking could actually begin. The length test applies to the
    whole block, before it is split by price: a short piece next to a price change can still be booked
    together with its neighbour.
    """
    tz, interval = resource.tz, resource.booking_interval_minutes
    now = now.astimezone(dt.UTC)  # real minutes, as in rules.py
    cut = now + dt.timedelta(minutes=resource.min_advance_booking_minutes)
    first_start = next_aligned(cut, tz, interval)
    latest = _latest_start(resource, now)
    shortest = dt.timedelta(minutes=resource.min_booking_duration_minutes)
    for block in free:
        start = first_start if block.start < cut else block.start
        end = min(block.end, latest)
        if end > start and end - start >= shortest:
            yield TimeRange(start, end)


def _split_by_window(
    windows: list[Window], blocks: Iterator[TimeRange]
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
    return window.date, window.price_per_unit, window.slot.pricing_unit, window.label


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

    Windows minus ``blocking`` and the resource's unavailable periods; split at local dates and where
    the price, pricing unit or label changes; limited to ``now + min_advance_booking_minutes`` (then
    moved up to the next aligned start) up to ``now + max_advance_booking_days`` (to the minute); free
    blocks shorter than the minimum booking left out.

    Args:
        resource: The resource.
        start_date: First local date.
        end_date: Last local date, inclusive.
        blocking: Ranges of bookings that block time.
        now: The current instant.
        demand: The demand level for dynamic pricing (see :func:`booking_core.pricing.demand_level`).

    Returns:
        Ranges sorted by start.
    """
    windows, free = _free_blocks(resource, start_date, end_date, blocking)
    return _ranges(resource, windows, free, now=now, demand=demand)


def available_ranges_until(
    resource: Resource,
    start_date: dt.date,
    end_date: dt.date,
    *,
    blocking: Sequence[TimeRange],
    now: dt.datetime,
    demand: Decimal,
) -> tuple[list[AvailableRange], dt.datetime]:
    """:func:`available_ranges`, and an instant before which time alone cannot change them.

    For every ``t`` from ``now`` up to (not including) the instant, ``available_ranges`` with
    ``now=t`` and the same ``blocking`` and ``demand`` gives the same list. The instant is when the
    lead-time cut first reaches the next aligned start or a free block's start, or, if a free block
    reaches past the advance limit, when that limit moves on by a minute. (Demand, which moves with
    time, is the caller's to hold fixed.)
    """
    windows, free = _free_blocks(resource, start_date, end_date, blocking)
    ranges = _ranges(resource, windows, free, now=now, demand=demand)
    now = now.astimezone(dt.UTC)
    lead = dt.timedelta(minutes=resource.min_advance_booking_minutes)
    cut = now + lead
    moves = [next_aligned(cut, resource.tz, resource.booking_interval_minutes)]
    moves += [block.start for block in free if block.start > cut]
    until = min(moves) - lead
    latest = _latest_start(resource, now)
    if any(block.end > latest for block in free):
        ahead = dt.timedelta(days=resource.max_advance_booking_days)
        until = min(until, latest + dt.timedelta(minutes=1) - ahead)
    return ranges, until


def _latest_start(resource: Resource, now: dt.datetime) -> dt.datetime:
    # 24-hour days from the instant, whatever timezone ``now`` is written in (see rules.py)
    latest = now.astimezone(dt.UTC) + dt.timedelta(days=resource.max_advance_booking_days)
    return latest.replace(second=0, microsecond=0)


def _free_blocks(
    resource: Resource, start_date: dt.date, end_date: dt.date, blocking: Sequence[TimeRange]
) -> tuple[list[Window], list[TimeRange]]:
    windows = expand_windows(resource, start_date, end_date)
    if not windows:
        return [], []
    span = TimeRange(windows[0].range.start, windows[-1].range.end)
    return windows, subtract((w.range for w in windows), blocked_time(resource, blocking, span))


def _ranges(
    resource: Resource, windows: list[Window], free: list[TimeRange], *, now: dt.datetime, demand: Decimal
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
        for window, part in _join_alike(_split_by_window(windows, _bookable_blocks(resource, free, now)))
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
    tz = resource.tz
    midnight = dt.time(0)
    span = TimeRange(
        local_instant(start_date, midnight, tz), local_instant(end_date + dt.timedelta(days=1), midnight, tz)
    )
    slots = [b for b in booked if b.start < span.end and span.start < b.end]
    periods = [p for p in resource.unavailable_periods if p.range.overlaps(span)]
    return RawAvailability(
        windows=expand_windows(resource, start_date, end_date),
        booked_slots=sorted(slots, key=lambda b: (b.start.astimezone(dt.UTC), b.booking_id)),
        unavailable_periods=sorted(periods, key=lambda p: p.range.start),
    )
