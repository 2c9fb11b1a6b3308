"""Half-open time ranges and the set operations availability is built from.

All functions accept ranges in any order and return sorted, disjoint ranges.
They are linear after an ``O(n log n)`` sort.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from operator import attrgetter


@dataclass(frozen=True, slots=True, order=True)
class TimeRange:
    """The instants ``start <= t < end``. Both ends are timezone-aware and stored in UTC."""

    start: datetime
    end: datetime

    def __post_init__(self) -> None:
        # Datetimes sharing one tzinfo compare and subtract by wall clock (PEP 495), which is wrong
        # across a DST change (01:00-04:00 Europe/Berlin on 2026-03-29 would last 3 h); UTC is exact.
        # (Ranges are made in hot loops, mostly of instants in UTC already: those pass at once.)
        if self.start.tzinfo is not UTC:
            object.__setattr__(self, "start", _in_utc(self.start))
        if self.end.tzinfo is not UTC:
            object.__setattr__(self, "end", _in_utc(self.end))
        if self.end < self.start:
            raise ValueError("TimeRange end lies before its start")

    @property
    def duration(self) -> timedelta:
        """Length of the range."""
        return self.end - self.start

    @property
    def minutes(self) -> int:
        """Length of the range in whole minutes."""
        return int(self.duration.total_seconds() // 60)

    @property
    def is_empty(self) -> bool:
        """True when the range holds no instant."""
        return self.end <= self.start

    def overlaps(self, other: TimeRange) -> bool:
        """True when the two ranges share at least one instant."""
        return self.start < other.end and other.start < self.end and not (self.is_empty or other.is_empty)

    def contains(self, other: TimeRange) -> bool:
        """True when ``other`` lies wholly inside this range."""
        return self.start <= other.start and other.end <= self.end

    def intersection(self, other: TimeRange) -> TimeRange | None:
        """The shared part of both ranges, or None when they do not overlap."""
        start, end = max(self.start, other.start), min(self.end, other.end)
        return TimeRange(start, end) if start < end else None


#: the order of ranges (as ``order=True`` compares them), as a key that sorts without calling Python
_BY_START = attrgetter("start", "end")


def _in_utc(instant: datetime) -> datetime:
    if instant.utcoffset() is None:
        raise ValueError("TimeRange needs timezone-aware datetimes")
    return instant.astimezone(UTC)


def merge(ranges: Iterable[TimeRange]) -> list[TimeRange]:
    """Union of ``ranges``: overlapping and touching ranges become one; empty ones vanish."""
    merged: list[TimeRange] = []
    block: TimeRange | None = None
    end = datetime.min  # of ``block``, which grows until a range begins after it
    for current in sorted((r for r in ranges if r.start < r.end), key=_BY_START):
        if block is not None and current.start <= end:
            end = max(end, current.end)
            continue
        if block is not None:
            merged.append(block if block.end == end else TimeRange(block.start, end))
        block, end = current, current.end
    if block is not None:
        merged.append(block if block.end == end else TimeRange(block.start, end))
    return merged


def subtract(ranges: Iterable[TimeRange], removed: Iterable[TimeRange]) -> list[TimeRange]:
    """``ranges`` minus every instant of ``removed``, as sorted disjoint ranges.

    ``ranges`` are merged first, so touching inputs come back as one block.
    Runs in one sweep over both sorted lists.
    """
    base = merge(ranges)
    cuts = merge(removed)
    result: list[TimeRange] = []
    j = 0
    for block in base:
        start = block.start
        while j < len(cuts) and cuts[j].end <= start:
            j += 1
        k = j
        while k < len(cuts) and cuts[k].start < block.end:
            if cuts[k].start > start:
                result.append(TimeRange(start, cuts[k].start))
            start = max(start, cuts[k].end)
            k += 1
        if start < block.end:
            result.append(TimeRange(start, block.end))
        # a cut may reach into the next block, so resume from the last one that touched this block
        j = max(j, k - 1)
    return result


def intersect(ranges: Iterable[TimeRange], others: Iterable[TimeRange]) -> list[TimeRange]:
    """Instants that lie in both ``ranges`` and ``others``."""
    left, right = merge(ranges), merge(others)
    result: list[TimeRange] = []
    i = j = 0
    while i < len(left) and j < len(right):
        part = left[i].intersection(right[j])
        if part is not None:
            result.append(part)
        if left[i].end <= right[j].end:
            i += 1
        else:
            j += 1
    return result
