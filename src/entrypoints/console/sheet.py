"""The day sheet's grid: resources as columns, time as rows of five minutes.

Pure layout: where each opening window, booking and closed period of a :class:`DayView` sits
(CSS grid lines), which times label the rows, and where the line at "now" runs. Times are read on
the venue's wall clock; the grid spans the whole hours around the opening windows and bookings
(08:00 to 20:00 when there are none), and what reaches beyond it is cut at its edge.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from booking_core.timerange import TimeRange
from entrypoints.console.day import Closed, DayView, Opening, SheetBooking

T = TypeVar("T")

STEP = 5  #: minutes per grid row
LABEL_EVERY = 30  #: minutes between time labels
_DAY = 24 * 60
_DEFAULT = (8 * 60, 20 * 60)


@dataclass(frozen=True, slots=True)
class Placed(Generic[T]):
    """``item`` at grid column ``column`` from row line ``row_start`` to ``row_end`` (exclusive)."""

    item: T
    column: int
    row_start: int
    row_end: int
    start: dt.time
    end: dt.time


@dataclass(frozen=True, slots=True)
class Label:
    """A time written beside the rows it heads."""

    time: dt.time
    row_start: int
    row_end: int


@dataclass(frozen=True, slots=True)
class Now:
    """The line at the current time."""

    time: dt.time
    row: int


@dataclass(frozen=True, slots=True)
class Sheet:
    """Everything the template places, with the grid's size."""

    rows: int
    labels: list[Label]
    openings: list[Placed[Opening]]
    bookings: list[Placed[SheetBooking]]
    closed: list[Placed[Closed]]
    now: Now | None
    #: open time no booking or block takes, each a link to a new booking there
    free: list[Placed[TimeRange]] = field(default_factory=list)


def _minute(view: DayView, instant: dt.datetime) -> int:
    """Minutes from the local midnight that starts ``view.day`` to ``instant``, on the wall clock."""
    local = instant.astimezone(view.tz)
    return (local.date() - view.day).days * _DAY + local.hour * 60 + local.minute


def _clock(minute: int) -> dt.time:
    minute = max(0, min(minute, _DAY))
    return dt.time(0) if minute == _DAY else dt.time(minute // 60, minute % 60)


def _bounds(view: DayView) -> tuple[int, int]:
    ranges = [o.range for c in view.columns for o in c.openings] + [
        b.range for c in view.columns for b in c.bookings
    ]
    if not ranges:
        return _DEFAULT
    first = max(0, min(_minute(view, r.start) for r in ranges))
    last = min(_DAY, max(_minute(view, r.end) for r in ranges))
    return first // 60 * 60, min(_DAY, -(-last // 60) * 60)


@dataclass(frozen=True, slots=True)
class _Grid:
    view: DayView
    first: int
    last: int

    def line(self, minute: int) -> int:
        """The row line of ``minute`` (line 1 to 2 is the header row)."""
        return 2 + (max(self.first, min(minute, self.last)) - self.first) // STEP

    def place(self, item: T, column: int, span: TimeRange) -> Placed[T] | None:
        start, end = _minute(self.view, span.start), _minute(self.view, span.end)
        if end <= self.first or start >= self.last:
            return None
        top = self.line(start)
        return Placed(item, column, top, max(self.line(end), top + 1), _clock(start), _clock(end))


def layout(view: DayView, now: dt.datetime) -> Sheet:
    """Place ``view`` on the grid; ``now`` draws the line when it falls on the sheet."""
    first, last = _bounds(view)
    grid = _Grid(view, first, last)
    openings: list[Placed[Opening]] = []
    bookings: list[Placed[SheetBooking]] = []
    closed: list[Placed[Closed]] = []
    free: list[Placed[TimeRange]] = []
    for index, column in enumerate(view.columns, start=2):  # column 1 holds the times
        openings += [p for o in column.openings if (p := grid.place(o, index, o.range))]
        bookings += [q for b in column.bookings if (q := grid.place(b, index, b.range))]
        closed += [r for c in column.closed if (r := grid.place(c, index, c.range))]
        free += [f for span in column.free if (f := grid.place(span, index, span))]
    labels = [
        Label(_clock(m), grid.line(m), grid.line(min(m + LABEL_EVERY, last)))
        for m in range(first, last, LABEL_EVERY)
    ]
    moment = _minute(view, now)
    return Sheet(
        rows=(last - first) // STEP,
        labels=labels,
        openings=openings,
        bookings=bookings,
        closed=closed,
        now=Now(_clock(moment), grid.line(moment)) if first <= moment < last else None,
        free=free,
    )
