"""The booking state machine: total, and the final state depends on the set of events, not their order.

A hypothesis state machine drives one booking (made through a client, so commissions count) and its
payment through time. At every step it draws a batch of events that reach the booking at the same
moment, duplicates included, and applies the batch in two random orders: both must end in the same
booking status, payment status and commission. Refused events change nothing, as in the service.
The venue's cancel gives back what staff chose for the run: all, nothing, or a part (the part the
provider's partial refund reports, or more).
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from booking_core.booking import Booking, BookingStatus, CancellationReason
from booking_core.errors import AlreadyPaid, InvalidTransition
from booking_core.outbox import MailTemplate as Notice
from booking_core.payments import Payment, PaymentStatus
from booking_core.state_machine import (
    TABLE,
    CancelRequest,
    Circumstances,
    CommissionAction,
    Event,
    Outcome,
    Stage,
    decide,
    require_payable,
    stage_of,
)

T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
PART_REFUNDED = Decimal("5.00")
#: What a venue's cancel gives back of the 20.00 paid: all, nothing, the part reported, more than it.
VENUE_CHOICES = [None, Decimal("0.00"), PART_REFUNDED, Decimal("12.00")]
HOLD = timedelta(minutes=15)


def new_booking(start: datetime = T0 + timedelta(days=2), minutes: int = 60) -> Booking:
    return Booking(
        id="b1",
        reference_code="ABCDEFGH",
        resource_id=1,
        user_id="u1",
        client_id=7,
        start=start,
        end=start + timedelta(minutes=minutes),
        price_per_unit=Decimal("20.00"),
        total_price=Decimal("20.00"),
        hold_expires_at=T0 + HOLD,
        created_at=T0,
        updated_at=T0,
    )


def new_payment() -> Payment:
    return Payment(
        id="p1",
        booking_id="b1",
        provider="sandbox",
        payment_intent_id="pi_1",
        client_secret="secret",
        amount=Decimal("20.00"),
        currency="EUR",
        created_at=T0,
    )


@dataclass(frozen=True)
class World:
    """The booking with everything that follows from its changes, as the use cases store them."""

    booking: Booking
    payment: Payment
    refund_requested: bool = False
    commission: str | None = None
    notices: Counter[Notice] = field(default_factory=Counter)
    #: What a venue's cancel gives back (None: all of it).
    venue_refund: Decimal | None = None

    def after(self, event: Event, at: Circumstances) -> World:
        # a partial refund carries the running total the provider reports
        refunded = PART_REFUNDED if event is Event.PARTIAL_REFUND_REPORTED else None
        cancel = CancelRequest(refund=self.venue_refund) if event is Event.VENUE_CANCEL else CancelRequest()
        change = decide(self.booking, event, at, payment=self.payment, cancel=cancel, refunded=refunded)
        if change.refusal is not None and not change.keep_when_refused:
            return self
        payment = change.payment or self.payment
        commission = self.commission
        for action in change.commission:
            if action is CommissionAction.EARN and commission is None:
                commission = "open"
            elif commission == "open" and gives_all_back(action, payment):
                commission = "reversed"
        return replace(
            self,
            booking=change.booking,
            payment=payment,
            refund_requested=self.refund_requested or change.refund,
            commission=commission,
            notices=self.notices + Counter(change.notices),
        )

    def decisive(self) -> tuple[object, ...]:
        """What the decisions depend on (timestamps only by whether they are set)."""
        booking = self.booking
        return (
            booking.status,
            booking.cancellation_reason,
            booking.paid_at is None,
            booking.hold_expires_at is None,
            self.payment.status,
            self.payment.refunded_amount,
            self.commission,
            self.refund_requested,
        )

    def outcome(self) -> tuple[BookingStatus, PaymentStatus, bool]:
        """What must not depend on the order: status, payment status, and whether commission is owed."""
        return self.booking.status, self.payment.status, self.commission == "open"


def gives_all_back(action: CommissionAction, payment: Payment) -> bool:
    """The commission is reversed: the money goes back, or follows a refund that leaves nothing kept."""
    follows = action is CommissionAction.FOLLOW_REFUND and not payment.kept_amount
    return action is CommissionAction.REVERSE or follows


def decided_by_arrival(
    events: list[Event], booking: Booking, now: datetime, world: World | None = None
) -> bool:
    """The pairs the contract leaves to arrival: after the end, the completion sweep and an
    operator's no-show (whichever comes first stands: ``completed`` is final); and a venue's cancel
    giving back less than all against what someone else decided for the booking as they found it: a
    customer's cancel, an operator's no-show, the payment of a booking unpaid when staff chose."""
    happening = set(events)
    if {Event.COMPLETE, Event.NO_SHOW} <= happening and now >= booking.end:
        return True
    if Event.VENUE_CANCEL not in happening:
        return False
    if {Event.CANCEL, Event.NO_SHOW} & happening:
        return True
    partial = world is not None and world.venue_refund is not None
    unpaid = world is not None and not world.payment.taken
    return partial and unpaid and Event.PAYMENT_SUCCEEDED in happening


def run(world: World, events: list[Event], at: Circumstances) -> World:
    for event in events:
        world = world.after(event, at)
    return world


# A reported refund ends the story, so it is drawn less often than the others, to leave room for them.
BATCH_EVENTS = [*[e for e in Event if e is not Event.REFUND_REPORTED] * 3, Event.REFUND_REPORTED]


class Lifecycle(RuleBasedStateMachine):
    """One booking; time moves forward; batches of simultaneous events arrive in any order."""

    def __init__(self) -> None:
        super().__init__()
        self.world = World(booking=new_booking(), payment=new_payment())
        self.now = T0
        self.deadline = 0

    # The hold ends before the booking starts: a hold outlasting the start is the one case where an
    # operator's command is decided differently depending on whether the payment came first
    # (docs/payments.md).
    @initialize(
        start_in=st.sampled_from([20, 90, 26 * 60, 3 * 24 * 60]),
        minutes=st.sampled_from([30, 60, 120]),
        deadline=st.sampled_from([0, 1, 24]),
        venue_refund=st.sampled_from(VENUE_CHOICES),
    )
    def book(self, start_in: int, minutes: int, deadline: int, venue_refund: Decimal | None) -> None:
        self.world = World(
            booking=new_booking(T0 + timedelta(minutes=start_in), minutes),
            payment=new_payment(),
            venue_refund=venue_refund,
        )
        self.deadline = deadline

    @rule(landmark=st.sampled_from(["hold", "deadline", "start", "end"]), offset=st.sampled_from([-1, 0, 1]))
    def time_passes(self, landmark: str, offset: int) -> None:
        """Move time forward to just before, at or just after one of the instants the rules look at."""
        booking = self.world.booking
        instants = {
            "hold": T0 + HOLD,
            "deadline": booking.cancellation_deadline(self.deadline),
            "start": booking.start,
            "end": booking.end,
        }
        self.now = max(self.now, instants[landmark] + timedelta(minutes=offset))

    @rule(
        events=st.lists(st.sampled_from(BATCH_EVENTS), min_size=1, max_size=4),
        time_free=st.booleans(),
        repeated=st.integers(min_value=0, max_value=4),
    )
    def simultaneous(self, events: list[Event], time_free: bool, repeated: int) -> None:
        """The events reach the booking at one moment: every order, and with duplicates, ends alike."""
        at = Circumstances(now=self.now, deadline_hours=self.deadline, time_free=lambda: time_free)
        first = run(self.world, events, at)
        if decided_by_arrival(events, self.world.booking, self.now, self.world):
            self.world = first
            return
        for order in set(itertools.permutations(events)):
            assert run(self.world, list(order), at).outcome() == first.outcome(), (events, order)
        doubled = [*events, *events[:repeated]][::-1]
        assert run(self.world, doubled, at).outcome() == first.outcome(), (events, doubled)
        self.world = first

    @invariant()
    def money_and_status_agree(self) -> None:
        world = self.world
        booking, payment = world.booking, world.payment
        if booking.status is BookingStatus.PAID:
            assert payment.status is PaymentStatus.SUCCEEDED
        if booking.status is BookingStatus.REFUNDED:
            assert payment.status is PaymentStatus.REFUNDED
        if payment.status is PaymentStatus.REFUND_PENDING:
            assert world.refund_requested
            assert booking.status is BookingStatus.CANCELLED
        # the commission follows what the venue keeps: all of a paid booking's payment, the part a
        # venue's cancel keeps, nothing of a refunded one
        live = booking.status in {BookingStatus.PAID, BookingStatus.COMPLETED, BookingStatus.NO_SHOW}
        kept_by_venue = (
            booking.status in {BookingStatus.CANCELLED, BookingStatus.REFUNDED} and payment.keeps_part
        )
        owed = (live or kept_by_venue) and booking.paid_at is not None
        assert (world.commission == "open") == owed, (world.commission, booking.status, payment)
        assert Decimal(0) <= payment.kept_amount <= payment.amount

    @invariant()
    def each_notice_at_most_once(self) -> None:
        assert all(count == 1 for count in self.world.notices.values()), self.world.notices
        paid = {Notice.BOOKING_PAID_USER, Notice.BOOKING_PAID_OPERATOR}
        assert paid <= set(self.world.notices) or not paid & set(self.world.notices)


TestLifecycle = Lifecycle.TestCase
TestLifecycle.settings = settings(max_examples=300, stateful_step_count=20)


# Every ordering of the hold's end, the cancellation deadline and the start (minutes ahead, hours).
SCENARIOS = [(20, 0), (20, 24), (26 * 60, 0), (26 * 60, 24)]


def moments(booking: Booking, deadline: int) -> list[datetime]:
    """Just before, at and just after every instant the rules look at."""
    marks = [T0 + HOLD, booking.cancellation_deadline(deadline), booking.start, booking.end]
    around = {m + timedelta(minutes=d) for m in marks for d in (-1, 0, 1)}
    return sorted(m for m in around | {T0} if m >= T0)


def reachable(world: World, deadline: int, time_free: bool, steps: int) -> list[tuple[World, datetime]]:
    """Each world that up to ``steps`` events at later and later moments lead to from ``world``, with
    the earliest moment it is reached at (later moments can only see less)."""
    earliest: dict[tuple[object, ...], tuple[World, datetime]] = {}
    frontier = [(world, T0)]
    for _ in range(steps + 1):
        following = []
        for state, since in frontier:
            key = state.decisive()
            if key in earliest and earliest[key][1] <= since:
                continue
            earliest[key] = (state, since)
            for now in (m for m in moments(state.booking, deadline) if m >= since):
                at = Circumstances(now=now, deadline_hours=deadline, time_free=lambda: time_free)
                following += [(state.after(event, at), now) for event in Event]
        frontier = following
    return list(earliest.values())


@pytest.mark.parametrize(("start_in", "deadline"), SCENARIOS)
# whether a lapsed hold's time is still free matters to a late payment, whatever the venue would give
# back: the venue's other choices are checked with a free time only, to keep the test quick
@pytest.mark.parametrize(
    ("time_free", "venue_refund"),
    [(True, None), (False, None), *((True, choice) for choice in VENUE_CHOICES if choice is not None)],
)
def test_every_pair_of_events_commutes_from_every_reachable_state(
    start_in: int, deadline: int, time_free: bool, venue_refund: Decimal | None
) -> None:
    start = new_booking(T0 + timedelta(minutes=start_in))
    first = World(booking=start, payment=new_payment(), venue_refund=venue_refund)
    for world, since in reachable(first, deadline, time_free, 2):
        for now in (m for m in moments(start, deadline) if m >= since):
            at = Circumstances(now=now, deadline_hours=deadline, time_free=lambda: time_free)
            for a, b in itertools.combinations_with_replacement(Event, 2):
                if decided_by_arrival([a, b], start, now, world):
                    continue
                outcome = run(world, [a, b], at).outcome()
                assert run(world, [b, a], at).outcome() == outcome, (world.booking.status, now, a, b)
                assert run(world, [a, b, a, b], at).outcome() == outcome, (world.booking.status, now, a, b)


def test_the_table_is_total() -> None:
    assert set(TABLE) == set(Stage)
    for stage, row in TABLE.items():
        assert set(row) == set(Event), stage


def at(now: datetime, **kw: object) -> Circumstances:
    return Circumstances(now=now, **kw)  # type: ignore[arg-type]


def apply_all(events: list[Event], now: datetime = T0, **kw: object) -> World:
    return run(World(booking=new_booking(), payment=new_payment()), events, at(now, **kw))


def test_refund_before_the_success_it_refunds_still_ends_refunded() -> None:
    world = apply_all([Event.REFUND_REPORTED, Event.PAYMENT_SUCCEEDED])
    assert world.outcome() == (BookingStatus.REFUNDED, PaymentStatus.REFUNDED, False)


def test_a_refund_reported_for_a_payment_never_reported_taken_does_not_make_the_booking_paid() -> None:
    """Finding 10: such a refund set ``paid_at`` and queued both paid mails."""
    world = apply_all([Event.REFUND_REPORTED])

    assert world.outcome() == (BookingStatus.REFUNDED, PaymentStatus.REFUNDED, False)
    assert (world.booking.paid_at, world.payment.paid_at) == (None, None)
    assert Notice.BOOKING_PAID_USER not in world.notices
    assert Notice.BOOKING_PAID_OPERATOR not in world.notices
    assert world.commission == "reversed"  # as when the success came first


def test_a_partial_refund_keeps_the_booking_paid_and_its_commission_follows() -> None:
    world = apply_all([Event.PAYMENT_SUCCEEDED, Event.PARTIAL_REFUND_REPORTED])

    assert world.outcome() == (BookingStatus.PAID, PaymentStatus.SUCCEEDED, True)
    assert world.payment.refunded_amount == PART_REFUNDED
    change = decide(
        world.booking, Event.PARTIAL_REFUND_REPORTED, at(T0), payment=world.payment, refunded=PART_REFUNDED
    )
    assert change.outcome is Outcome.IGNORE  # the same report again is old news
    paid_first = decide(new_booking(), Event.PAYMENT_SUCCEEDED, at(T0), payment=new_payment())
    reduced = decide(
        paid_first.booking,
        Event.PARTIAL_REFUND_REPORTED,
        at(T0),
        payment=paid_first.payment,
        refunded=PART_REFUNDED,
    )
    assert reduced.commission == (CommissionAction.FOLLOW_REFUND,)


def test_failure_after_success_and_success_after_refund_change_nothing() -> None:
    paid = apply_all([Event.PAYMENT_SUCCEEDED, Event.PAYMENT_FAILED])
    assert paid.payment.status is PaymentStatus.SUCCEEDED
    refunded = apply_all([Event.PAYMENT_SUCCEEDED, Event.REFUND_REPORTED, Event.PAYMENT_SUCCEEDED])
    assert refunded.payment.status is PaymentStatus.REFUNDED


def test_cancel_and_success_in_either_order_refund_once() -> None:
    for events in ([Event.CANCEL, Event.PAYMENT_SUCCEEDED], [Event.PAYMENT_SUCCEEDED, Event.CANCEL]):
        world = apply_all(events)
        assert world.outcome() == (BookingStatus.CANCELLED, PaymentStatus.REFUND_PENDING, False)
        assert world.refund_requested
        assert world.notices[Notice.BOOKING_CANCELLED_USER] == 1


def test_late_payment_books_a_free_lapsed_hold_and_refunds_a_taken_one() -> None:
    late = T0 + HOLD + timedelta(minutes=5)
    free = apply_all([Event.HOLD_EXPIRY, Event.PAYMENT_SUCCEEDED], late, time_free=lambda: True)
    assert free.booking.status is BookingStatus.PAID
    assert free.booking.cancelled_at is None
    taken = apply_all([Event.HOLD_EXPIRY, Event.PAYMENT_SUCCEEDED], late, time_free=lambda: False)
    assert taken.outcome() == (BookingStatus.CANCELLED, PaymentStatus.REFUND_PENDING, False)
    assert taken.booking.cancellation_reason is CancellationReason.EXPIRED


def test_cancel_of_a_lapsed_hold_is_refused_but_a_late_payment_is_then_refunded() -> None:
    late = T0 + HOLD + timedelta(minutes=5)
    change = decide(new_booking(), Event.CANCEL, at(late))
    assert change.outcome is Outcome.WITHDRAW
    assert change.refusal is not None
    assert "'cancelled'" in change.refusal
    world = apply_all([Event.CANCEL, Event.PAYMENT_SUCCEEDED], late)
    assert world.outcome() == (BookingStatus.CANCELLED, PaymentStatus.REFUND_PENDING, False)


def test_cancel_refusals_name_the_status_or_the_deadline() -> None:
    cancelled = decide(new_booking(), Event.CANCEL, at(T0)).booking
    again = decide(cancelled, Event.CANCEL, at(T0))
    assert again.refusal == "Cannot cancel a booking with status 'cancelled'."
    start = new_booking().start
    late = decide(
        new_booking(),
        Event.CANCEL,
        at(start - timedelta(hours=1), deadline_hours=2, timezone="Europe/Berlin"),
    )
    assert late.refusal is not None
    assert "2026-06-03T09:00:00+02:00" in late.refusal
    assert "2 hours before its start" in late.refusal
    assert "status" not in late.refusal


def test_after_the_end_the_sweep_and_a_no_show_are_first_come_first_served() -> None:
    paid = apply_all([Event.PAYMENT_SUCCEEDED]).booking
    end = paid.end + timedelta(minutes=1)
    kept = replace(new_payment(), status=PaymentStatus.SUCCEEDED)
    finals = [run(World(booking=paid, payment=kept), events, at(end)).booking.status for events in
              ([Event.COMPLETE, Event.NO_SHOW], [Event.NO_SHOW, Event.COMPLETE])]  # fmt: skip
    assert finals == [BookingStatus.COMPLETED, BookingStatus.NO_SHOW]
    during = paid.start + timedelta(minutes=1)
    assert decide(paid, Event.NO_SHOW, at(during)).booking.status is BookingStatus.NO_SHOW
    refused = decide(paid, Event.NO_SHOW, at(paid.start - timedelta(minutes=1)))
    assert refused.refusal is not None
    assert "before it starts" in refused.refusal


def test_payable_only_while_pending_and_held() -> None:
    require_payable(new_booking(), T0)
    with pytest.raises(InvalidTransition, match="hold of this booking has expired"):
        require_payable(new_booking(), T0 + HOLD)
    with pytest.raises(AlreadyPaid):
        require_payable(new_booking().mark_paid(T0), T0)
    assert stage_of(new_booking(), T0 + HOLD) is Stage.EXPIRED


def test_pending_hold_blocks_until_it_expires() -> None:
    booking = new_booking()
    assert booking.blocks_time(T0)
    assert not booking.blocks_time(T0 + HOLD)
    assert booking.hold_expired(T0 + HOLD)
    assert booking.as_of(T0 + HOLD).cancelled_at == T0 + HOLD


def test_complete_only_after_end() -> None:
    paid = apply_all([Event.PAYMENT_SUCCEEDED]).booking
    assert decide(paid, Event.COMPLETE, at(paid.start)).outcome is Outcome.IGNORE
    assert decide(paid, Event.COMPLETE, at(paid.end)).booking.status is BookingStatus.COMPLETED


def test_upcoming_only_for_live_future_bookings() -> None:
    booking = new_booking()
    assert booking.is_upcoming(T0)
    assert not decide(booking, Event.CANCEL, at(T0)).booking.is_upcoming(T0)
    assert not booking.is_upcoming(booking.start)


def paid_world(venue_refund: Decimal | None) -> World:
    return replace(apply_all([Event.PAYMENT_SUCCEEDED]), venue_refund=venue_refund)


def test_a_venue_cancel_is_not_bound_by_the_customers_deadline_but_ends_with_the_booking() -> None:
    booking = new_booking().confirm(T0)
    late = booking.start - timedelta(minutes=30)
    assert decide(booking, Event.CANCEL, at(late, deadline_hours=24)).refusal is not None
    change = decide(booking, Event.VENUE_CANCEL, at(late, deadline_hours=24))
    assert change.booking.status is BookingStatus.CANCELLED
    assert change.notices == (Notice.BOOKING_CANCELLED_BY_VENUE_USER,)
    during = decide(booking, Event.VENUE_CANCEL, at(booking.start + timedelta(minutes=5)))
    assert during.booking.status is BookingStatus.CANCELLED
    ended = decide(booking, Event.VENUE_CANCEL, at(booking.end, timezone="Europe/Berlin"))
    assert ended.refusal == "Cannot cancel a booking that has ended (2026-06-03T12:00:00+02:00)."


def test_a_venue_cancel_giving_back_everything_is_the_owners_cancel_and_refund() -> None:
    world = paid_world(None).after(Event.VENUE_CANCEL, at(T0))
    assert world.outcome() == (BookingStatus.CANCELLED, PaymentStatus.REFUND_PENDING, False)
    assert world.refund_requested
    assert world.payment.refund_asked is None


def test_a_venue_cancel_giving_back_nothing_keeps_payment_and_commission() -> None:
    world = paid_world(Decimal("0.00")).after(Event.VENUE_CANCEL, at(T0))
    assert world.outcome() == (BookingStatus.CANCELLED, PaymentStatus.SUCCEEDED, True)
    assert not world.refund_requested
    assert world.notices[Notice.BOOKING_CANCELLED_BY_VENUE_USER] == 1


def test_a_venue_cancel_giving_back_part_asks_for_that_part_and_is_refunded_when_it_is_reported() -> None:
    paid = paid_world(PART_REFUNDED)
    change = decide(
        paid.booking,
        Event.VENUE_CANCEL,
        at(T0),
        payment=paid.payment,
        cancel=CancelRequest(refund=PART_REFUNDED),
    )
    assert change.outcome is Outcome.CANCEL_AND_REFUND_PART
    assert (change.refund, change.refund_amount) == (True, PART_REFUNDED)
    assert change.commission == (CommissionAction.FOLLOW_REFUND,)
    cancelled = paid.after(Event.VENUE_CANCEL, at(T0))
    assert cancelled.outcome() == (BookingStatus.CANCELLED, PaymentStatus.REFUND_PENDING, True)
    assert cancelled.payment.kept_amount == Decimal("15.00")
    reported = cancelled.after(Event.PARTIAL_REFUND_REPORTED, at(T0))
    assert reported.outcome() == (BookingStatus.REFUNDED, PaymentStatus.REFUNDED, True)
    assert reported.payment.refunded_amount == PART_REFUNDED
    assert reported.notices[Notice.BOOKING_REFUNDED_USER] == 1
    rest = reported.after(Event.REFUND_REPORTED, at(T0))  # the rest given back at the dashboard later
    assert rest.outcome() == (BookingStatus.REFUNDED, PaymentStatus.REFUNDED, False)
    assert rest.notices[Notice.BOOKING_REFUNDED_USER] == 1


def test_a_smaller_report_than_the_part_asked_for_leaves_the_booking_cancelled() -> None:
    cancelled = paid_world(Decimal("12.00")).after(Event.VENUE_CANCEL, at(T0))
    reported = cancelled.after(Event.PARTIAL_REFUND_REPORTED, at(T0))
    assert reported.outcome() == (BookingStatus.CANCELLED, PaymentStatus.REFUND_PENDING, True)
    assert reported.payment.refunded_amount == PART_REFUNDED


def test_a_part_given_back_before_the_venue_cancel_counts_towards_it() -> None:
    reported = paid_world(PART_REFUNDED).after(Event.PARTIAL_REFUND_REPORTED, at(T0))
    at_once = reported.after(Event.VENUE_CANCEL, at(T0))
    assert at_once.outcome() == (BookingStatus.REFUNDED, PaymentStatus.REFUNDED, True)
    assert not at_once.refund_requested  # nothing more to ask for
    more = replace(reported, venue_refund=Decimal("12.00"))
    change = decide(
        more.booking,
        Event.VENUE_CANCEL,
        at(T0),
        payment=more.payment,
        cancel=CancelRequest(refund=Decimal("12.00")),
    )
    assert change.refund_amount == Decimal("7.00")  # what is still to go back
