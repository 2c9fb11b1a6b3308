"""What venues publish: venues, resources, their schedules, time slots and closures."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time
from decimal import Decimal
from functools import cached_property
from typing import Any
from zoneinfo import ZoneInfo

from booking_core.timerange import TimeRange

DAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


class PriceUnit(enum.StrEnum):
    """How a time slot's ``price_per_unit`` is charged."""

    HOUR = "hour"
    BOOKING = "booking"
    PERSON_HOUR = "person_hour"


class ScheduleType(enum.StrEnum):
    """A weekly rule, or an override for one date."""

    RECURRING = "recurring"
    SPECIFIC_DATE = "specific_date"


@dataclass(frozen=True, slots=True, kw_only=True)
class TimeSlot:
    """A part of a day with one price. ``end_time`` of 00:00 means the end of the day.

    ``pricing_unit`` and ``slot_duration_minutes`` left as None take the resource's ``price_unit``
    and ``booking_interval_minutes``: a :class:`Resource` fills them in, as the catalog file does.
    """

    id: int | None = None
    start_time: time
    end_time: time
    price_per_unit: Decimal
    pricing_unit: PriceUnit | None = None
    slot_duration_minutes: int | None = None
    capacity_override: int | None = None
    label: str = ""
    is_bookable: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class Schedule:
    """Opening hours: either every ``day_of_week`` (1 = Monday) or one ``specific_date``."""

    id: int | None = None
    day_of_week: int | None = None
    specific_date: date | None = None
    start_date: date | None = None
    end_date: date | None = None
    priority: int = 0
    is_active: bool = True
    time_slots: tuple[TimeSlot, ...] = ()

    @property
    def schedule_type(self) -> ScheduleType:
        """``specific_date`` when the schedule overrides one date, else ``recurring``."""
        return ScheduleType.SPECIFIC_DATE if self.specific_date else ScheduleType.RECURRING

    @property
    def weekday(self) -> int:
        """ISO weekday (1 = Monday) this schedule applies to."""
        if self.specific_date is not None:
            return self.specific_date.isoweekday()
        return self.day_of_week or 1

    @property
    def day_of_week_display(self) -> str:
        """English name of the weekday."""
        return DAY_NAMES[self.weekday - 1]

    def applies_to(self, day: date) -> bool:
        """True when this schedule is active and covers the local date ``day``."""
        if not self.is_active:
            return False
        if self.specific_date is not None:
            return self.specific_date == day
        if self.day_of_week != day.isoweekday():
            return False
        if self.start_date is not None and day < self.start_date:
            return False
        return self.end_date is None or day <= self.end_date


class BlockReason(enum.StrEnum):
    """Why time is closed (CONTRACT 7.3)."""

    MAINTENANCE = "maintenance"
    HOLIDAY = "holiday"
    EVENT = "event"
    WEATHER = "weather"
    OTHER = "other"


class BlockSource(enum.StrEnum):
    """Where closed time comes from: the catalog file (changed by editing it) or a member of staff."""

    CATALOG = "catalog"
    STAFF = "staff"


@dataclass(frozen=True, slots=True, kw_only=True)
class UnavailablePeriod:
    """Closed time of one resource (a block): maintenance, a holiday, an event, ...

    Its ``id`` is the block's id once stored. A catalog file's period has ``source`` ``catalog``
    and is replaced by the next load; one a member of staff closed (``created_by``) is ``staff``
    and stays until deleted. Either way it blocks the resource: availability subtracts it and no
    booking may overlap it.
    """

    id: int | None = None
    resource_id: int | None = None
    start: datetime
    end: datetime
    reason: BlockReason = BlockReason.MAINTENANCE
    note: str = ""
    source: BlockSource = BlockSource.CATALOG
    created_by: str | None = None
    created_at: datetime | None = None

    def __post_init__(self) -> None:
        # a plain string of the enum's values (older callers) becomes the enum
        object.__setattr__(self, "reason", BlockReason(self.reason))
        object.__setattr__(self, "source", BlockSource(self.source))

    @property
    def range(self) -> TimeRange:
        """The blocked instants."""
        return TimeRange(self.start, self.end)


@dataclass(frozen=True, slots=True, kw_only=True)
class DynamicPricing:
    """Demand-based pricing bounds. When disabled, time-slot prices apply as they are."""

    enabled: bool = False
    min_price: Decimal | None = None
    max_price: Decimal | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ActivityType:
    """A sport or use a resource serves, e.g. tennis."""

    id: int
    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Venue:
    """A place that publishes resources. ``timezone`` is an IANA name."""

    id: int
    slug: str
    name: str
    description: str = ""
    short_description: str = ""
    venue_type: str = ""
    street_address: str = ""
    city: str = ""
    postal_code: str = ""
    country: str = ""
    latitude: Decimal | None = None
    longitude: Decimal | None = None
    timezone: str = "UTC"
    operator_email: str = ""
    provider_account_id: str | None = None
    is_active: bool = True
    is_published: bool = True

    @property
    def tz(self) -> ZoneInfo:
        """The venue's timezone."""
        return ZoneInfo(self.timezone)

    @property
    def address(self) -> str:
        """One-line postal address."""
        parts = [self.street_address, " ".join(p for p in (self.postal_code, self.city) if p)]
        return ", ".join(p for p in parts if p)


@dataclass(frozen=True, kw_only=True)
class Resource:
    """A bookable thing (court, pitch, room) with its rules, schedules and closures."""

    id: int
    venue: Venue
    name: str
    description: str = ""
    capacity: int = 1
    base_price: Decimal = Decimal("0.00")
    currency: str = "EUR"
    price_unit: PriceUnit = PriceUnit.HOUR
    booking_interval_minutes: int = 30
    min_booking_duration_minutes: int = 60
    max_booking_duration_minutes: int | None = None
    prevent_unbookable_gaps: bool = False
    min_advance_booking_minutes: int = 0
    max_advance_booking_days: int = 90
    cancellation_deadline_hours: int = 0
    is_active: bool = True
    is_bookable: bool = True
    activity_types: tuple[ActivityType, ...] = ()
    attributes: Mapping[str, Any] = field(default_factory=dict)
    dynamic_pricing: DynamicPricing = DynamicPricing()
    schedules: tuple[Schedule, ...] = ()
    unavailable_periods: tuple[UnavailablePeriod, ...] = ()
    created_at: datetime | None = None
    updated_at: datetime | None = None

    def __post_init__(self) -> None:
        if any(_lacks_defaults(t) for s in self.schedules for t in s.time_slots):
            object.__setattr__(self, "schedules", tuple(self._with_defaults(s) for s in self.schedules))

    def _with_defaults(self, schedule: Schedule) -> Schedule:
        slots = tuple(
            replace(
                t,
                pricing_unit=t.pricing_unit or self.price_unit,
                slot_duration_minutes=t.slot_duration_minutes or self.booking_interval_minutes,
            )
            for t in schedule.time_slots
        )
        return replace(schedule, time_slots=slots)

    @cached_property
    def tz(self) -> ZoneInfo:
        """The venue's timezone, where schedules and alignment are read."""
        return self.venue.tz

    @property
    def is_available(self) -> bool:
        """True when the resource can be browsed and booked."""
        return self.is_active and self.is_bookable and self.venue.is_active


def _lacks_defaults(slot: TimeSlot) -> bool:
    return slot.pricing_unit is None or slot.slot_duration_minutes is None
