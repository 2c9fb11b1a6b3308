"""The staff's bookings search over the in-memory tables, as the databases run it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from booking_core.accounts import User
from booking_core.booking import Booking
from booking_core.catalog import Resource
from booking_core.ports import SearchKey, StaffBookingQuery


def search(
    query: StaffBookingQuery,
    bookings: Iterable[Booking],
    users: Mapping[str, User],
    resources: Mapping[int, Resource],
    after: SearchKey | None = None,
) -> list[Booking]:
    """The bookings ``query`` finds, latest start first (ties by id, highest first), after ``after``."""

    def venue_of(booking: Booking) -> int | None:
        resource = resources.get(booking.resource_id)
        return resource.venue.id if resource is not None else None

    def keep(booking: Booking) -> bool:
        venue = venue_of(booking)
        return (
            (query.venue_ids is None or venue in query.venue_ids)
            and (query.resource_id is None or booking.resource_id == query.resource_id)
            and (
                query.starts is None
                or any(
                    venue in e.venue_ids and e.span.start <= booking.start < e.span.end for e in query.starts
                )
            )
            and (query.status is None or booking.status is query.status)
            and (not query.text or _mentions(booking, users.get(booking.user_id), query.text.lower()))
            and (after is None or (booking.start, booking.id) < after)
        )

    return sorted(filter(keep, bookings), key=lambda b: (b.start, b.id), reverse=True)


def _mentions(booking: Booking, user: User | None, text: str) -> bool:
    if user is None:
        return False
    name = f"{user.first_name} {user.last_name}"
    return any(text in field.lower() for field in (booking.reference_code, user.email, name))
