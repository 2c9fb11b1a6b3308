"""The booking aggregate.

Its methods say what a transition changes and return a new ``Booking``; which transition may happen
in which state is decided in one place, the table of :mod:`booking_core.state_machine`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from decimal import Decimal

from booking_core.catalog import PriceUnit
from booking_core.errors import InvalidTransition
from booking_core.timerange import TimeRange


class BookingStatus(enum.StrEnum):
    """Where a booking stands in its life."""

    PENDING = "pending"
    CONFIRMED = "confirmed"
    PAID = "paid"
    CANCELLED = "cancelled"
    COMPLETED = "completed"
    NO_SHOW = "no_show"
    REFUNDED = "refunded"


class CancellationReason(enum.StrEnum):
    """Why a booking was cancelled. ``expired`` is set by the system when a hold lapses."""

    USER_REQUEST = "user_request"
    WEATHER = "weather"
    OTHER = "other"
    EXPIRED = "expired"


class BookingSource(enum.StrEnum):
    """Who made a booking: its user online, a partner client for its user, or the venue's staff."""

    ONLINE = "online"
    CLIENT = "client"
    STAFF = "staff"


class PaymentMethod(enum.StrEnum):
    """How a booking is paid: online through the provider, at the venue (not yet recorded), or a
    payment the venue's staff recorded (cash, card terminal, other)."""

    ONLINE = "online"
    AT_VENUE = "at_venue"
    CASH = "cash"
    CARD_TERMINAL = "card_terminal"
    OTHER = "other"


#: The methods staff record a payment taken at the venue with.
RECORDED_METHODS = frozenset({PaymentMethod.CASH, PaymentMethod.CARD_TERMINAL, PaymentMethod.OTHER})


#: How long before its start a booking's customer may check in (until its end).
CHECK_IN_OPENS = timedelta(minutes=60)

#: Statuses whose time is blocked for others (pending only while its hold lasts).
BLOCKING_STATUSES = frozenset({BookingStatus.PENDING, BookingStatus.CONFIRMED, BookingStatus.PAID})

#: Statuses a caller may still cancel from (before the deadline, and for ``pending`` while its hold lasts).
CANCELLABLE_STATUSES = frozenset({BookingStatus.PENDING, BookingStatus.CONFIRMED, BookingStatus.PAID})


@dataclass(frozen=True, slots=True, kw_only=True)
class Booking:
    """A reservation of one resource for one span of time."""

    id: str
    reference_code: str
    resource_id: int
    user_id: str
    client_id: int | None = None
    start: datetime
    end: datetime
    participant_count: int = 1
    price_per_unit: Decimal
    pricing_unit: PriceUnit = PriceUnit.HOUR
    total_price: Decimal
    currency: str = "EUR"
    status: BookingStatus = BookingStatus.PENDING
    notes: str = ""
    cancellation_reason: CancellationReason | None = None
    cancellation_notes: str = ""
    hold_expires_at: datetime | None = None
    confirmed_at: datetime | None = None
    paid_at: datetime | None = None
    cancelled_at: datetime | None = None
    refunded_at: datetime | None = None
    source: BookingSource = BookingSource.ONLINE
    payment_method: PaymentMethod = PaymentMethod.ONLINE
    checked_in_at: datetime | None = None
    created_at: datetime
    updated_at: datetime

    @property
    def span(self) -> TimeRange:
        """The booked instants."""
        return TimeRange(self.start, self.end)

    @property
    def duration_minutes(self) -> int:
        """Length of the booking in minutes."""
        return self.span.minutes

    def blocks_time(self, now: datetime) -> bool:
        """True when this booking keeps others from booking its time at ``now``."""
        if self.status not in BLOCKING_STATUSES:
            return False
        if self.status is BookingStatus.PENDING and self.hold_expires_at is not None:
            return now < self.hold_expires_at
        return True

    def hold_expired(self, now: datetime) -> bool:
        """True for a pending booking whose hold has lapsed."""
        return (
            self.status is BookingStatus.PENDING
            and self.hold_expires_at is not None
            and now >= self.hold_expires_at
        )

    def is_upcoming(self, now: datetime) -> bool:
        """True when the booking is live and has not started yet."""
        return self.start > now and self.status in BLOCKING_STATUSES

    def can_cancel(self, now: datetime, deadline_hours: int = 0) -> bool:
        """True when the owner may still cancel: live, not started, outside the deadline."""
        if self.status not in CANCELLABLE_STATUSES or self.hold_expired(now):
            return False
        return now < self.cancellation_deadline(deadline_hours)

    def cancellation_deadline(self, deadline_hours: int = 0) -> datetime:
        """The instant from which the owner can no longer cancel."""
        return self.start - timedelta(hours=deadline_hours)

    def mark_paid(self, now: datetime) -> Booking:
        """Payment received: ``paid`` (from pending, confirmed, or a lapsed hold whose time is free)."""
        return replace(
            self,
            status=BookingStatus.PAID,
            paid_at=now,
            hold_expires_at=None,
            cancelled_at=None,
            cancellation_reason=None,
            cancellation_notes="",
            updated_at=now,
        )

    def keep_payment(self, now: datetime) -> Booking:
        """A payment arrived for a booking that is over (completed, no-show): recorded, status kept."""
        return replace(self, paid_at=now, updated_at=now)

    def confirm(self, now: datetime) -> Booking:
        """Operator confirmation without payment: ``confirmed``."""
        return replace(
            self, status=BookingStatus.CONFIRMED, confirmed_at=now, hold_expires_at=None, updated_at=now
        )

    def cancel(
        self, now: datetime, reason: CancellationReason = CancellationReason.USER_REQUEST, notes: str = ""
    ) -> Booking:
        """Cancelled by its owner (or the operator): ``cancelled``."""
        return replace(
            self,
            status=BookingStatus.CANCELLED,
            cancellation_reason=reason,
            cancellation_notes=notes,
            cancelled_at=now,
            updated_at=now,
        )

    def withdraw(self, now: datetime, reason: CancellationReason, notes: str = "") -> Booking:
        """The owner of a lapsed hold asked to cancel it: it stays cancelled, now for the owner's reason,
        so that a payment still arriving is refunded instead of booking it."""
        return replace(self, cancellation_reason=reason, cancellation_notes=notes, updated_at=now)

    def expire(self, now: datetime) -> Booking:
        """The hold lapsed unpaid: ``cancelled`` with reason ``expired``, as of the hold's end."""
        return replace(
            self,
            status=BookingStatus.CANCELLED,
            cancellation_reason=CancellationReason.EXPIRED,
            cancelled_at=self.hold_expires_at or now,
            updated_at=now,
        )

    def as_of(self, now: datetime) -> Booking:
        """The booking as it stands at ``now``: a pending hold that lapsed reads as expired."""
        return self.expire(now) if self.hold_expired(now) else self

    def complete(self, now: datetime) -> Booking:
        """The booked time has passed: ``completed``."""
        return replace(self, status=BookingStatus.COMPLETED, updated_at=now)

    def check_in(self, now: datetime) -> Booking:
        """The customer arrived: ``checked_in_at`` set, the status kept (CONTRACT 7.4).

        Only a confirmed or paid booking, once, from :data:`CHECK_IN_OPENS` before its start to its end.

        Raises:
            InvalidTransition: another status (named), checked in already, or outside that time.
        """
        if self.status not in {BookingStatus.CONFIRMED, BookingStatus.PAID}:
            raise InvalidTransition(f"Cannot check in a booking with status '{self.status}'.")
        if self.checked_in_at is not None:
            at = self.checked_in_at.isoformat()
            raise InvalidTransition(f"This booking (status '{self.status}') was checked in already at {at}.")
        if now < self.start - CHECK_IN_OPENS:
            starts = self.start.isoformat()
            raise InvalidTransition(
                f"Check-in opens 60 minutes before the start (status '{self.status}', starts {starts})."
            )
        if now >= self.end:
            raise InvalidTransition(f"Cannot check in a booking that has ended (status '{self.status}').")
        return replace(self, checked_in_at=now, updated_at=now)

    def move_to(self, resource_id: int, span: TimeRange, now: datetime) -> Booking:
        """Staff moved the booking to ``span`` (on ``resource_id``): id, reference, status and price kept."""
        return replace(self, resource_id=resource_id, start=span.start, end=span.end, updated_at=now)

    def record_payment_method(self, method: PaymentMethod, now: datetime) -> Booking:
        """How the booking is (to be) paid, as staff recorded or agreed it."""
        return replace(self, payment_method=method, updated_at=now)

    def mark_no_show(self, now: datetime) -> Booking:
        """The user did not come: ``no_show``."""
        return replace(self, status=BookingStatus.NO_SHOW, updated_at=now)

    def mark_refunded(self, now: datetime) -> Booking:
        """The provider reported the refund of the booking's payment: ``refunded``."""
        return replace(
            self,
            status=BookingStatus.REFUNDED,
            refunded_at=now,
            hold_expires_at=None,
            cancelled_at=self.cancelled_at or now,
            updated_at=now,
        )
