"""The client API's venue mappings and the client's view of a venue with its resources."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from booking_core.accounts import ResourceMapping, VenueMapping
from booking_core.catalog import Resource, Venue
from booking_core.usecases.clients import VenueRegistration
from entrypoints.http.structs._format import money, utc
from entrypoints.http.structs.fields import ExternalId, Int64


class RegisterVenueIn(msgspec.Struct, kw_only=True):
    """Body of ``POST /client/venues/register/``."""

    external_id: ExternalId
    venue_id: Int64
    external_data: dict[str, Any] | None = None


class VenueRegistered(msgspec.Struct, kw_only=True):
    """Answer to a venue registration; a new mapping starts ``pending``."""

    external_id: str
    venue_id: int
    venue_name: str
    venue_slug: str
    venue_city: str
    approval_status: str
    created: bool

    @classmethod
    def of(cls, reg: VenueRegistration) -> VenueRegistered:
        """The representation of ``reg``."""
        return cls(
            external_id=reg.mapping.external_id,
            venue_id=reg.venue.id,
            venue_name=reg.venue.name,
            venue_slug=reg.venue.slug,
            venue_city=reg.venue.city,
            approval_status=str(reg.mapping.approval_status),
            created=reg.created,
        )


class VenueMappingOut(msgspec.Struct, kw_only=True):
    """A client's id for one of our venues, with the operator's approval."""

    id: str
    external_id: str
    venue_id: int
    venue_name: str
    venue_slug: str
    venue_city: str
    is_active: bool
    approval_status: str
    created_at: datetime

    @classmethod
    def of(cls, pair: tuple[VenueMapping, Venue]) -> VenueMappingOut:
        """The representation of a mapping and its venue."""
        m, v = pair
        return cls(
            id=m.id,
            external_id=m.external_id,
            venue_id=v.id,
            venue_name=v.name,
            venue_slug=v.slug,
            venue_city=v.city,
            is_active=m.is_active,
            approval_status=str(m.approval_status),
            created_at=utc(m.created_at),
        )


class VenueResourceOut(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A resource of a venue in the client view; ``external_id`` only when the client mapped it."""

    id: int
    name: str
    description: str
    external_id: str | None = None
    capacity: int
    base_price: str
    currency: str
    price_unit: str
    booking_interval_minutes: int
    min_booking_duration_minutes: int
    max_booking_duration_minutes: int | None
    is_active: bool
    is_bookable: bool

    @classmethod
    def of(cls, pair: tuple[Resource, ResourceMapping | None]) -> VenueResourceOut:
        """The representation of a resource and the client's mapping of it, if any."""
        r, m = pair
        return cls(
            id=r.id,
            name=r.name,
            description=r.description,
            external_id=m.external_id if m is not None else None,
            capacity=r.capacity,
            base_price=money(r.base_price),
            currency=r.currency,
            price_unit=str(r.price_unit),
            booking_interval_minutes=r.booking_interval_minutes,
            min_booking_duration_minutes=r.min_booking_duration_minutes,
            max_booking_duration_minutes=r.max_booking_duration_minutes,
            is_active=r.is_active,
            is_bookable=r.is_bookable,
        )


class VenueWithResources(msgspec.Struct, kw_only=True):
    """``GET /client/venues/resources/``: an approved venue and its resources."""

    id: int
    external_id: str
    name: str
    slug: str
    description: str
    short_description: str
    venue_type: str
    street_address: str
    city: str
    postal_code: str
    country: str
    latitude: str | None
    longitude: str | None
    timezone: str
    is_active: bool
    is_published: bool
    resources: list[VenueResourceOut]

    @classmethod
    def of(
        cls, found: tuple[VenueMapping, Venue, list[tuple[Resource, ResourceMapping | None]]]
    ) -> VenueWithResources:
        """The representation of the use case's answer."""
        m, v, resources = found
        return cls(
            id=v.id,
            external_id=m.external_id,
            name=v.name,
            slug=v.slug,
            description=v.description,
            short_description=v.short_description,
            venue_type=v.venue_type,
            street_address=v.street_address,
            city=v.city,
            postal_code=v.postal_code,
            country=v.country,
            latitude=None if v.latitude is None else str(v.latitude),
            longitude=None if v.longitude is None else str(v.longitude),
            timezone=v.timezone,
            is_active=v.is_active,
            is_published=v.is_published,
            resources=[VenueResourceOut.of(p) for p in resources],
        )
