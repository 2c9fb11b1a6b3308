"""The customer's mails about what the venue's staff did to a booking (CONTRACT 6, 7.4).

Each queues one outbox row in the caller's unit of work, the transaction of the change it reports,
like every booking's email. The venue's cancellation is queued by the state machine's decision
(:mod:`booking_core.usecases.venue_cancel`); a move and a booking made by staff are queued here.
"""

from __future__ import annotations

from datetime import datetime

from booking_core.booking import Booking
from booking_core.outbox import MailTemplate
from booking_core.ports import OutboxMessage, UnitOfWork
from booking_core.usecases.deps import Deps


def notify_moved(
    deps: Deps,
    uow: UnitOfWork,
    booking: Booking,
    old_start: datetime,
    old_end: datetime,
    *,
    old_resource_id: int | None = None,
) -> None:
    """Queue the moved mail: ``booking`` as it is now, the time (and resource) it had before, and an
    updated calendar event (the booking's own UID, a ``SEQUENCE`` above every earlier one)."""
    now = deps.clock.now()
    details: dict[str, str | int] = {
        "old_start": old_start.isoformat(),
        "old_end": old_end.isoformat(),
        # seconds since the booking was made: each later move has a higher one, and no counter is kept
        "sequence": max(int((now - booking.created_at).total_seconds()), 1),
    }
    if old_resource_id is not None and old_resource_id != booking.resource_id:
        details["old_resource_id"] = old_resource_id
    message = OutboxMessage.email(
        MailTemplate.BOOKING_MOVED_USER, booking.id, id=deps.ids.new_id(), now=now, details=details
    )
    uow.outbox.add(message)


def notify_staff_booking(deps: Deps, uow: UnitOfWork, booking: Booking) -> None:
    """Queue the mail of a booking staff made for the customer: confirmed, to pay at the venue; or
    pending, with how and until when to pay (the mail reads the booking's status when it is sent)."""
    now = deps.clock.now()
    uow.outbox.add(
        OutboxMessage.email(MailTemplate.BOOKING_BY_STAFF_USER, booking.id, id=deps.ids.new_id(), now=now)
    )
