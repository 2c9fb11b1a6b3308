"""The operator API's bodies (CONTRACT 7): staff, venues and bookings as staff see them."""

from __future__ import annotations

from datetime import datetime

import msgspec

from booking_core.catalog import Resource, Venue
from booking_core.staff import Staff, StaffRole
from booking_core.usecases.views import OpBookingView
from entrypoints.http.structs._format import local
from entrypoints.http.structs.bookings import BookingDetail


class RoleOut(msgspec.Struct, kw_only=True):
    """One role: ``venue_id`` and ``venue_slug`` are null for ``admin``."""

    role: str
    venue_id: int | None
    venue_slug: str | None


class MeOut(msgspec.Struct, kw_only=True):
    """``GET /operator/me/``: the member of staff and their roles."""

    user_id: str
    email: str
    language: str
    roles: list[RoleOut]

    @classmethod
    def of(cls, staff: Staff, slugs: dict[int, str]) -> MeOut:
        """``staff`` with the slugs of its venues."""
        return cls(
            user_id=staff.user_id,
            email=staff.user.email,
            language=staff.user.language.value,
            roles=[role_out(r, slugs) for r in staff.roles],
        )


def role_out(role: StaffRole, slugs: dict[int, str]) -> RoleOut:
    """``role`` as shown, with its venue's slug."""
    slug = slugs.get(role.venue_id) if role.venue_id is not None else None
    return RoleOut(role=role.role.value, venue_id=role.venue_id, venue_slug=slug)


class StaffResourceOut(msgspec.Struct, kw_only=True):
    """A resource in the operator's venue list."""

    id: int
    name: str
    is_active: bool
    is_bookable: bool


class OperatorVenueOut(msgspec.Struct, kw_only=True):
    """``GET /operator/venues/``: a venue the member of staff works at, with their role there."""

    id: int
    slug: str
    name: str
    timezone: str
    role: str
    resources: list[StaffResourceOut]

    @classmethod
    def of(cls, venue: Venue, role: str, resources: list[Resource]) -> OperatorVenueOut:
        """``venue`` with ``resources`` (by name)."""
        return cls(
            id=venue.id,
            slug=venue.slug,
            name=venue.name,
            timezone=venue.timezone,
            role=role,
            resources=[
                StaffResourceOut(id=r.id, name=r.name, is_active=r.is_active, is_bookable=r.is_bookable)
                for r in sorted(resources, key=lambda r: (r.name, r.id))
            ],
        )


class CustomerOut(msgspec.Struct, kw_only=True):
    """The customer of an op-booking."""

    user_id: str
    name: str
    email: str


class OpBooking(BookingDetail, kw_only=True):
    """A booking as staff see it (CONTRACT 7.2's op-booking): the booking detail plus its customer,
    who made it, when the customer checked in and how it is paid."""

    customer: CustomerOut
    source: str
    checked_in_at: datetime | None
    payment_method: str

    @classmethod
    def of_op(cls, op: OpBookingView) -> OpBooking:
        """The op-booking representation of ``op``."""
        detail = BookingDetail.of(op.view)
        fields = {name: getattr(detail, name) for name in detail.__struct_fields__}
        booking, customer = op.booking, op.customer
        return cls(
            **fields,
            customer=CustomerOut(user_id=customer.id, name=customer.full_name, email=customer.email),
            source=booking.source.value,
            checked_in_at=local(booking.checked_in_at, op.view.resource.tz),
            payment_method=booking.payment_method.value,
        )
