"""Request bodies of the booking endpoints: create and cancel."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec

from booking_core.errors import ValidationFailed
from booking_core.usecases.bookings import NewBooking

IsoDatetime = Annotated[
    str,
    msgspec.Meta(
        description="ISO 8601 datetime with a timezone offset", examples=["2026-06-03T10:00:00+02:00"]
    ),
]


def parse_datetime(value: str, field: str) -> datetime:
    """An aware datetime from ISO 8601 text; a field error when malformed or without an offset."""
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        raise ValidationFailed(
            "Datetime has wrong format. Use ISO 8601 with a timezone offset, e.g. 2026-06-03T10:00:00+02:00.",
            field=field,
        ) from None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise ValidationFailed("Datetime must include a timezone offset.", field=field)
    return parsed


class CreateBookingIn(msgspec.Struct, kw_only=True):
    """Body of ``POST /bookings/``: exactly one of ``resource`` and ``resource_external_id``."""

    resource: int | None = None
    resource_external_id: str | None = None
    start_datetime: IsoDatetime
    end_datetime: IsoDatetime
    participant_count: int = 1
    notes: str = ""

    def command(self) -> NewBooking:
        """The use case's command."""
        return NewBooking(
            resource_id=self.resource,
            resource_external_id=self.resource_external_id,
            start=parse_datetime(self.start_datetime, "start_datetime"),
            end=parse_datetime(self.end_datetime, "end_datetime"),
            participant_count=self.participant_count,
            notes=self.notes,
        )


class CancelIn(msgspec.Struct, kw_only=True):
    """Body of ``POST /bookings/{id}/cancel/`` (optional as a whole)."""

    reason: str | None = None
    notes: str = ""
