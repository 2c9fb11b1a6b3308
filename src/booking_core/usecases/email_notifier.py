"""The e-mail channel: an outbox message of ``kind="email"`` becomes one email through a ``Mailer``.

The message names a template and the booking (or the user) it is about; the email is composed from
them as they are at sending time (:mod:`booking_core.notifications`), so an address changed since
the message was written is the one it goes to. New emails (reminders, offers, staff mail) are new
templates of this channel, not new plumbing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any

from booking_core.catalog import Resource
from booking_core.errors import DeliveryFailed
from booking_core.notifications import ChangeFacts, Notification, compose, compose_account, message_id_for
from booking_core.outbox import ACCOUNT_TEMPLATES, EMAIL_KIND, MailTemplate, OutboxEntry
from booking_core.ports import Mailer, Notifiers, UnitOfWork

#: Why the operator's copy of a booking's email was not sent.
NO_OPERATOR = "skipped: the venue has no operator_email"


class EmailNotifier:
    """The e-mail :class:`~booking_core.ports.Notifier`: composes each email, sends it with ``mailer``."""

    def __init__(self, mailer: Mailer) -> None:
        self.mailer = mailer

    def delivery_id(self, outbox_id: str) -> str:
        """A ``Message-ID`` in the sender's domain."""
        return message_id_for(outbox_id, self.mailer.sender)

    def deliver(self, entry: OutboxEntry, *, delivery_id: str, read: Callable[[], UnitOfWork]) -> str | None:
        """Compose the email ``entry`` names and send it; :data:`NO_OPERATOR` when it has nobody to go to."""
        notification = _notification(entry, read)
        if notification is None:
            return NO_OPERATOR
        self.mailer.send(notification, message_id=delivery_id)
        return None


def email_only(mailer: Mailer) -> Notifiers:
    """The notifiers of a service that sends e-mail alone (through ``mailer``), for ``dispatch_outbox``."""
    return {EMAIL_KIND: EmailNotifier(mailer)}


def _undeliverable(reason: str) -> DeliveryFailed:
    """The message itself is wrong (unknown template, unknown booking): no retry can help."""
    return DeliveryFailed(reason, permanent=True)


def _notification(entry: OutboxEntry, read: Callable[[], UnitOfWork]) -> Notification | None:
    """The email ``entry`` stands for, from the booking as it is now (None: nobody to send it to)."""
    try:
        template = MailTemplate(entry.template)
    except ValueError:
        raise _undeliverable(f"unknown email template {entry.template!r}") from None
    if template in ACCOUNT_TEMPLATES:
        return _account_notification(entry, template, read)
    with read() as uow:
        booking = uow.bookings.get(entry.booking_id) if entry.booking_id else None
        if booking is None:
            raise _undeliverable(f"booking {entry.booking_id!r} not found")
        resource = uow.resources.get(booking.resource_id)
        user = uow.users.get(booking.user_id)
        if resource is None or user is None:
            raise _undeliverable(f"booking {booking.id}: its resource or user is gone")
        change = _change(entry.payload, uow, resource)
    return compose(template, booking, resource, user, change)


def _change(payload: Mapping[str, Any], uow: UnitOfWork, resource: Resource) -> ChangeFacts:
    """The message's :data:`~booking_core.outbox.DETAIL_FIELDS`, read as the email shows them."""
    try:
        refund = payload.get("refund_amount")
        old_start, old_end = payload.get("old_start"), payload.get("old_end")
        old_resource_id = payload.get("old_resource_id")
        old_resource = uow.resources.get(int(old_resource_id)) if old_resource_id is not None else resource
        tz = resource.venue.tz
        return ChangeFacts(
            refund_amount=Decimal(str(refund)) if refund is not None else None,
            old_start=datetime.fromisoformat(str(old_start)).astimezone(tz) if old_start else None,
            old_end=datetime.fromisoformat(str(old_end)).astimezone(tz) if old_end else None,
            old_resource_name=old_resource.name if old_resource is not None else None,
            calendar_sequence=int(payload.get("sequence") or 0),
        )
    except (ValueError, ArithmeticError) as error:
        raise _undeliverable(f"unreadable email details: {error}") from None


def _account_notification(
    entry: OutboxEntry, template: MailTemplate, read: Callable[[], UnitOfWork]
) -> Notification:
    """The one-time code of ``entry`` to its user, at the address the user has now."""
    user_id, code = str(entry.payload.get("user_id") or ""), str(entry.payload.get("code") or "")
    with read() as uow:
        user = uow.users.get(user_id) if user_id else None
    if user is None or not code:
        raise _undeliverable(f"user {user_id!r} not found, or no code to send")
    return compose_account(template, user, code)
