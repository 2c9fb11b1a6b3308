"""Browsing: resources, their details and availability."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import TypeVar, cast

from booking_core.availability import (
    AvailableRange,
    BookedSlot,
    RawAvailability,
    availability_span,
    available_ranges_until,
    raw_availability,
)
from booking_core.catalog import Resource
from booking_core.errors import BadRequest, NotFound, ValidationFailed
from booking_core.limits import parse_date
from booking_core.paging import Page, Paged, fetch_page
from booking_core.ports import DataVersion, ResourceQuery, UnitOfWork
from booking_core.pricing import DEMAND_WINDOW, demand_level
from booking_core.timerange import TimeRange
from booking_core.usecases.deps import Deps

MAX_RANGE_DAYS = 31
T = TypeVar("T")


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceDetail:
    """A resource with its current demand level (0 to 1)."""

    resource: Resource
    demand_level: Decimal


@dataclass(frozen=True, slots=True, kw_only=True)
class AvailabilityView:
    """Free, bookable ranges of one resource over a date range."""

    resource: Resource
    start_date: date
    end_date: date
    ranges: list[AvailableRange]


@dataclass(frozen=True, slots=True, kw_only=True)
class RawAvailabilityView:
    """Windows, booked slots and closures of one resource over a date range."""

    resource: Resource
    start_date: date
    end_date: date
    raw: RawAvailability


def parse_date_range(start: str | None, end: str | None) -> tuple[date, date]:
    """Validate the availability query: both dates, ``end`` not before ``start``, at most 31 days."""
    if not start or not end:
        raise BadRequest("start_date and end_date are required (YYYY-MM-DD).")
    try:
        start_date, end_date = parse_date(start), parse_date(end)
    except ValueError as error:
        raise BadRequest(f"start_date and end_date {error}.") from None
    if end_date < start_date:
        raise BadRequest("end_date must not be before start_date.")
    if (end_date - start_date).days > MAX_RANGE_DAYS:
        raise BadRequest(f"end_date may be at most {MAX_RANGE_DAYS} days after start_date.")
    return start_date, end_date


def local_span(resource: Resource, start_date: date, end_date: date) -> TimeRange:
    """The instants of the local dates ``start_date``..``end_date`` (inclusive), with a day's margin."""
    tz = resource.tz
    start = datetime.combine(start_date - timedelta(days=1), time(), tz)
    end = datetime.combine(end_date + timedelta(days=2), time(), tz)
    return TimeRange(start, end)


def load_available(uow: UnitOfWork, resource_id: int) -> Resource:
    """The resource if it exists and can be browsed; NotFound otherwise."""
    resource = uow.resources.get(resource_id)
    if resource is None or not resource.is_available:
        raise NotFound("Resource not found.")
    return resource


def current_demand(uow: UnitOfWork, resource: Resource, now: datetime) -> Decimal:
    """Share of the next seven days' bookable time taken by confirmed and paid bookings (and closures).

    Unpaid holds do not count, so holding time without paying cannot move prices.
    """
    taken = uow.bookings.live_spans(resource.id, TimeRange(now, now + DEMAND_WINDOW))
    return demand_level(resource, blocking=taken, now=now)


def list_resources(deps: Deps, query: ResourceQuery, *, page: Page | None = None) -> Paged[Resource]:
    """One page of the resources matching the filters (active and bookable unless asked otherwise)."""
    with deps.read_lagging() as uow:
        return fetch_page(
            page or Page(), lambda limit, offset: uow.resources.list(query, limit=limit, offset=offset)
        )


def get_resource(deps: Deps, resource_id: int) -> ResourceDetail:
    """One browsable resource with its demand level."""
    with deps.read_lagging() as uow:
        resource = load_available(uow, resource_id)
        return ResourceDetail(resource=resource, demand_level=current_demand(uow, resource, deps.clock.now()))


def get_availability(
    deps: Deps,
    *,
    resource_id: int | None,
    resource_external_id: str | None,
    client_id: int | None,
    start_date: str | None,
    end_date: str | None,
) -> AvailabilityView:
    """Free ranges: windows minus bookings and closures, trimmed by the lead-time limits."""
    return render_availability(
        deps,
        resource_id=resource_id,
        resource_external_id=resource_external_id,
        client_id=client_id,
        start_date=start_date,
        end_date=end_date,
        render=_as_is,
    )


def render_availability(
    deps: Deps,
    *,
    resource_id: int | None,
    resource_external_id: str | None,
    client_id: int | None,
    start_date: str | None,
    end_date: str | None,
    render: Callable[[AvailabilityView], T],
) -> T:
    """``render`` applied to the free ranges, remembered in ``deps.views`` while it stays exact.

    Reused while the resource's data version is unchanged, no pending hold in the span has lapsed
    and the lead-time limits have not moved on to another start (:func:`available_ranges_until`).
    The bookings read are those of :func:`availability_span`, which reaches beyond the dates as far
    as a booking into them or the gap rule can. Ranges priced by
    demand, which moves with every minute, are computed afresh each time. A client's external id
    is looked up on every call, so a changed mapping is never served from the cache.
    """
    first, last = parse_date_range(start_date, end_date)
    now = deps.clock.now()
    with deps.read_lagging() as uow:
        rid = resolve_resource_id(uow, resource_id, resource_external_id, client_id, id_name="resource_id")
        key = _availability_key(render, rid, first, last)
        version = uow.resources.data_version(rid)
        if (hit := _remembered(deps, key, version, now)) is not None:
            return hit
        resource = load_available(uow, rid)
        blocked = uow.bookings.blocked_slots(resource.id, availability_span(resource, first, last, now), now)
        demand = current_demand(uow, resource, now) if resource.dynamic_pricing.enabled else Decimal(0)
    ranges, until = available_ranges_until(
        resource, first, last, blocking=[b.span for b in blocked], now=now, demand=demand
    )
    rendered = render(AvailabilityView(resource=resource, start_date=first, end_date=last, ranges=ranges))
    if version is not None and not resource.dynamic_pricing.enabled:
        moments = [t for t in (until, _next_lapse(blocked, now)) if t is not None]
        deps.views.put(key, version, min(moments, default=None), rendered)
    return rendered


def get_raw_availability(
    deps: Deps, resource_id: int, start_date: str | None, end_date: str | None
) -> RawAvailabilityView:
    """Windows, booked slots and unavailable periods, unmerged."""
    return render_raw_availability(deps, resource_id, start_date, end_date, render=_as_is)


def render_raw_availability(
    deps: Deps,
    resource_id: int,
    start_date: str | None,
    end_date: str | None,
    *,
    render: Callable[[RawAvailabilityView], T],
) -> T:
    """``render`` applied to the raw availability, remembered in ``deps.views`` while it stays exact.

    A repeated query costs one read of the resource's data version: the result is reused while
    neither the catalog nor the resource's bookings changed and no pending hold in it has lapsed.
    ``render`` (a module-level function, as it is part of the cache key) must not depend on
    anything but its argument.
    """
    first, last = parse_date_range(start_date, end_date)
    now = deps.clock.now()
    key = _raw_availability_key(render, resource_id, first, last)
    with deps.read_lagging() as uow:
        version = uow.resources.data_version(resource_id)
        if (hit := _remembered(deps, key, version, now)) is not None:
            return hit
        resource = load_available(uow, resource_id)
        booked = uow.bookings.blocked_slots(resource.id, local_span(resource, first, last), now)
    raw = raw_availability(resource, first, last, booked=booked)
    rendered = render(RawAvailabilityView(resource=resource, start_date=first, end_date=last, raw=raw))
    if version is not None:
        deps.views.put(key, version, _next_lapse(booked, now), rendered)
    return rendered


def remembered_availability(
    deps: Deps,
    resource_id: int,
    start_date: str | None,
    end_date: str | None,
    version: DataVersion | None,
    *,
    render: Callable[[AvailabilityView], T],
) -> T | None:
    """What :func:`render_availability` answered last for the resource (by its own id) and these
    dates, if it still holds at ``version``; None otherwise, and then that function answers.

    Reads no storage: for a caller that read the resource's data version itself, say on an event
    loop without a thread (the HTTP layer does). Bad dates raise as in :func:`render_availability`.
    """
    first, last = parse_date_range(start_date, end_date)
    return _remembered(deps, _availability_key(render, resource_id, first, last), version, deps.clock.now())


def remembered_raw_availability(
    deps: Deps,
    resource_id: int,
    start_date: str | None,
    end_date: str | None,
    version: DataVersion | None,
    *,
    render: Callable[[RawAvailabilityView], T],
) -> T | None:
    """:func:`remembered_availability` for :func:`render_raw_availability`."""
    first, last = parse_date_range(start_date, end_date)
    return _remembered(
        deps, _raw_availability_key(render, resource_id, first, last), version, deps.clock.now()
    )


def _availability_key(
    render: Callable[[AvailabilityView], T], resource_id: int, first: date, last: date
) -> Hashable:
    return ("availability", render, resource_id, first, last)


def _raw_availability_key(
    render: Callable[[RawAvailabilityView], T], resource_id: int, first: date, last: date
) -> Hashable:
    return ("raw_availability", render, resource_id, first, last)


def _remembered(deps: Deps, key: Hashable, version: DataVersion | None, now: datetime) -> T | None:
    # whoever stored under ``key`` stored what its ``render`` made, which is part of the key
    return None if version is None else cast("T | None", deps.views.get(key, version, now))


def _as_is(view: T) -> T:
    # the views themselves, shared with the cache: callers must not change their lists
    return view


def _next_lapse(booked: list[BookedSlot], now: datetime) -> datetime | None:
    """When the first of these holds lapses, which frees its time without writing anything."""
    lapses = (b.hold_expires_at for b in booked if b.hold_expires_at is not None)
    return min((t for t in lapses if t > now), default=None)


def resolve_resource_id(
    uow: UnitOfWork,
    resource_id: int | None,
    resource_external_id: str | None,
    client_id: int | None,
    *,
    id_name: str = "resource",
) -> int:
    """The internal id named by exactly one of ``resource_id`` and a client's external id.

    ``id_name`` is what the caller calls the internal id (``resource`` in a booking's body,
    ``resource_id`` in the availability query), for the messages.
    """
    exactly_one = f"Provide exactly one of {id_name} or resource_external_id."
    if resource_external_id is not None:
        if resource_id is not None:
            raise ValidationFailed(exactly_one)
        if client_id is None:
            raise ValidationFailed(
                "resource_external_id can only be used with a client token.", field="resource_external_id"
            )
        mapping = uow.resource_mappings.get(client_id, resource_external_id)
        if mapping is None or not mapping.is_active:
            raise ValidationFailed(
                f"No resource is mapped to external id '{resource_external_id}'.",
                field="resource_external_id",
            )
        return mapping.resource_id
    if resource_id is None:
        raise ValidationFailed(exactly_one)
    return resource_id
