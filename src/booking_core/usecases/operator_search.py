"""The staff's bookings search (CONTRACT 7.4): a page of op-bookings, or all of them for a CSV file.

Desk staff, managers and admins search the venues they see: with a venue filter that venue (another
one reads as 404), without one all of theirs. Local dates become instants per timezone of the venues
searched, so ``from`` and ``to`` are each venue's own calendar days.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, time, timedelta

from booking_core.booking import BookingStatus
from booking_core.catalog import Venue
from booking_core.errors import BadRequest, NotFound
from booking_core.limits import EARLIEST_DATE, LATEST_DATE
from booking_core.localtime import local_instant
from booking_core.paging import Page, Paged, fetch_page
from booking_core.ports import SearchKey, StaffBookingQuery, UnitOfWork, VenueSpan
from booking_core.staff import Action, Staff
from booking_core.timerange import TimeRange
from booking_core.usecases.deps import Deps
from booking_core.usecases.permissions import VENUE_NOT_FOUND, require
from booking_core.usecases.views import OpBookingView, op_booking_views

#: How many bookings the CSV download reads at a time, each chunk in a unit of work of its own.
EXPORT_CHUNK = 500
_STATUSES = ", ".join(s.value for s in BookingStatus)


@dataclass(frozen=True, slots=True, kw_only=True)
class BookingSearch:
    """The search as the caller asks it; None means "any". Dates are the venues' local dates."""

    venue_id: int | None = None
    resource_id: int | None = None
    date_from: date | None = None
    date_to: date | None = None
    status: str | None = None
    text: str | None = None


def search_bookings(deps: Deps, staff: Staff, search: BookingSearch, *, page: Page) -> Paged[OpBookingView]:
    """One page of the bookings ``search`` finds among the venues ``staff`` sees, latest start first."""
    now = deps.clock.now()
    with deps.read() as uow:
        query = staff_query(uow, staff, search)
        found = fetch_page(page, lambda limit, offset: uow.bookings.search(query, limit=limit, offset=offset))
        return Paged(op_booking_views(uow, found.items, now), found.next_offset)


def export_bookings(
    deps: Deps, staff: Staff, search: BookingSearch, *, chunk: int = EXPORT_CHUNK
) -> Iterator[list[OpBookingView]]:
    """Every booking ``search`` finds, in the search's order, ``chunk`` at a time.

    The search is checked now (a refusal comes before the first row); the bookings are read as the
    result is iterated, each chunk in a unit of work of its own, so that no connection is held while
    the caller writes a chunk out and no more than a chunk is in memory.
    """
    with deps.read() as uow:
        query = staff_query(uow, staff, search)
    return _chunks(deps, query, chunk)


def _chunks(deps: Deps, query: StaffBookingQuery, chunk: int) -> Iterator[list[OpBookingView]]:
    after: SearchKey | None = None
    while True:
        with deps.read() as uow:
            found = uow.bookings.search_after(query, after, limit=chunk)
            views = op_booking_views(uow, found, deps.clock.now())
        if views:
            yield views
        if len(found) < chunk:
            return
        after = (found[-1].start, found[-1].id)


def staff_query(uow: UnitOfWork, staff: Staff, search: BookingSearch) -> StaffBookingQuery:
    """The storage's query of ``search`` within what ``staff`` sees.

    Raises:
        NotFound: the venue or the resource asked for is not one ``staff`` sees.
        BadRequest: a status that is none, or ``to`` before ``from`` (naming the parameter).
    """
    status = parse_status(search.status)
    if search.date_from is not None and search.date_to is not None and search.date_to < search.date_from:
        raise BadRequest("to: must not be before from.")
    if search.venue_id is not None:
        require(staff, Action.VIEW, search.venue_id)
        if uow.resources.get_venue(search.venue_id) is None:
            raise NotFound(VENUE_NOT_FOUND)
        venue_ids: frozenset[int] | None = frozenset({search.venue_id})
    else:
        venue_ids = None if staff.is_admin else staff.venue_ids
    if search.resource_id is not None:
        resource = uow.resources.get(search.resource_id)
        if resource is None or not staff.sees(resource.venue.id):
            raise NotFound("Resource not found.")
    return StaffBookingQuery(
        venue_ids=venue_ids,
        resource_id=search.resource_id,
        starts=_starts(uow, venue_ids, search.date_from, search.date_to),
        status=status,
        text=search.text or None,
    )


def parse_status(text: str | None) -> BookingStatus | None:
    """The status a search asks for; BadRequest naming ``status`` for one that is none."""
    if text is None:
        return None
    try:
        return BookingStatus(text)
    except ValueError:
        raise BadRequest(f"status: must be one of {_STATUSES}.") from None


def _starts(
    uow: UnitOfWork, venue_ids: frozenset[int] | None, first: date | None, last: date | None
) -> tuple[VenueSpan, ...] | None:
    """The instants of the local dates ``first`` to ``last`` in each timezone of the venues searched."""
    if first is None and last is None:
        return None
    by_zone: dict[str, list[Venue]] = {}
    for venue in uow.resources.venues(venue_ids):
        by_zone.setdefault(venue.timezone, []).append(venue)
    spans = []
    for venues in by_zone.values():
        tz = venues[0].tz
        start = local_instant(first or EARLIEST_DATE, time(0), tz)
        end = local_instant((last or LATEST_DATE) + timedelta(days=1), time(0), tz)
        spans.append(VenueSpan(venue_ids=frozenset(v.id for v in venues), span=TimeRange(start, end)))
    return tuple(spans)
