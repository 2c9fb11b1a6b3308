"""What an email says, in the domain's terms: the recipient, the language and the booking's facts.

The mail adapters turn a :class:`Notification` into a message (templates, MIME, calendar file);
nothing here knows about formats. :func:`compose` decides who gets which template;
:func:`compose_account` writes a user's one-time code (email confirmation, password reset).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from booking_core.account_codes import CODE_LIFETIME
from booking_core.accounts import Language, User
from booking_core.booking import Booking
from booking_core.catalog import Resource
from booking_core.outbox import ACCOUNT_TEMPLATES, MailTemplate

#: Templates whose recipient is the booking's user (the rest go to the venue's operator).
USER_TEMPLATES = frozenset(
    {
        MailTemplate.BOOKING_PAID_USER,
        MailTemplate.BOOKING_CANCELLED_USER,
        MailTemplate.BOOKING_REFUNDED_USER,
        MailTemplate.BOOKING_CANCELLED_BY_VENUE_USER,
        MailTemplate.BOOKING_MOVED_USER,
        MailTemplate.BOOKING_BY_STAFF_USER,
    }
)


@dataclass(frozen=True, slots=True, kw_only=True)
class BookingFacts:
    """The booking as its emails describe it; ``start`` and ``end`` are in the venue's time zone."""

    booking_id: str
    reference_code: str
    status: str
    venue_name: str
    venue_address: str
    venue_timezone: str
    operator_email: str
    resource_name: str
    start: datetime
    end: datetime
    participant_count: int
    total_price: Decimal
    currency: str
    notes: str
    paid: bool
    cancellation_reason: str | None
    user_name: str
    user_email: str
    #: Until when a pending booking waits for its payment (venue time); None once it needs none.
    hold_expires_at: datetime | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ChangeFacts:
    """What an email about a change says that the booking, read when the email is sent, no longer
    tells: the refund decided, and where the booking was before a move (venue time).

    ``calendar_sequence`` is the ``SEQUENCE`` of the attached calendar event: 0 for the first, higher
    for each later version of the booking's event, so calendars replace the one they hold.
    """

    refund_amount: Decimal | None = None
    old_start: datetime | None = None
    old_end: datetime | None = None
    old_resource_name: str | None = None
    calendar_sequence: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Notification:
    """One email to one recipient, ready to be rendered.

    A booking's email carries its ``facts``; an account email (``ACCOUNT_TEMPLATES``) carries a
    one-time ``code`` and the hours it is valid for instead.
    """

    template: MailTemplate
    language: Language
    recipient: str
    recipient_name: str
    reply_to: str | None
    facts: BookingFacts | None = None
    change: ChangeFacts = ChangeFacts()
    code: str | None = None
    code_valid_hours: int = int(CODE_LIFETIME.total_seconds()) // 3600

    @property
    def has_calendar_event(self) -> bool:
        """The user's confirmation, a moved booking and a confirmed booking made by staff carry the
        booking as a calendar event (``.ics``)."""
        if self.template is MailTemplate.BOOKING_BY_STAFF_USER:
            return self.facts is not None and self.facts.status == "confirmed"
        return self.template in {MailTemplate.BOOKING_PAID_USER, MailTemplate.BOOKING_MOVED_USER}


def booking_facts(booking: Booking, resource: Resource, user: User) -> BookingFacts:
    """The facts of ``booking`` that its emails show."""
    venue = resource.venue
    return BookingFacts(
        booking_id=booking.id,
        reference_code=booking.reference_code,
        status=booking.status.value,
        venue_name=venue.name,
        venue_address=venue.address,
        venue_timezone=venue.timezone,
        operator_email=venue.operator_email,
        resource_name=resource.name,
        start=booking.start.astimezone(venue.tz),
        end=booking.end.astimezone(venue.tz),
        participant_count=booking.participant_count,
        total_price=booking.total_price,
        currency=booking.currency,
        notes=booking.notes,
        paid=booking.paid_at is not None,
        cancellation_reason=booking.cancellation_reason.value if booking.cancellation_reason else None,
        user_name=user.full_name,
        user_email=user.email,
        hold_expires_at=booking.hold_expires_at.astimezone(venue.tz) if booking.hold_expires_at else None,
    )


def compose(
    template: MailTemplate,
    booking: Booking,
    resource: Resource,
    user: User,
    change: ChangeFacts | None = None,
) -> Notification | None:
    """The email ``template`` about ``booking``; None when it has nobody to go to. ``change`` is what
    the outbox message says beyond the booking (:class:`ChangeFacts`).

    The user's emails are in the user's language; the operator's too, since a venue has no language
    of its own and its staff deal with that user. Replies go to the other party.
    """
    facts = booking_facts(booking, resource, user)
    operator = resource.venue.operator_email.strip()
    if template in USER_TEMPLATES:
        return Notification(
            template=template,
            language=user.language,
            recipient=user.email,
            recipient_name=user.full_name,
            reply_to=operator or None,
            facts=facts,
            change=change or ChangeFacts(),
        )
    if not operator:
        return None
    return Notification(
        template=template,
        language=user.language,
        recipient=operator,
        recipient_name=resource.venue.name,
        reply_to=user.email,
        facts=facts,
        change=change or ChangeFacts(),
    )


def compose_account(template: MailTemplate, user: User, code: str) -> Notification:
    """The account email ``template`` with ``code`` to ``user``, in the user's language."""
    if template not in ACCOUNT_TEMPLATES:
        raise ValueError(f"{template.value} is not an account email")
    return Notification(
        template=template,
        language=user.language,
        recipient=user.email,
        recipient_name=user.full_name,
        reply_to=None,
        code=code,
    )


def message_id_for(outbox_id: str, sender: str) -> str:
    """A ``Message-ID`` that stays the same on every try of one outbox message."""
    domain = sender.rpartition("@")[2] or "localhost"
    return f"<{outbox_id}@{domain}>"
