"""The operator API's blocks and day sheet (CONTRACT 7.2, 7.3): bodies in and out."""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from booking_core.catalog import Resource, UnavailablePeriod, Venue
from booking_core.errors import ValidationFailed
from booking_core.limits import DATETIME_PATTERN, parse_datetime
from booking_core.usecases.operator_blocks import BlockOverlapsBookings, BlockView, NewBlock, PlacedBlocks
from booking_core.usecases.operator_day import DaySheet, ResourceDay
from entrypoints.http.openapi import BookingConflict, ConflictBody
from entrypoints.http.structs._format import amount_in, local, money, utc
from entrypoints.http.structs.fields import MESSAGES, Datetime, Int64, Notes
from entrypoints.http.structs.operator import OpBooking


def _one_of(*choices: str) -> dict[str, Any]:
    return {"enum": list(choices), "extra": {"enum": list(choices)}}


#: Checked by the use case, which names the choices in its message.
BlockReasonText = Annotated[
    str, Meta(max_length=20, extra_json_schema=_one_of("maintenance", "holiday", "event", "weather", "other"))
]
OnConflictText = Annotated[str, Meta(max_length=20, extra_json_schema=_one_of("refuse", "cancel"))]


def _instant(value: str, field: str) -> datetime:
    """The datetime of a value that passed the pattern; only a day the month lacks fails here."""
    try:
        return parse_datetime(value)
    except ValueError:
        raise ValidationFailed(MESSAGES[DATETIME_PATTERN], field=field) from None


class BlockIn(msgspec.Struct, kw_only=True):
    """Body of ``POST /operator/venues/{venue_id}/blocks/``: ``resource_ids`` left out closes every
    resource of the venue; ``on_conflict`` says what happens to live bookings in the way."""

    resource_ids: list[Int64] | None = None
    start_datetime: Datetime
    end_datetime: Datetime
    reason: BlockReasonText = "other"
    note: Notes = ""
    on_conflict: OnConflictText = "refuse"

    def command(self) -> NewBlock:
        """The use case's command."""
        return NewBlock(
            resource_ids=tuple(self.resource_ids) if self.resource_ids is not None else None,
            start=_instant(self.start_datetime, "start_datetime"),
            end=_instant(self.end_datetime, "end_datetime"),
            reason=self.reason,
            note=self.note,
            on_conflict=self.on_conflict,
        )


class BlockOut(msgspec.Struct, kw_only=True):
    """A block (closed time) of one resource, in the venue's local offset."""

    id: int
    resource_id: int
    start_datetime: datetime
    end_datetime: datetime
    reason: str
    note: str
    source: str
    created_by: str | None
    created_at: datetime | None

    @classmethod
    def of(cls, block: UnavailablePeriod, resource: Resource) -> BlockOut:
        """The representation of ``block`` of ``resource``."""
        tz = resource.tz
        return cls(
            id=block.id or 0,
            resource_id=resource.id,
            start_datetime=local(block.start, tz),
            end_datetime=local(block.end, tz),
            reason=block.reason.value,
            note=block.note,
            source=block.source.value,
            created_by=block.created_by,
            created_at=utc(block.created_at),
        )

    @classmethod
    def of_view(cls, view: BlockView) -> BlockOut:
        """The representation of ``view``."""
        return cls.of(view.block, view.resource)


class BlockCancelledOut(msgspec.Struct, kw_only=True):
    """A booking a block cancelled, with what goes back of its payment."""

    id: str
    reference_code: str
    refund_amount: str
    currency: str


class BlocksPlacedOut(msgspec.Struct, kw_only=True):
    """``201`` of ``POST /operator/venues/{venue_id}/blocks/``."""

    blocks: list[BlockOut]
    cancelled_bookings: list[BlockCancelledOut]

    @classmethod
    def of(cls, placed: PlacedBlocks) -> BlocksPlacedOut:
        """The representation of ``placed``."""
        return cls(
            blocks=[BlockOut.of_view(v) for v in placed.blocks],
            cancelled_bookings=[
                BlockCancelledOut(
                    id=c.booking.id,
                    reference_code=c.booking.reference_code,
                    refund_amount=amount_in(c.refund_amount, c.currency),
                    currency=c.currency,
                )
                for c in placed.cancelled
            ],
        )


class DayWindowOut(msgspec.Struct, kw_only=True):
    """An opening window of the day, in local time."""

    start_time: time
    end_time: time
    label: str
    price_per_unit: str


class DayFreeOut(msgspec.Struct, kw_only=True):
    """Time still free to book (no lead time), in local time."""

    start_time: time
    end_time: time


class DayResourceOut(msgspec.Struct, kw_only=True):
    """One resource on the day sheet."""

    id: int
    name: str
    windows: list[DayWindowOut]
    bookings: list[OpBooking]
    blocks: list[BlockOut]
    free: list[DayFreeOut]

    @classmethod
    def of(cls, day: ResourceDay) -> DayResourceOut:
        """The representation of ``day``."""
        r = day.resource
        return cls(
            id=r.id,
            name=r.name,
            windows=[
                DayWindowOut(
                    start_time=w.start_time,
                    end_time=w.end_time,
                    label=w.label,
                    price_per_unit=money(w.price_per_unit),
                )
                for w in day.windows
            ],
            bookings=[OpBooking.of_op(b) for b in day.bookings],
            blocks=[BlockOut.of(p, r) for p in day.blocks],
            free=[DayFreeOut(start_time=f.start_time, end_time=f.end_time) for f in day.free],
        )


class DaySheetOut(msgspec.Struct, kw_only=True):
    """``GET /operator/venues/{venue_id}/day/``: the venue's local date, resource by resource."""

    venue_id: int
    date: date
    timezone: str
    resources: list[DayResourceOut]

    @classmethod
    def of(cls, sheet: DaySheet) -> DaySheetOut:
        """The representation of ``sheet``."""
        venue: Venue = sheet.venue
        return cls(
            venue_id=venue.id,
            date=sheet.date,
            timezone=venue.timezone,
            resources=[DayResourceOut.of(d) for d in sheet.resources],
        )


def conflict_body(refused: BlockOverlapsBookings) -> ConflictBody:
    """The 409 body of a block refused for the live bookings in its way."""
    return ConflictBody(
        error=refused.message,
        conflicts=[
            BookingConflict(
                booking_id=c.booking.id,
                reference_code=c.booking.reference_code,
                resource_id=c.booking.resource_id,
                start_datetime=local(c.booking.start, c.resource.tz),
                end_datetime=local(c.booking.end, c.resource.tz),
                status=c.booking.status.value,
            )
            for c in refused.conflicts
        ],
    )
