"""The venue's cancel with the refund it chooses, through the use cases on the in-memory ports."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest

from booking_core.accounts import Actor, Client
from booking_core.booking import BookingStatus, CancellationReason
from booking_core.commission import CommissionStatus
from booking_core.errors import InvalidTransition, NotFound, ValidationFailed
from booking_core.memory import (
    FixedClock,
    InMemoryMailer,
    InMemoryPaymentGateway,
    InMemoryStore,
    PlainPasswords,
    SequentialIds,
)
from booking_core.outbox import MailTemplate
from booking_core.payments import PaymentStatus
from booking_core.refund_choice import RefundChoice
from booking_core.state_machine import Event
from booking_core.usecases import auth, bookings, clients, payments
from booking_core.usecases.deps import Deps
from booking_core.usecases.email_notifier import email_only
from booking_core.usecases.outbox import dispatch_outbox
from booking_core.usecases.refunds import retry_refunds
from booking_core.usecases.staff_notices import notify_moved, notify_staff_booking
from booking_core.usecases.venue_cancel import VenueCancellation, cancel_booking_for_venue, cancel_for_venue
from entrypoints.bootstrap import charging_currencies
from tests.unit.test_usecase_flow import NOW, at, court, pay, user_actor

WEATHER = CancellationReason.WEATHER


@pytest.fixture
def store() -> InMemoryStore:

    store = InMemoryStore()
    store.add_resource(court(1, cancellation_deadline_hours=24))
    store.add_client(
        Client(id=7, name="PartnerApp", commission_percent=Decimal("10.00"), created_at=NOW),
        auth.hash_token("client-token"),
    )
    return store


@pytest.fixture
def gateway() -> InMemoryPaymentGateway:
    return InMemoryPaymentGateway()


@pytest.fixture
def deps(store: InMemoryStore, gateway: InMemoryPaymentGateway) -> Deps:
    return Deps(
        uow=store.uow,
        clock=FixedClock(NOW),
        ids=SequentialIds(),
        passwords=PlainPasswords(),
        payments=gateway,
        currencies=charging_currencies(),
    )


def client_actor(deps: Deps) -> Actor:
    clients.register_user(deps, 7, external_id="u-42", email="eva@example.com", language="de")
    partner = auth.authenticate(deps, "client-token")
    return auth.resolve_actor(deps, partner, user_id=None, external_user_id="u-42", required=True)


def paid_booking(deps: Deps, actor: Actor, hours: int = 2) -> str:
    """A booking of ``hours`` (20.00 each) on June 2, paid."""
    start = at(2, 10)
    view = bookings.create_booking(
        deps, actor, bookings.NewBooking(resource_id=1, start=start, end=start + timedelta(hours=hours))
    )
    pay(deps, view, actor, event_id=f"evt_paid_{view.booking.id}")
    return view.booking.id


def refund_reported(
    deps: Deps, store: InMemoryStore, booking_id: str, refunded_minor: int, event_id: str
) -> None:
    payment = next(p for p in store.tables.payments.values() if p.booking_id == booking_id)
    kind = Event.PARTIAL_REFUND_REPORTED if refunded_minor < 4000 else Event.REFUND_REPORTED
    event = payments.PaymentEvent(
        id=event_id,
        kind=kind,
        payment_intent_id=payment.payment_intent_id,
        booking_id=booking_id,
        amount_minor=4000,
        currency="EUR",
        refunded_minor=refunded_minor,
    )
    payments.apply_payment_event(deps, event)


def mails(store: InMemoryStore, template: str) -> list[dict[str, object]]:
    return [dict(e.payload) for e in store.tables.outbox.values() if e.template == template]


def commission_of(store: InMemoryStore, booking_id: str) -> list[tuple[Decimal, CommissionStatus]]:
    return [(c.amount, c.status) for c in store.tables.commissions.values() if c.booking_id == booking_id]


def test_part_of_the_payment_goes_back_once_and_the_booking_is_refunded_when_it_is_reported(
    deps: Deps, store: InMemoryStore, gateway: InMemoryPaymentGateway
) -> None:
    booking_id = paid_booking(deps, client_actor(deps))
    assert commission_of(store, booking_id) == [(Decimal("4.00"), CommissionStatus.OPEN)]

    done = cancel_booking_for_venue(
        deps, booking_id, reason=WEATHER, notes="rain", refund=RefundChoice.AMOUNT, amount=Decimal("15.00")
    )

    assert (done.booking.status, done.refund_amount, done.currency) == (
        BookingStatus.CANCELLED,
        Decimal("15.00"),
        "EUR",
    )
    assert done.booking.cancellation_reason is WEATHER
    assert (gateway.refunds, gateway.refund_amounts) == (
        [store.tables.payments[done.refunds[0].payment_id].payment_intent_id],
        [Decimal("15.00")],
    )
    assert store.tables.refunds[done.refunds[0].payment_id].amount == Decimal("15.00")
    assert commission_of(store, booking_id) == [
        (Decimal("2.50"), CommissionStatus.OPEN)
    ]  # 10 % of 25.00 kept
    assert mails(store, "booking_cancelled_by_venue_user") == [
        {
            "template": "booking_cancelled_by_venue_user",
            "booking_id": booking_id,
            "refund_amount": "15.00",
            "currency": "EUR",
        }
    ]
    assert retry_refunds(deps) == 0  # accepted: never sent again

    refund_reported(deps, store, booking_id, 1500, "evt_part")
    refund_reported(deps, store, booking_id, 1500, "evt_part_again")  # the same report, another id

    booking = store.tables.bookings[booking_id]
    [payment] = [p for p in store.tables.payments.values() if p.booking_id == booking_id]
    assert booking.status is BookingStatus.REFUNDED
    assert (payment.status, payment.refunded_amount) == (PaymentStatus.REFUNDED, Decimal("15.00"))
    assert commission_of(store, booking_id) == [(Decimal("2.50"), CommissionStatus.OPEN)]
    assert [m["refund_amount"] for m in mails(store, "booking_refunded_user")] == ["15.00"]
    assert len(gateway.refunds) == 1


def test_full_none_and_policy(deps: Deps, store: InMemoryStore, gateway: InMemoryPaymentGateway) -> None:
    anna = user_actor(deps)
    full = cancel_booking_for_venue(deps, paid_booking(deps, anna), reason=WEATHER, refund=RefundChoice.FULL)
    assert (full.refund_amount, gateway.refund_amounts) == (Decimal("40.00"), [None])  # all it holds

    kept = paid_booking(deps, anna)
    none = cancel_booking_for_venue(deps, kept, reason=CancellationReason.OTHER, refund=RefundChoice.NONE)
    assert (none.booking.status, none.refund_amount, none.refunds) == (
        BookingStatus.CANCELLED,
        Decimal("0.00"),
        (),
    )
    [payment] = [p for p in store.tables.payments.values() if p.booking_id == kept]
    assert payment.status is PaymentStatus.SUCCEEDED  # the venue keeps it
    assert mails(store, "booking_cancelled_by_venue_user")[-1]["refund_amount"] == "0.00"

    # the policy as if the customer cancelled now: without tiers, all of it before the 24 h deadline
    policy = cancel_booking_for_venue(
        deps, paid_booking(deps, anna), reason=WEATHER, refund=RefundChoice.POLICY
    )
    assert policy.refund_amount == Decimal("40.00")
    assert isinstance(deps.clock, FixedClock)
    late = paid_booking(deps, anna)
    deps.clock.current = at(2, 9)  # an hour before the start: the customer could not cancel any more
    after = cancel_booking_for_venue(deps, late, reason=WEATHER, refund=RefundChoice.POLICY)
    assert (after.booking.status, after.refund_amount, after.refunds) == (
        BookingStatus.CANCELLED,
        Decimal("0.00"),
        (),
    )


def test_unpaid_live_bookings_are_cancelled_with_nothing_to_give_back(
    deps: Deps, store: InMemoryStore
) -> None:
    anna = user_actor(deps)
    start = at(2, 10)
    pending = bookings.create_booking(
        deps, anna, bookings.NewBooking(resource_id=1, start=start, end=start + timedelta(hours=1))
    )
    with pytest.raises(ValidationFailed) as too_much:
        cancel_booking_for_venue(
            deps, pending.booking.id, reason=WEATHER, refund=RefundChoice.AMOUNT, amount=Decimal("1")
        )
    assert too_much.value.field == "amount"
    done = cancel_booking_for_venue(deps, pending.booking.id, reason=WEATHER, refund=RefundChoice.FULL)
    assert (done.booking.status, done.refund_amount) == (BookingStatus.CANCELLED, Decimal("0.00"))
    with pytest.raises(InvalidTransition, match="status 'cancelled'"):
        cancel_booking_for_venue(deps, pending.booking.id, reason=WEATHER, refund=RefundChoice.FULL)
    with pytest.raises(InvalidTransition, match="status 'cancelled'"):  # the status first, then the amount
        cancel_booking_for_venue(
            deps, pending.booking.id, reason=WEATHER, refund=RefundChoice.AMOUNT, amount=Decimal("1")
        )
    with pytest.raises(NotFound):
        cancel_booking_for_venue(deps, "nope", reason=WEATHER, refund=RefundChoice.FULL)


def test_inside_an_open_unit_of_work_nothing_is_kept_unless_the_caller_commits(
    deps: Deps, store: InMemoryStore, gateway: InMemoryPaymentGateway
) -> None:
    booking_id = paid_booking(deps, user_actor(deps))
    with deps.uow() as uow:
        found = cancel_for_venue(
            deps,
            uow,
            booking_id,
            reason=WEATHER,
            notes="",
            refund=RefundChoice.AMOUNT,
            amount=Decimal("10.00"),
            now=NOW,
        )
        assert found.booking.status is BookingStatus.CANCELLED
    assert store.tables.bookings[booking_id].status is BookingStatus.PAID  # rolled back
    assert (gateway.refunds, store.tables.refunds) == ([], {})

    seen: list[VenueCancellation] = []

    def refuse(_uow: object, cancellation: VenueCancellation) -> None:
        seen.append(cancellation)
        raise RuntimeError("the audit could not be written")

    with pytest.raises(RuntimeError):
        cancel_booking_for_venue(
            deps, booking_id, reason=WEATHER, refund=RefundChoice.FULL, before_commit=refuse
        )
    assert seen
    assert store.tables.bookings[booking_id].status is BookingStatus.PAID
    assert gateway.refunds == []


def test_the_mails_carry_what_the_change_decided(deps: Deps, store: InMemoryStore) -> None:

    anna = user_actor(deps)
    booking_id = paid_booking(deps, anna)
    cancel_booking_for_venue(
        deps, booking_id, reason=WEATHER, refund=RefundChoice.AMOUNT, amount=Decimal("7.50")
    )
    store.add_resource(court(2))
    booking = store.tables.bookings[booking_id]
    with deps.uow() as uow:
        notify_moved(deps, uow, booking, at(1, 18), at(1, 20), old_resource_id=2)
        notify_staff_booking(deps, uow, booking)
        uow.commit()
    mailer = InMemoryMailer()
    dispatch_outbox(deps, email_only(mailer))

    sent = {n.template: n for n, _ in mailer.sent}
    venue = sent[MailTemplate.BOOKING_CANCELLED_BY_VENUE_USER]
    assert (venue.recipient, venue.change.refund_amount) == ("anna@example.com", Decimal("7.50"))
    assert venue.facts is not None
    assert venue.facts.cancellation_reason == "weather"
    moved = sent[MailTemplate.BOOKING_MOVED_USER]
    assert moved.change.old_start == at(1, 18)
    assert moved.change.old_start.utcoffset() == timedelta(hours=2)  # in the venue's time
    assert (moved.change.old_resource_name, moved.has_calendar_event) == ("Court 2", True)
    assert moved.change.calendar_sequence > 0
    assert MailTemplate.BOOKING_BY_STAFF_USER in sent
    assert MailTemplate.BOOKING_CANCELLED_USER not in sent  # the customer did not cancel
