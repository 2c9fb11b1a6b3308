"""Opening hours of a resource: schedules and their time slots (inside the resource detail)."""

from __future__ import annotations

from datetime import date, time

import msgspec

from booking_core.catalog import Schedule, TimeSlot
from entrypoints.http.structs._format import money


class TimeSlotOut(msgspec.Struct, kw_only=True):
    """A part of a schedule's day with one price."""

    id: int | None
    start_time: time
    end_time: time
    price_per_unit: str
    pricing_unit: str
    slot_duration_minutes: int
    capacity_override: int | None
    label: str
    is_bookable: bool

    @classmethod
    def of(cls, s: TimeSlot) -> TimeSlotOut:
        """The representation of ``s``."""
        return cls(
            id=s.id,
            start_time=s.start_time,
            end_time=s.end_time,
            price_per_unit=money(s.price_per_unit),
            pricing_unit=str(s.pricing_unit),
            slot_duration_minutes=s.slot_duration_minutes,
            capacity_override=s.capacity_override,
            label=s.label,
            is_bookable=s.is_bookable,
        )


class ScheduleOut(msgspec.Struct, kw_only=True):
    """Opening hours of a resource: weekly (``recurring``) or for one ``specific_date``."""

    id: int | None
    schedule_type: str
    day_of_week: int
    day_of_week_display: str
    specific_date: date | None
    start_date: date | None
    end_date: date | None
    priority: int
    is_active: bool
    time_slots: list[TimeSlotOut]

    @classmethod
    def of(cls, s: Schedule) -> ScheduleOut:
        """The representation of ``s``."""
        return cls(
            id=s.id,
            schedule_type=str(s.schedule_type),
            day_of_week=s.weekday,
            day_of_week_display=s.day_of_week_display,
            specific_date=s.specific_date,
            start_date=s.start_date,
            end_date=s.end_date,
            priority=s.priority,
            is_active=s.is_active,
            time_slots=[TimeSlotOut.of(t) for t in s.time_slots],
        )
