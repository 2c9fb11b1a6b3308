"""Bookings as the API shows them: list item, detail, the short client answer, cancellation."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from booking_core.usecases.views import BookingView
from entrypoints.http.structs._format import amount_in, local, money, utc
from entrypoints.http.structs.payments import PaymentOut


class ResourceRef(msgspec.Struct, kw_only=True):
    """The resource inside a booking detail."""

    id: int
    name: str
    venue_name: str
    venue_slug: str


class ClientOut(msgspec.Struct, kw_only=True):
    """The client a booking was made through (booking detail only)."""

    id: int
    name: str
    external_user_id: str | None


def _common(view: BookingView) -> dict[str, Any]:
    b, r = view.booking, view.resource
    tz = r.tz
    return {
        "id": b.id,
        "reference_code": b.reference_code,
        "resource_name": r.name,
        "venue_name": r.venue.name,
        "venue_address": r.venue.address,
        "start_datetime": local(b.start, tz),
        "end_datetime": local(b.end, tz),
        "duration_minutes": b.duration_minutes,
        "participant_count": b.participant_count,
        "price_per_unit": money(b.price_per_unit),
        "pricing_unit": str(b.pricing_unit),
        "total_price": amount_in(b.total_price, b.currency),
        "currency": b.currency,
        "status": str(b.status),
        "can_cancel": view.can_cancel,
        "is_upcoming": view.is_upcoming,
        "notes": b.notes,
        "confirmed_at": local(b.confirmed_at, tz),
        "paid_at": local(b.paid_at, tz),
        "cancelled_at": local(b.cancelled_at, tz),
        "created_at": utc(b.created_at),
        "updated_at": utc(b.updated_at),
    }


class _BookingFields(msgspec.Struct, kw_only=True):
    id: str
    reference_code: str
    resource_name: str
    venue_name: str
    venue_address: str
    start_datetime: datetime
    end_datetime: datetime
    duration_minutes: int
    participant_count: int
    price_per_unit: str
    pricing_unit: str
    total_price: str
    currency: str
    status: str
    can_cancel: bool
    is_upcoming: bool
    notes: str
    confirmed_at: datetime | None
    paid_at: datetime | None
    cancelled_at: datetime | None
    created_at: datetime
    updated_at: datetime


class BookingItem(_BookingFields, kw_only=True):
    """A booking in a list (and the answer to a direct user's create): ``resource`` is the id."""

    resource: int

    @classmethod
    def of(cls, view: BookingView) -> BookingItem:
        """The list representation of ``view``."""
        return cls(resource=view.resource.id, **_common(view))


class BookingDetail(_BookingFields, kw_only=True):
    """``GET /bookings/{id}/``: ``resource`` is an object; payment and client are added."""

    resource: ResourceRef
    payment: PaymentOut | None
    client: ClientOut | None

    @classmethod
    def of(cls, view: BookingView) -> BookingDetail:
        """The detail representation of ``view``."""
        r = view.resource
        client = None
        if view.client is not None:
            client = ClientOut(
                id=view.client.id, name=view.client.name, external_user_id=view.external_user_id
            )
        return cls(
            resource=ResourceRef(id=r.id, name=r.name, venue_name=r.venue.name, venue_slug=r.venue.slug),
            payment=PaymentOut.of(view.payment) if view.payment is not None else None,
            client=client,
            **_common(view),
        )


class ClientBookingCreated(msgspec.Struct, kw_only=True):
    """The shorter answer to ``POST /bookings/`` made with a client token."""

    id: str
    reference_code: str
    status: str
    resource_id: int
    resource_name: str
    venue_name: str
    start_datetime: datetime
    end_datetime: datetime
    total_price: str
    currency: str
    participant_count: int
    created_at: datetime

    @classmethod
    def of(cls, view: BookingView) -> ClientBookingCreated:
        """The short representation of ``view``."""
        b, r = view.booking, view.resource
        return cls(
            id=b.id,
            reference_code=b.reference_code,
            status=str(b.status),
            resource_id=r.id,
            resource_name=r.name,
            venue_name=r.venue.name,
            start_datetime=local(b.start, r.tz),
            end_datetime=local(b.end, r.tz),
            total_price=amount_in(b.total_price, b.currency),
            currency=b.currency,
            participant_count=b.participant_count,
            created_at=utc(b.created_at),
        )


class CancelledOut(msgspec.Struct, kw_only=True):
    """The answer to a cancellation."""

    id: str
    reference_code: str
    status: str
    cancelled_at: datetime | None

    @classmethod
    def of(cls, view: BookingView) -> CancelledOut:
        """The representation of the cancelled booking in ``view``."""
        b = view.booking
        return cls(
            id=b.id,
            reference_code=b.reference_code,
            status=str(b.status),
            cancelled_at=local(b.cancelled_at, view.resource.tz),
        )
