"""Availability offers exactly what the booking rules accept (CONTRACT 4.1), against the validator.

Each scenario opens a resource on three local dates around a day that changes clocks (or an ordinary
day) in a zone with a 30-minute shift (Australia/Lord_Howe), Europe/Berlin or America/New_York, and
keeps it closed on all other dates, so that every booking the rules could accept lies within those
three dates. Windows, bookings and unavailable periods fall on any 5-minute mark, aligned or not.

The oracle asks the validator about every aligned start and end, minute by minute on the wall clock,
and is slow; the checks that need it run fewer examples than the profile's (``HYPOTHESIS_PROFILE=
thorough`` raises all). The module uses only the public API that older versions had too, so that it
can be run against them.
"""

from __future__ import annotations

import datetime as dt
from bisect import bisect_right
from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property
from typing import Any
from zoneinfo import ZoneInfo

from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from booking_core import (
    AvailableRange,
    PriceUnit,
    Resource,
    Schedule,
    TimeRange,
    TimeSlot,
    UnavailablePeriod,
    ValidationFailed,
    Venue,
    available_ranges,
    merge,
    validate_booking,
)
from booking_core.localtime import is_aligned

#: The days that change clocks in 2026, and an ordinary day, per zone.
DAYS = {
    "Australia/Lord_Howe": [dt.date(2026, 4, 5), dt.date(2026, 10, 4), dt.date(2026, 6, 10)],
    "Europe/Berlin": [dt.date(2026, 3, 29), dt.date(2026, 10, 25), dt.date(2026, 6, 10)],
    "America/New_York": [dt.date(2026, 3, 8), dt.date(2026, 11, 1), dt.date(2026, 6, 10)],
}
ONE_DAY = dt.timedelta(days=1)
MINUTE = dt.timedelta(minutes=1)
ZERO = Decimal(0)
#: fewer examples for the checks that ask the validator about every booking of three days, more
#: for the one that only compares queries
ORACLE = settings(max_examples=max(10, settings.default.max_examples // 4))
QUERIES = settings(max_examples=3 * settings.default.max_examples)


@dataclass(frozen=True)
class Scenario:
    """A resource open on the three local dates around ``day``, its bookings and "now"."""

    resource: Resource
    day: dt.date
    blocking: tuple[TimeRange, ...]
    now: dt.datetime

    @property
    def tz(self) -> ZoneInfo:
        return self.resource.venue.tz

    @property
    def dates(self) -> tuple[dt.date, dt.date, dt.date]:
        return self.day - ONE_DAY, self.day, self.day + ONE_DAY

    def offered(self, first: dt.date, last: dt.date) -> list[AvailableRange]:
        return available_ranges(
            self.resource, first, last, blocking=list(self.blocking), now=self.now, demand=ZERO
        )

    def refusal(self, start: dt.datetime, end: dt.datetime) -> ValidationFailed | None:
        try:
            validate_booking(
                self.resource,
                TimeRange(start, end),
                participant_count=1,
                blocking=list(self.blocking),
                now=self.now,
            )
        except ValidationFailed as refused:
            return refused
        return None

    @cached_property
    def aligned(self) -> list[dt.datetime]:
        """Every aligned instant of the three dates and the midnight after them, minute by minute."""
        first = dt.datetime.combine(self.day - ONE_DAY, dt.time(0), self.tz).astimezone(dt.UTC)
        last = dt.datetime.combine(self.day + 2 * ONE_DAY, dt.time(0), self.tz).astimezone(dt.UTC)
        interval = self.resource.booking_interval_minutes
        minutes = (last - first) // MINUTE
        return [t for k in range(minutes + 1) if is_aligned(t := first + k * MINUTE, self.tz, interval)]

    def longest_accepted(self, start: dt.datetime) -> dt.datetime | None:
        """The latest end the validator accepts for a booking from ``start``, if any."""
        found = None
        for end in self.aligned[bisect_right(self.aligned, start) :]:
            refused = self.refusal(start, end)
            if refused is None:
                found = end
            elif refused.field == "start_datetime" or _grows_worse(refused):
                break  # a later end is refused the same way
        return found

    @cached_property
    def accepted(self) -> list[TimeRange]:
        """The longest accepted booking from every accepted start."""
        longest = ((start, self.longest_accepted(start)) for start in self.aligned)
        return [TimeRange(start, end) for start, end in longest if end is not None]


def _grows_worse(refused: ValidationFailed) -> bool:
    # Outside the windows, overlapping, or too long: a longer booking from the same start is too.
    message = refused.message
    return "not available" in message or "outside the bookable" in message or "at most" in message


def _minute(day: dt.date, minutes: int, tz: ZoneInfo) -> dt.datetime:
    """``minutes`` real minutes after the local midnight of ``day`` (on 5-minute marks of the wall
    clock when ``minutes`` is a multiple of 5: every clock change here moves it by 30 or 60)."""
    return dt.datetime.combine(day, dt.time(0), tz).astimezone(dt.UTC) + minutes * MINUTE


@st.composite
def time_slots(draw: st.DrawFn) -> tuple[TimeSlot, ...]:
    """Up to three time slots on 5-minute marks, touching or apart, the last maybe up to midnight."""
    count = draw(st.sampled_from([1, 2, 2, 3, 3, 0]))
    # midnight often, so that windows run across it from one date into the next
    mark = st.one_of(st.sampled_from([0, 288]), st.integers(0, 288))
    marks = sorted(draw(st.lists(mark, min_size=2 * count, max_size=2 * count)))
    slots = []
    for start, end in zip(marks[::2], marks[1::2], strict=True):
        if start >= end:
            continue
        fields: dict[str, Any] = {}
        unit = draw(st.sampled_from([None, *PriceUnit]))
        if unit is not None:  # else the resource's
            fields["pricing_unit"] = unit
        slots.append(
            TimeSlot(
                start_time=dt.time((start * 5) // 60, (start * 5) % 60),
                end_time=dt.time(0) if end == 288 else dt.time((end * 5) // 60, (end * 5) % 60),
                price_per_unit=draw(st.sampled_from([Decimal("20.00"), Decimal("30.00")])),
                label=draw(st.sampled_from(["", "Peak"])),
                is_bookable=draw(st.sampled_from([True, True, True, False])),
                **fields,
            )
        )
    return tuple(slots)


@st.composite
def spans(draw: st.DrawFn, day: dt.date, tz: ZoneInfo, interval: int) -> TimeRange:
    """A range on 5-minute marks of the wall clock within the three dates around ``day``, often on
    quarter hours or on the booking interval, where bookings start and end."""
    step = draw(st.sampled_from([5, 15, interval]))
    start = draw(st.integers(0, 3 * 24 * 60 // step - 1)) * step
    length = draw(st.integers(1, 240 // step)) * step
    return TimeRange(_minute(day - ONE_DAY, start, tz), _minute(day - ONE_DAY, start + length, tz))


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    """A resource with random rules, open on three dates around a clock change, and "now" near them."""
    zone = draw(st.sampled_from(sorted(DAYS)))
    day = draw(st.sampled_from(DAYS[zone]))
    tz = ZoneInfo(zone)
    interval = draw(st.sampled_from([15, 30, 45, 50, 60, 90]))
    shortest = draw(st.sampled_from([15, 30, 45, 60, 90, 120, 180]))
    longest = draw(st.one_of(st.none(), st.integers(0, 8).map(lambda k: shortest + 15 * k)))
    closures = draw(st.lists(spans(day, tz, interval), max_size=2))
    venue = Venue(id=1, slug="club", name="Club", timezone=zone)
    resource = Resource(
        id=1,
        venue=venue,
        name="Court",
        capacity=4,
        price_unit=draw(st.sampled_from(list(PriceUnit))),
        booking_interval_minutes=interval,
        min_booking_duration_minutes=shortest,
        max_booking_duration_minutes=longest,
        prevent_unbookable_gaps=draw(st.booleans()),
        min_advance_booking_minutes=draw(st.sampled_from([0, 0, 15, 60, 150])),
        max_advance_booking_days=draw(st.sampled_from([1, 2, 3, 90, 90, 0])),
        schedules=tuple(
            Schedule(specific_date=date, time_slots=draw(time_slots()))
            for date in (day - ONE_DAY, day, day + ONE_DAY)
        ),
        unavailable_periods=tuple(UnavailablePeriod(start=c.start, end=c.end) for c in closures),
    )
    # "now" on a 5-minute mark, mostly on the day before the three dates, else within them, and now
    # and then a little past the mark
    marks = st.one_of(st.integers(0, 288), st.integers(0, 288), st.integers(288, 4 * 288))
    now = _minute(day - 2 * ONE_DAY, draw(marks) * 5, tz)
    now += dt.timedelta(seconds=draw(st.sampled_from([0, 0, 0, 20])))
    blocking = tuple(draw(st.lists(spans(day, tz, interval), max_size=5)))
    return Scenario(resource=resource, day=day, blocking=blocking, now=now)


def _example(slots: dict[int, tuple[TimeSlot, ...]], taken: tuple[int, int], **rules: Any) -> Scenario:
    """A court in Berlin open on the three dates around an ordinary Wednesday, on the day before
    (-1), the day (0) and the day after (1) in ``slots``; booked from and to the minutes ``taken``
    after the day's midnight; "now" on the Monday before."""
    day, zone = DAYS["Europe/Berlin"][2], "Europe/Berlin"
    tz = ZoneInfo(zone)
    resource = Resource(
        id=1,
        venue=Venue(id=1, slug="club", name="Club", timezone=zone),
        name="Court",
        capacity=4,
        booking_interval_minutes=30,
        schedules=tuple(
            Schedule(specific_date=day + k * ONE_DAY, time_slots=slots.get(k, ())) for k in (-1, 0, 1)
        ),
        **rules,
    )
    booked = TimeRange(_minute(day, taken[0], tz), _minute(day, taken[1], tz))
    return Scenario(resource=resource, day=day, blocking=(booked,), now=_minute(day, -2 * 24 * 60, tz))


def _slot(start: int, end: int, price: str = "20.00", label: str = "") -> TimeSlot:
    return TimeSlot(
        start_time=dt.time(start), end_time=dt.time(end), price_per_unit=Decimal(price), label=label
    )


#: Gap rule, 60-minute minimum; 08:00-17:00 at 20.00 and 17:00-22:00 Peak; booked until 16:30. A
#: booking from 17:00 would leave 30 minutes: the Peak range starts at 17:30.
PEAK = _example(
    {0: (_slot(8, 17), _slot(17, 22, "30.00", "Peak"))},
    (8 * 60, 16 * 60 + 30),
    min_booking_duration_minutes=60,
    prevent_unbookable_gaps=True,
)
#: A 120-minute minimum and the free block Tuesday 23:00 to Wednesday 01:00: only 23:00 is a start.
MIDNIGHT = _example(
    {-1: (_slot(20, 0),), 0: (_slot(0, 1),)}, (-4 * 60, -60), min_booking_duration_minutes=120
)


@ORACLE
@given(scenarios())
@example(PEAK)
@example(MIDNIGHT)
def test_every_offered_range_starts_at_a_start_the_rules_accept(case: Scenario) -> None:
    ranges = case.offered(*case.dates[::2])

    # every range, also one that continues the range before it (split off at midnight or where the
    # price, pricing unit or label changes): an outside checker books from each range's start
    for offered in ranges:
        assert case.longest_accepted(offered.range.start) is not None, offered


@ORACLE
@given(scenarios())
@example(PEAK)
@example(MIDNIGHT)
def test_every_start_the_rules_accept_lies_in_an_offered_range(case: Scenario) -> None:
    ranges = case.offered(*case.dates[::2])

    event("bookings accepted", "some" if case.accepted else "none")
    for booking in case.accepted:
        assert any(r.range.start <= booking.start < r.range.end for r in ranges), booking
    # What is offered lies within the time of the bookings accepted, but need not fill it: a booking
    # can run on past midnight or a change of price or label into time where no booking may start
    # (in PEAK, 16:30-17:30 is accepted, but a booking from 17:00 would leave a 30-minute gap). That
    # time is booked from the range before it; offered as a range of its own, it would be a range
    # whose start the rules refuse.
    accepted_time = merge(case.accepted)
    assert merge([*accepted_time, *(r.range for r in ranges)]) == accepted_time


@QUERIES
@given(scenarios())
def test_a_dates_ranges_do_not_depend_on_the_other_dates_of_the_query(case: Scenario) -> None:
    before, day, after = case.dates
    everything = case.offered(before, after)

    for first, last in [(before, before), (day, day), (after, after), (before, day), (day, after)]:
        alone = case.offered(first, last)
        assert alone == [r for r in everything if first <= r.date <= last], (first, last)


@given(case=scenarios(), steps=st.integers(1, 12), data=st.data())
def test_ends_align_in_the_rules_and_in_what_is_offered(
    case: Scenario, steps: int, data: st.DataObject
) -> None:
    interval = case.resource.booking_interval_minutes
    ranges = case.offered(*case.dates[::2])
    # A range ends where a booking can end, or where it is split off (midnight, a change of price
    # or label) from time a booking accepted runs on into.
    for here in ranges:
        end = here.range.end
        if not is_aligned(end, case.tz, interval):
            event("a range ends off the interval")
            assert any(booking.start < end < booking.end for booking in case.accepted), here

    start = data.draw(st.sampled_from(case.aligned[:-1]))
    end = start + (steps * interval + data.draw(st.integers(1, interval - 1))) * MINUTE
    if not is_aligned(end, case.tz, interval):
        refused = case.refusal(start, end)
        assert refused is not None
        assert refused.errors == {
            "non_field_errors": [f"End time must align to the {interval}-minute booking interval."]
        }
