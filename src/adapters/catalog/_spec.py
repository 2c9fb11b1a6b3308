"""A validated catalog file (CONTRACT section 3), before anything is written."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

from booking_core.accounts import Language
from booking_core.catalog import PriceUnit


class CatalogError(Exception):
    """A catalog that cannot be loaded; the message starts with the path of the first bad key."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TimeSlotSpec:
    start_time: time
    end_time: time  # 00:00:00 means midnight at the end of the day
    price_per_unit: Decimal
    label: str = ""
    pricing_unit: PriceUnit
    slot_duration_minutes: int
    capacity_override: int | None = None
    is_bookable: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class ScheduleSpec:
    day_of_week: int | None = None
    specific_date: date | None = None
    priority: int = 0
    start_date: date | None = None
    end_date: date | None = None
    is_active: bool = True
    time_slots: tuple[TimeSlotSpec, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class UnavailablePeriodSpec:
    start_datetime: datetime
    end_datetime: datetime
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DynamicPricingSpec:
    enabled: bool = False
    min_price: Decimal | None = None
    max_price: Decimal | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceSpec:
    name: str
    description: str = ""
    capacity: int
    base_price: Decimal
    currency: str
    price_unit: PriceUnit
    booking_interval_minutes: int
    min_booking_duration_minutes: int
    max_booking_duration_minutes: int | None = None
    prevent_unbookable_gaps: bool
    min_advance_booking_minutes: int = 0
    max_advance_booking_days: int = 90
    cancellation_deadline_hours: int = 0
    is_active: bool = True
    is_bookable: bool = True
    activity_types: tuple[str, ...] = ()
    attributes: dict[str, Any] = field(default_factory=dict)
    dynamic_pricing: DynamicPricingSpec = DynamicPricingSpec()
    schedules: tuple[ScheduleSpec, ...] = ()
    unavailable_periods: tuple[UnavailablePeriodSpec, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class VenueSpec:
    slug: str
    name: str
    description: str = ""
    short_description: str = ""
    venue_type: str
    street_address: str
    city: str
    postal_code: str
    country: str
    latitude: Decimal
    longitude: Decimal
    timezone: str
    operator_email: str
    provider_account_id: str | None = None
    is_active: bool = True
    is_published: bool = True
    resources: tuple[ResourceSpec, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class UserSpec:
    email: str  # normalized: trimmed, lower-case
    first_name: str
    last_name: str
    language: Language = Language.DE
    password: str | None = None
    token: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientSpec:
    name: str
    commission_percent: Decimal
    contact_email: str
    iban: str | None = None
    token: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogSpec:
    """The whole file, checked: every value has its domain type."""

    venues: tuple[VenueSpec, ...] = ()
    users: tuple[UserSpec, ...] = ()
    clients: tuple[ClientSpec, ...] = ()
