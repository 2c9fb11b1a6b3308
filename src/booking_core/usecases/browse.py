"""Browsing: resources, their details and availability."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal

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
from booking_core.paging import Page, Paged, fetch_page
from booking_core.ports import DataVersion, ResourceQuery, UnitOfWork
from booking_core.pricing import DEMAND_WINDOW, demand_level
from booking_core.timerange import TimeRange
from booking_core.usecases.deps import Deps

MAX_RANGE_DAYS = 31


@dataclass(frozen=True, slots=True, kw_only=True)
class Validity:
    """How long an availability answer stays exact: while the resource's data is at ``version``
    (:meth:`~booking_core.ports.AvailabilityReads.version`, read before the data), and until
    ``until`` (None: no limit), when time alone changes it (a hold lapses, the lead time moves on)."""

    version: DataVersion
    until: datetime | None


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceDetail:
    """A resource with its current demand level (0 to 1)."""

    resource: Resource
    demand_level: Decimal


@dataclass(frozen=True, slots=True, kw_only=True)
class AvailabilityView:
    """Free, bookable ranges of one resource over a date range.

    ``validity``: how long it may be reused; None where it may not (the storage cannot tell its
    version, or prices follow demand, which moves with every minute).
    """

    resource: Resource
    start_date: date
    end_date: date
    ranges: list[AvailableRange]
    validity: Validity | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RawAvailabilityView:
    """Windows, booked slots and closures of one resource over a date range (``validity`` as for
    :class:`AvailabilityView`)."""

    resource: Resource
    start_date: date
    end_date: date
    raw: RawAvailability
    validity: Validity | None = None


def check_date_range(start_date: date, end_date: date) -> None:
    """The dates of an availability query: ``end_date`` not before ``start_date``, at most 31 days
    after it; BadRequest otherwise."""
    if end_date < start_date:
        raise BadRequest("end_date must not be before start_date.")
    if (end_date - start_date).days > MAX_RANGE_DAYS:
        raise BadRequest(f"end_date may be at most {MAX_RANGE_DAYS} days after start_date.")


def local_span(resource: Resource, start_date: date, end_date: date) -> TimeRange:
    """The instants of the local dates ``start_date``..``end_date`` (inclusive), with a day's margin."""
    tz = resource.tz
    start = datetime.combine(start_date - timedelta(days=1), time(), tz)
    end = datetime.combine(end_date + timedelta(days=2), time(), tz)
    return TimeRange(start, end)


def load_available(uow: UnitOfWork, resource_id: int) -> Resource:
    """The resource if it exists and can be browsed; NotFound otherwise."""
    return _browsable(uow.resources.get(resource_id))


def _browsable(resource: Resource | None) -> Resource:
    if resource is None or not resource.is_available:
        raise NotFound("Resource not found.")
    return resource


def current_demand(uow: UnitOfWork, resource: Resource, now: datetime) -> Decimal:
    """Share of the next seven days' bookable time taken by confirmed and paid bookings (and closures).

    Unpaid holds do not count, so holding time without paying cannot move prices.
    """
    return _demand(uow.bookings.live_spans, resource, now)


def _demand(
    live_spans: Callable[[int, TimeRange], list[TimeRange]], resource: Resource, now: datetime
) -> Decimal:
    taken = live_spans(resource.id, TimeRange(now, now + DEMAND_WINDOW))
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


def availability_version(deps: Deps, resource_id: int) -> DataVersion | None:
    """The resource's data version as the availability reads stamp their answers (for a cache in
    front of them that has no faster way to ask)."""
    with deps.read_lagging() as uow:
        return uow.availability.version(resource_id)


def availability_resource_id(
    deps: Deps, *, resource_id: int | None, resource_external_id: str | None, client_id: int | None
) -> int:
    """The internal id an availability query names (:func:`resolve_resource_id`); a client's
    external id is looked up every time, so a changed mapping shows at once."""
    with deps.read_lagging() as uow:
        return resolve_resource_id(uow, resource_id, resource_external_id, client_id, id_name="resource_id")


def get_availability(
    deps: Deps,
    *,
    resource_id: int | None,
    resource_external_id: str | None = None,
    client_id: int | None = None,
    start_date: date,
    end_date: date,
) -> AvailabilityView:
    """Free ranges: windows minus bookings and closures, trimmed by the lead-time limits.

    The bookings read are those of :func:`availability_span`, which reaches beyond the dates as far
    as a booking into them or the gap rule can. The answer holds (its ``validity``) while the
    resource's data version is unchanged, until a pending hold in the span lapses or the lead-time
    limits move on to another start (:func:`available_ranges_until`); ranges priced by demand are
    never reused.
    """
    check_date_range(start_date, end_date)
    now = deps.clock.now()
    with deps.read_lagging() as uow:
        rid = resolve_resource_id(uow, resource_id, resource_external_id, client_id, id_name="resource_id")
        reads = uow.availability
        version = reads.version(rid)
        resource = _browsable(reads.resource(rid))
        span = availability_span(resource, start_date, end_date, now)
        blocked = reads.blocked_slots(resource.id, span, now)
        by_demand = resource.dynamic_pricing.enabled
        demand = _demand(reads.live_spans, resource, now) if by_demand else Decimal(0)
    ranges, until = available_ranges_until(
        resource, start_date, end_date, blocking=[b.span for b in blocked], now=now, demand=demand
    )
    moments = [t for t in (until, _next_lapse(blocked, now)) if t is not None]
    return AvailabilityView(
        resource=resource,
        start_date=start_date,
        end_date=end_date,
        ranges=ranges,
        validity=None if by_demand else _validity(version, min(moments, default=None)),
    )


def get_raw_availability(
    deps: Deps, resource_id: int, start_date: date, end_date: date
) -> RawAvailabilityView:
    """Windows, booked slots and unavailable periods, unmerged.

    The answer holds while neither the catalog nor the resource's bookings change and no pending
    hold in it lapses (its ``validity``).
    """
    check_date_range(start_date, end_date)
    now = deps.clock.now()
    with deps.read_lagging() as uow:
        reads = uow.availability
        version = reads.version(resource_id)
        resource = _browsable(reads.resource(resource_id))
        booked = reads.blocked_slots(resource.id, local_span(resource, start_date, end_date), now)
    return RawAvailabilityView(
        resource=resource,
        start_date=start_date,
        end_date=end_date,
        raw=raw_availability(resource, start_date, end_date, booked=booked),
        validity=_validity(version, _next_lapse(booked, now)),
    )


def _validity(version: DataVersion | None, until: datetime | None) -> Validity | None:
    return None if version is None else Validity(version=version, until=until)


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
