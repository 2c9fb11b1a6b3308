"""The booking state machine, checked by a hypothesis stateful test and a few examples."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from booking_core.booking import Booking, BookingStatus, CancellationReason
from booking_core.errors import InvalidTransition

T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
START = T0 + timedelta(days=2)

# Transitions the contract allows, by action: the statuses each may start from.
ALLOWED = {
    "mark_paid": {BookingStatus.PENDING},
    "confirm": {BookingStatus.PENDING},
    "cancel": {BookingStatus.PENDING, BookingStatus.CONFIRMED, BookingStatus.PAID},
    "complete": {BookingStatus.PAID, BookingStatus.CONFIRMED},
    "mark_no_show": {BookingStatus.PAID, BookingStatus.CONFIRMED},
    "mark_refunded": {BookingStatus.CANCELLED, BookingStatus.PAID},
}


def new_booking(**changes: object) -> Booking:
    fields: dict[str, object] = {
        "id": "b1",
        "reference_code": "ABCDEFGH",
        "resource_id": 1,
        "user_id": "u1",
        "start": START,
        "end": START + timedelta(hours=1),
        "price_per_unit": Decimal("20.00"),
        "total_price": Decimal("20.00"),
        "hold_expires_at": T0 + timedelta(minutes=15),
        "created_at": T0,
        "updated_at": T0,
    }
    fields.update(changes)
    return Booking(**fields)  # type: ignore[arg-type]


class BookingMachine(RuleBasedStateMachine):
    """Drives one booking through random actions at random times."""

    def __init__(self) -> None:
        super().__init__()
        self.booking = new_booking()
        self.now = T0
        self.ever_paid = False

    @rule(minutes=st.integers(min_value=0, max_value=4 * 24 * 60))
    def time_passes(self, minutes: int) -> None:
        self.now += timedelta(minutes=minutes)

    @rule(action=st.sampled_from(sorted(ALLOWED)))
    def act(self, action: str) -> None:
        before = self.booking
        try:
            after: Booking = getattr(before, action)(self.now)
        except InvalidTransition as error:
            refusal = str(error)
        else:
            refusal = ""
        if refusal:
            assert f"'{before.status}'" in refusal, refusal
            return
        assert before.status in ALLOWED[action], f"{action} from {before.status} must be refused"
        if action == "mark_paid":
            self.ever_paid = True
        if action == "mark_refunded":
            assert before.paid_at is not None
        self.booking = after

    @precondition(lambda self: self.booking.status is BookingStatus.PENDING)
    @rule()
    def expire(self) -> None:
        if self.booking.hold_expired(self.now):
            self.booking = self.booking.expire(self.now)
            assert self.booking.cancellation_reason is CancellationReason.EXPIRED
        else:
            with pytest.raises(InvalidTransition):
                self.booking.expire(self.now)

    @invariant()
    def paid_at_set_exactly_when_paid(self) -> None:
        assert (self.booking.paid_at is not None) == self.ever_paid

    @invariant()
    def timestamps_follow_status(self) -> None:
        b = self.booking
        if b.status is BookingStatus.CANCELLED:
            assert b.cancelled_at is not None
        if b.status is BookingStatus.PENDING:
            assert b.cancelled_at is None
            assert b.paid_at is None
            assert b.confirmed_at is None
        if b.status is BookingStatus.CONFIRMED:
            assert b.confirmed_at is not None

    @invariant()
    def cancellable_only_when_live_and_ahead(self) -> None:
        if self.booking.can_cancel(self.now):
            assert self.booking.status in ALLOWED["cancel"]
            assert self.now < self.booking.start


TestBookingMachine = BookingMachine.TestCase


def test_pending_hold_blocks_until_it_expires() -> None:
    booking = new_booking()
    assert booking.blocks_time(T0)
    assert not booking.blocks_time(T0 + timedelta(minutes=15))
    assert booking.hold_expired(T0 + timedelta(minutes=15))


def test_cancel_refused_inside_deadline_names_status() -> None:
    booking = new_booking()
    with pytest.raises(InvalidTransition, match="pending"):
        booking.cancel(START - timedelta(hours=1), deadline_hours=2)


def test_complete_only_after_end() -> None:
    paid = new_booking().mark_paid(T0)
    with pytest.raises(InvalidTransition):
        paid.complete(START)
    assert paid.complete(START + timedelta(hours=1)).status is BookingStatus.COMPLETED


def test_payment_after_expiry_revives_as_paid() -> None:
    expired = new_booking().expire(T0 + timedelta(minutes=20))
    paid = expired.mark_paid_after_expiry(T0 + timedelta(minutes=21))
    assert paid.status is BookingStatus.PAID
    assert paid.cancelled_at is None
    with pytest.raises(InvalidTransition):
        new_booking().cancel(T0).mark_paid_after_expiry(T0)


def test_upcoming_only_for_live_future_bookings() -> None:
    booking = new_booking()
    assert booking.is_upcoming(T0)
    assert not booking.cancel(T0).is_upcoming(T0)
    assert not booking.is_upcoming(START)
