"""Resources as the browsing endpoints show them: a list item and a detail with schedules."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from booking_core.catalog import Resource, Venue
from booking_core.usecases.browse import ResourceDetail
from entrypoints.http.structs._format import money, money_or_none, utc
from entrypoints.http.structs.schedules import ScheduleOut


class ResourceItem(msgspec.Struct, kw_only=True):
    """One entry of ``GET /resources/``."""

    id: int
    name: str
    description: str
    venue: int
    venue_name: str
    venue_slug: str
    capacity: int
    base_price: str
    currency: str
    price_unit: str
    booking_interval_minutes: int
    min_booking_duration_minutes: int
    max_booking_duration_minutes: int | None
    prevent_unbookable_gaps: bool
    is_active: bool
    is_bookable: bool
    attributes: dict[str, Any]

    @classmethod
    def of(cls, r: Resource) -> ResourceItem:
        """The list item of ``r``."""
        return cls(
            id=r.id,
            name=r.name,
            description=r.description,
            venue=r.venue.id,
            venue_name=r.venue.name,
            venue_slug=r.venue.slug,
            capacity=r.capacity,
            base_price=money(r.base_price),
            currency=r.currency,
            price_unit=str(r.price_unit),
            booking_interval_minutes=r.booking_interval_minutes,
            min_booking_duration_minutes=r.min_booking_duration_minutes,
            max_booking_duration_minutes=r.max_booking_duration_minutes,
            prevent_unbookable_gaps=r.prevent_unbookable_gaps,
            is_active=r.is_active,
            is_bookable=r.is_bookable,
            attributes=dict(r.attributes),
        )


class VenueSummary(msgspec.Struct, kw_only=True):
    """The venue inside a resource detail."""

    id: int
    name: str
    slug: str
    address: str

    @classmethod
    def of(cls, v: Venue) -> VenueSummary:
        """The summary of ``v``."""
        return cls(id=v.id, name=v.name, slug=v.slug, address=v.address)


class ResourceDetailOut(msgspec.Struct, kw_only=True):
    """``GET /resources/{id}/``: the list item's fields with the venue as an object, and more."""

    id: int
    name: str
    description: str
    venue: VenueSummary
    activity_types: list[str]
    capacity: int
    base_price: str
    currency: str
    price_unit: str
    booking_interval_minutes: int
    min_booking_duration_minutes: int
    max_booking_duration_minutes: int | None
    prevent_unbookable_gaps: bool
    min_advance_booking_minutes: int
    max_advance_booking_days: int
    dynamic_pricing_enabled: bool
    min_price: str | None
    max_price: str | None
    current_demand_level: float
    is_active: bool
    is_bookable: bool
    attributes: dict[str, Any]
    availability_schedules: list[ScheduleOut]
    created_at: datetime | None
    updated_at: datetime | None

    @classmethod
    def of(cls, detail: ResourceDetail) -> ResourceDetailOut:
        """The detail of the resource in ``detail``."""
        r = detail.resource
        return cls(
            id=r.id,
            name=r.name,
            description=r.description,
            venue=VenueSummary.of(r.venue),
            activity_types=[a.name for a in r.activity_types],
            capacity=r.capacity,
            base_price=money(r.base_price),
            currency=r.currency,
            price_unit=str(r.price_unit),
            booking_interval_minutes=r.booking_interval_minutes,
            min_booking_duration_minutes=r.min_booking_duration_minutes,
            max_booking_duration_minutes=r.max_booking_duration_minutes,
            prevent_unbookable_gaps=r.prevent_unbookable_gaps,
            min_advance_booking_minutes=r.min_advance_booking_minutes,
            max_advance_booking_days=r.max_advance_booking_days,
            dynamic_pricing_enabled=r.dynamic_pricing.enabled,
            min_price=money_or_none(r.dynamic_pricing.min_price),
            max_price=money_or_none(r.dynamic_pricing.max_price),
            current_demand_level=float(detail.demand_level),
            is_active=r.is_active,
            is_bookable=r.is_bookable,
            attributes=dict(r.attributes),
            availability_schedules=[ScheduleOut.of(s) for s in r.schedules],
            created_at=utc(r.created_at),
            updated_at=utc(r.updated_at),
        )
