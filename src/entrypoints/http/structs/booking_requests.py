"""Request bodies of the booking endpoints: create and cancel."""

from __future__ import annotations

from datetime import datetime

import msgspec

from booking_core.errors import ValidationFailed
from booking_core.limits import DATETIME_PATTERN, parse_datetime
from booking_core.usecases.bookings import NewBooking
from entrypoints.http.structs.fields import MESSAGES, CancelReason, Datetime, ExternalId, Int64, Notes


def _instant(value: str, field: str) -> datetime:
    """The datetime of a value that passed the pattern; only a day the month lacks fails here."""
    try:
        return parse_datetime(value)
    except ValueError:
        raise ValidationFailed(MESSAGES[DATETIME_PATTERN], field=field) from None


class CreateBookingIn(msgspec.Struct, kw_only=True):
    """Body of ``POST /bookings/``: exactly one of ``resource`` and ``resource_external_id``."""

    resource: Int64 | None = None
    resource_external_id: ExternalId | None = None
    start_datetime: Datetime
    end_datetime: Datetime
    participant_count: Int64 = 1
    notes: Notes = ""

    def command(self) -> NewBooking:
        """The use case's command."""
        return NewBooking(
            resource_id=self.resource,
            resource_external_id=self.resource_external_id,
            start=_instant(self.start_datetime, "start_datetime"),
            end=_instant(self.end_datetime, "end_datetime"),
            participant_count=self.participant_count,
            notes=self.notes,
        )


class CancelIn(msgspec.Struct, kw_only=True):
    """Body of ``POST /bookings/{id}/cancel/`` (optional as a whole)."""

    reason: CancelReason | None = None
    notes: Notes = ""
