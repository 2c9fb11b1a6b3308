"""Blocks: closed time staff place on a venue's resources (CONTRACT 7.3, 7.9).

A block is an unavailable period of ``source`` ``staff``: availability subtracts it and lists it
in the raw availability, and no booking may overlap it, as for the catalog's closures. Placing one
holds its resources (:meth:`~booking_core.ports.Blocks.lock`) while it reads the live bookings in
its way, so a block and a booking racing for the same time never both win: the booking either is
seen here, or waits and is then refused by the storage.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import TypeVar

from booking_core.audit import AuditAction
from booking_core.booking import BLOCKING_STATUSES, Booking, CancellationReason
from booking_core.catalog import BlockReason, BlockSource, Resource, UnavailablePeriod
from booking_core.errors import BadRequest, DomainError, NotFound, ValidationFailed
from booking_core.paging import Page, Paged, fetch_page
from booking_core.ports import UnitOfWork
from booking_core.refund_choice import RefundChoice
from booking_core.rules import booking_span
from booking_core.staff import Action, Staff
from booking_core.timerange import TimeRange
from booking_core.usecases.audit import audit
from booking_core.usecases.deps import Deps
from booking_core.usecases.permissions import VENUE_NOT_FOUND, require
from booking_core.usecases.refunds import send_refunds
from booking_core.usecases.retry import retried
from booking_core.usecases.venue_cancel import VenueCancellation, cancel_for_venue

BLOCK_NOT_FOUND = "Block not found."


class OnConflict(enum.StrEnum):
    """What placing a block does about live bookings in its way."""

    REFUSE = "refuse"  #: nothing is written; the bookings are named (409)
    CANCEL = "cancel"  #: they are cancelled by the venue, paid ones refunded in full


@dataclass(frozen=True, slots=True, kw_only=True)
class NewBlock:
    """A request to close ``start``..``end`` on ``resource_ids`` (None: every resource of the venue).

    ``reason`` and ``on_conflict`` are the caller's words, checked by :func:`create_blocks`.
    """

    resource_ids: tuple[int, ...] | None = None
    start: datetime
    end: datetime
    reason: str = BlockReason.OTHER.value
    note: str = ""
    on_conflict: str = OnConflict.REFUSE.value


@dataclass(frozen=True, slots=True, kw_only=True)
class BlockView:
    """A block with its resource (whose venue's timezone it is shown in)."""

    block: UnavailablePeriod
    resource: Resource


@dataclass(frozen=True, slots=True, kw_only=True)
class PlacedBlocks:
    """The blocks stored (one per resource) and the bookings cancelled to make room."""

    blocks: list[BlockView]
    cancelled: list[VenueCancellation]


@dataclass(frozen=True, slots=True, kw_only=True)
class BookingInTheWay:
    """A live booking a block would overlap, with its resource."""

    booking: Booking
    resource: Resource


class BlockOverlapsBookings(DomainError):
    """A block with ``on_conflict`` ``refuse`` would overlap live bookings; nothing was written."""

    def __init__(self, conflicts: Sequence[BookingInTheWay]) -> None:
        super().__init__("the block overlaps bookings")
        self.conflicts = tuple(conflicts)


E = TypeVar("E", BlockReason, OnConflict)


def _choice(kind: type[E], value: str, field: str) -> E:
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(kind)
        raise ValidationFailed(f"Must be one of {allowed}.", field=field) from None


def venue_resources(uow: UnitOfWork, venue_id: int, resource_ids: Sequence[int] | None) -> list[Resource]:
    """The venue's resources named by ``resource_ids`` (None: all of them), by id.

    Raises:
        NotFound: no such venue, or an id that names no resource of it.
        ValidationFailed: (field ``resource_ids``) an empty list, or a venue without resources.
    """
    if uow.resources.get_venue(venue_id) is None:
        raise NotFound(VENUE_NOT_FOUND)
    own = {r.id: r for r in uow.resources.for_venue(venue_id)}
    wanted = sorted(own) if resource_ids is None else sorted(set(resource_ids))
    if not wanted:
        raise ValidationFailed("Name at least one resource.", field="resource_ids")
    if any(i not in own for i in wanted):
        raise NotFound("Resource not found.")
    return [own[i] for i in wanted]


@retried
def create_blocks(deps: Deps, staff: Staff | None, venue_id: int, cmd: NewBlock) -> PlacedBlocks:
    """Close ``cmd``'s time on the venue's resources: one block per resource, all or none.

    Live bookings in the way (pending with a live hold, confirmed, paid) are refused with
    :class:`BlockOverlapsBookings`, or with ``on_conflict`` ``cancel`` cancelled in the same
    transaction (reason ``weather`` for a weather block, else ``other``), paid ones refunded in
    full, each customer mailed. One audit entry per block, one per cancelled booking.
    """
    require(staff, Action.OPERATE, venue_id)
    reason = _choice(BlockReason, cmd.reason, "reason")
    on_conflict = _choice(OnConflict, cmd.on_conflict, "on_conflict")
    span = booking_span(cmd.start, cmd.end)
    now = deps.clock.now()
    with deps.uow() as uow:
        resources = venue_resources(uow, venue_id, cmd.resource_ids)
        by_id = {r.id: r for r in resources}
        uow.blocks.lock(by_id)
        found = uow.bookings.overlapping(by_id, span, statuses=BLOCKING_STATUSES)
        in_way = [b for b in found if b.blocks_time(now)]
        if in_way and on_conflict is OnConflict.REFUSE:
            raise BlockOverlapsBookings(
                [BookingInTheWay(booking=b, resource=by_id[b.resource_id]) for b in in_way]
            )
        cause = CancellationReason.WEATHER if reason is BlockReason.WEATHER else CancellationReason.OTHER
        cancelled = [_cancel(deps, uow, staff, venue_id, b, cause, cmd.note, now) for b in in_way]
        blocks = [
            BlockView(block=_place(deps, uow, staff, r, span, reason, cmd.note, cancelled, now), resource=r)
            for r in resources
        ]
        uow.commit()
    send_refunds(deps, [request for c in cancelled for request in c.refunds])
    return PlacedBlocks(blocks=blocks, cancelled=cancelled)


def _cancel(
    deps: Deps,
    uow: UnitOfWork,
    staff: Staff | None,
    venue_id: int,
    booking: Booking,
    cause: CancellationReason,
    note: str,
    now: datetime,
) -> VenueCancellation:
    done = cancel_for_venue(
        deps, uow, booking.id, reason=cause, notes=note, refund=RefundChoice.FULL, amount=None, now=now
    )
    details = {
        "reason": cause.value,
        "refund": RefundChoice.FULL.value,
        "refund_amount": str(done.refund_amount),
        "currency": done.currency,
        "by_block": True,
    }
    audit(
        deps,
        uow,
        staff,
        AuditAction.BOOKING_CANCEL,
        venue_id=venue_id,
        object_type="booking",
        object_id=booking.id,
        details=details,
    )
    return done


def _place(
    deps: Deps,
    uow: UnitOfWork,
    staff: Staff | None,
    resource: Resource,
    span: TimeRange,
    reason: BlockReason,
    note: str,
    cancelled: Sequence[VenueCancellation],
    now: datetime,
) -> UnavailablePeriod:
    block = uow.blocks.add(
        UnavailablePeriod(
            resource_id=resource.id,
            start=span.start,
            end=span.end,
            reason=reason,
            note=note,
            source=BlockSource.STAFF,
            created_by=staff.user_id if staff is not None else None,
            created_at=now,
        )
    )
    tz = resource.tz
    details = {
        "resource_id": resource.id,
        "start_datetime": span.start.astimezone(tz).isoformat(),
        "end_datetime": span.end.astimezone(tz).isoformat(),
        "reason": reason.value,
        "note": note,
        "cancelled_bookings": [c.booking.id for c in cancelled if c.booking.resource_id == resource.id],
    }
    audit(
        deps,
        uow,
        staff,
        AuditAction.BLOCK_CREATE,
        venue_id=resource.venue.id,
        object_type="block",
        object_id=str(block.id),
        details=details,
    )
    return block


def list_blocks(
    deps: Deps,
    staff: Staff | None,
    venue_id: int,
    date_from: date | None,
    date_to: date | None,
    *,
    page: Page | None = None,
) -> Paged[BlockView]:
    """One page of the venue's closed time (staff blocks and catalog periods) overlapping the
    venue-local dates ``date_from`` to ``date_to`` (both inclusive; None: open-ended), by start,
    then resource, then id. The resources carry their periods, which are read with them."""
    require(staff, Action.VIEW, venue_id)
    if date_from is not None and date_to is not None and date_to < date_from:
        raise ValidationFailed("to must not be before from.", field="to")
    with deps.read() as uow:
        venue = uow.resources.get_venue(venue_id)
        if venue is None:
            raise NotFound(VENUE_NOT_FOUND)
        resources = uow.resources.for_venue(venue_id)
    tz = venue.tz
    first = datetime.combine(date_from, time(0), tz) if date_from is not None else None
    last = datetime.combine(date_to + timedelta(days=1), time(0), tz) if date_to is not None else None
    found = [
        BlockView(block=p, resource=r)
        for r in resources
        for p in r.unavailable_periods
        if (first is None or p.end > first) and (last is None or p.start < last)
    ]
    found.sort(key=lambda v: (v.block.start, v.resource.id, v.block.id or 0))
    return fetch_page(page or Page(), lambda limit, offset: found[offset : offset + limit])


@retried
def delete_block(deps: Deps, staff: Staff | None, block_id: int) -> None:
    """Remove a block staff placed (its time is free again at once); a catalog period is changed by
    editing the venue's catalog instead (BadRequest)."""
    with deps.uow() as uow:
        block = uow.blocks.get(block_id)
        resource = uow.resources.get(block.resource_id) if block and block.resource_id is not None else None
        if block is None or resource is None:
            raise NotFound(BLOCK_NOT_FOUND)
        require(staff, Action.OPERATE, resource.venue.id)
        if block.source is BlockSource.CATALOG:
            raise BadRequest("This block comes from the venue's catalog: remove it by editing the catalog.")
        uow.blocks.delete(block_id)
        tz = resource.tz
        details = {
            "resource_id": resource.id,
            "start_datetime": block.start.astimezone(tz).isoformat(),
            "end_datetime": block.end.astimezone(tz).isoformat(),
            "reason": block.reason.value,
            "note": block.note,
        }
        audit(
            deps,
            uow,
            staff,
            AuditAction.BLOCK_DELETE,
            venue_id=resource.venue.id,
            object_type="block",
            object_id=str(block_id),
            details=details,
        )
        uow.commit()
