"""The booking aggregate and its state machine.

Transitions are methods that return a new ``Booking``; an illegal one raises
:class:`~booking_core.errors.InvalidTransition` naming the current status.
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


#: Statuses whose time is blocked for others (pending only while its hold lasts).
BLOCKING_STATUSES = frozenset({BookingStatus.PENDING, BookingStatus.CONFIRMED, BookingStatus.PAID})

_ALLOWED: dict[str, frozenset[BookingStatus]] = {
    "pay": frozenset({BookingStatus.PENDING}),
    "confirm": frozenset({BookingStatus.PENDING}),
    "cancel": frozenset({BookingStatus.PENDING, BookingStatus.CONFIRMED, BookingStatus.PAID}),
    "expire": frozenset({BookingStatus.PENDING}),
    "complete": frozenset({BookingStatus.PAID, BookingStatus.CONFIRMED}),
    "no_show": frozenset({BookingStatus.PAID, BookingStatus.CONFIRMED}),
    "refund": frozenset({BookingStatus.CANCELLED, BookingStatus.PAID}),
}


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
        if self.status not in _ALLOWED["cancel"]:
            return False
        return now < self.start - timedelta(hours=deadline_hours)

    def _check(self, action: str) -> None:
        if self.status not in _ALLOWED[action]:
            raise InvalidTransition(
                f"Cannot {action.replace('_', '-')} a booking with status '{self.status}'."
            )

    def mark_paid(self, now: datetime) -> Booking:
        """Payment received: ``pending`` -> ``paid``."""
        self._check("pay")
        return replace(self, status=BookingStatus.PAID, paid_at=now, hold_expires_at=None, updated_at=now)

    def mark_paid_after_expiry(self, now: datetime) -> Booking:
        """A payment arrived for a hold that lapsed meanwhile and whose time is still free."""
        if (
            self.status is not BookingStatus.CANCELLED
            or self.cancellation_reason is not CancellationReason.EXPIRED
        ):
            raise InvalidTransition(f"Cannot pay a booking with status '{self.status}'.")
        return replace(
            self,
            status=BookingStatus.PAID,
            paid_at=now,
            cancelled_at=None,
            cancellation_reason=None,
            hold_expires_at=None,
            updated_at=now,
        )

    def confirm(self, now: datetime) -> Booking:
        """Operator confirmation without payment: ``pending`` -> ``confirmed``."""
        self._check("confirm")
        return replace(
            self, status=BookingStatus.CONFIRMED, confirmed_at=now, hold_expires_at=None, updated_at=now
        )

    def cancel(
        self,
        now: datetime,
        reason: CancellationReason = CancellationReason.USER_REQUEST,
        notes: str = "",
        *,
        deadline_hours: int = 0,
    ) -> Booking:
        """Cancel a live booking that has not started and is outside the cancellation deadline."""
        self._check("cancel")
        if not self.can_cancel(now, deadline_hours):
            raise InvalidTransition(f"This booking can no longer be cancelled (status '{self.status}').")
        return replace(
            self,
            status=BookingStatus.CANCELLED,
            cancellation_reason=reason,
            cancellation_notes=notes,
            cancelled_at=now,
            updated_at=now,
        )

    def expire(self, now: datetime) -> Booking:
        """The hold lapsed unpaid: ``pending`` -> ``cancelled`` with reason ``expired``."""
        self._check("expire")
        if not self.hold_expired(now):
            raise InvalidTransition("The hold of this pending booking has not expired yet.")
        # cancelled when the hold lapsed, whenever the sweep gets to it
        return replace(
            self,
            status=BookingStatus.CANCELLED,
            cancellation_reason=CancellationReason.EXPIRED,
            cancelled_at=self.hold_expires_at,
            updated_at=now,
        )

    def complete(self, now: datetime) -> Booking:
        """The booked time has passed: ``paid``/``confirmed`` -> ``completed``."""
        self._check("complete")
        if now < self.end:
            raise InvalidTransition(f"Cannot complete a booking with status '{self.status}' before it ends.")
        return replace(self, status=BookingStatus.COMPLETED, updated_at=now)

    def mark_no_show(self, now: datetime) -> Booking:
        """The user did not come: ``paid``/``confirmed`` -> ``no_show``, only after the start."""
        self._check("no_show")
        if now < self.start:
            raise InvalidTransition(
                f"Cannot mark no-show on a booking with status '{self.status}' before it starts."
            )
        return replace(self, status=BookingStatus.NO_SHOW, updated_at=now)

    def mark_refunded(self, now: datetime) -> Booking:
        """The provider reported the refund of a paid booking that was cancelled."""
        self._check("refund")
        if self.paid_at is None:
            raise InvalidTransition(
                f"Cannot refund a booking with status '{self.status}' that was never paid."
            )
        return replace(
            self,
            status=BookingStatus.REFUNDED,
            refunded_at=now,
            cancelled_at=self.cancelled_at or now,
            updated_at=now,
        )
