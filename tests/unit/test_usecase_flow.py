"""The whole booking flow through the use cases on the in-memory ports (no database)."""

from __future__ import annotations

import threading
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

import pytest

from booking_core.accounts import Actor, ApprovalStatus, Client, Language, Principal, User
from booking_core.booking import BookingStatus
from booking_core.catalog import Resource, Schedule, TimeSlot, Venue
from booking_core.commission import CommissionStatus
from booking_core.errors import (
    BadRequest,
    EmailNotConfirmed,
    Forbidden,
    IdempotencyConflict,
    InvalidTransition,
    MappingNotFound,
    NotAuthenticated,
    NotFound,
    PermissionDenied,
    SlotUnavailable,
    ValidationFailed,
)
from booking_core.memory import (
    FixedClock,
    InMemoryMailer,
    InMemoryPaymentGateway,
    InMemoryStore,
    PlainPasswords,
    SequentialIds,
)
from booking_core.paging import Page
from booking_core.payments import PaymentStatus
from booking_core.ports import IdempotentRequest
from booking_core.state_machine import Event
from booking_core.usecases import (
    account_codes,
    auth,
    bookings,
    browse,
    clients,
    idempotency,
    operator,
    payments,
)
from booking_core.usecases.deps import Deps
from booking_core.usecases.email_notifier import email_only
from booking_core.usecases.outbox import dispatch_outbox
from entrypoints.bootstrap import charging_currencies

BERLIN = Venue(id=1, slug="center", name="Center Court", timezone="Europe/Berlin", city="Berlin")
NOW = datetime(2026, 6, 1, 6, 0, tzinfo=UTC)  # Monday 08:00 in Berlin


def court(resource_id: int = 1, **changes: object) -> Resource:
    slots = (TimeSlot(start_time=time(8), end_time=time(22), price_per_unit=Decimal("20.00")),)
    fields: dict[str, object] = {
        "id": resource_id,
        "venue": BERLIN,
        "name": f"Court {resource_id}",
        "base_price": Decimal("20.00"),
        "booking_interval_minutes": 30,
        "min_booking_duration_minutes": 60,
        "max_booking_duration_minutes": 180,
        "prevent_unbookable_gaps": True,
        "schedules": tuple(Schedule(id=d, day_of_week=d, time_slots=slots) for d in range(1, 8)),
    }
    fields.update(changes)
    return Resource(**fields)  # type: ignore[arg-type]


def at(day: int, hour: int, minute: int = 0) -> datetime:
    """Berlin wall-clock time on June ``day`` 2026 (UTC+2)."""
    return datetime(2026, 6, day, hour - 2, minute, tzinfo=UTC)


@pytest.fixture
def store() -> InMemoryStore:
    store = InMemoryStore()
    store.add_resource(court(1))
    store.add_resource(court(2))
    store.add_client(
        Client(id=7, name="PartnerApp", commission_percent=Decimal("10.00"), created_at=NOW),
        auth.hash_token("client-token"),
    )
    store.add_client(Client(id=8, name="Other", created_at=NOW), auth.hash_token("other-token"))
    return store


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(NOW)


@pytest.fixture
def gateway() -> InMemoryPaymentGateway:
    return InMemoryPaymentGateway()


@pytest.fixture
def deps(store: InMemoryStore, clock: FixedClock, gateway: InMemoryPaymentGateway) -> Deps:
    return Deps(
        uow=store.uow,
        clock=clock,
        ids=SequentialIds(),
        passwords=PlainPasswords(),
        payments=gateway,
        currencies=charging_currencies(),
    )


def mailed_code(deps: Deps, email: str) -> str:
    """Deliver what the outbox holds; the one-time code of the one mail it sent to ``email``."""
    mailer = InMemoryMailer()
    dispatch_outbox(deps, email_only(mailer))
    (code,) = [n.code for n, _ in mailer.sent if n.recipient == email and n.code]
    return code


def user_actor(deps: Deps, email: str = "anna@example.com") -> Actor:
    """A direct user as the catalog makes one (confirmed from the start), acting through a token.

    Registration itself, with the confirmation of the mailed code, is ``test_register_login_logout``'s.
    """
    now = deps.clock.now()
    user = User(
        id=deps.ids.new_id(),
        email=email,
        first_name="Anna",
        language=Language.EN,
        password_hash=deps.passwords.hash("a-long-passphrase"),
        created_at=now,
    )
    token = deps.ids.new_token()
    with deps.uow() as uow:
        uow.users.add(user)
        uow.tokens.add(auth.hash_token(token), Principal(user_id=user.id), now)
        uow.commit()
    return auth.resolve_actor(
        deps, auth.authenticate(deps, token), user_id=None, external_user_id=None, required=True
    )


def book(
    deps: Deps, actor: Actor, start: datetime, hours: int = 1, resource: int = 1
) -> bookings.BookingView:
    cmd = bookings.NewBooking(resource_id=resource, start=start, end=start + timedelta(hours=hours))
    return bookings.create_booking(deps, actor, cmd)


def pay(deps: Deps, view: bookings.BookingView, actor: Actor, event_id: str = "evt_1") -> None:
    intent = payments.create_payment_intent(deps, actor, view.booking.id)
    event = payments.PaymentEvent(
        id=event_id,
        kind=Event.PAYMENT_SUCCEEDED,
        payment_intent_id=intent.payment.payment_intent_id,
        booking_id=view.booking.id,
        amount_minor=2000 * (view.booking.duration_minutes // 60),
        currency="EUR",
    )
    payments.apply_payment_event(deps, event)


def test_register_login_logout(deps: Deps) -> None:
    user, token = auth.register_user(deps, email="Bob@Example.com", password="0123456789", language=None)
    assert user.email == "bob@example.com"
    with pytest.raises(EmailNotConfirmed):
        auth.authenticate(deps, token)
    account_codes.confirm_email(deps, email="bob@example.com", code=mailed_code(deps, "bob@example.com"))
    assert auth.authenticate(deps, token) == Principal(user_id=user.id)
    second = auth.obtain_token(deps, email="bob@example.com", password="0123456789")
    auth.logout(deps, token)
    with pytest.raises(NotAuthenticated):
        auth.authenticate(deps, token)
    assert auth.authenticate(deps, second).user_id == user.id
    with pytest.raises(ValidationFailed):
        auth.obtain_token(deps, email="bob@example.com", password="wrong-password")
    with pytest.raises(ValidationFailed) as short:
        auth.register_user(deps, email="c@example.com", password="short", language=None)
    assert short.value.field == "password"


def test_book_pay_and_cancel_with_refund(
    deps: Deps, gateway: InMemoryPaymentGateway, store: InMemoryStore
) -> None:
    anna = user_actor(deps)
    view = book(deps, anna, at(2, 10), hours=2)
    assert view.booking.status is BookingStatus.PENDING
    assert view.booking.total_price == Decimal("40.00")
    assert view.can_cancel
    assert view.is_upcoming
    pay(deps, view, anna)
    paid = bookings.get_booking(deps, anna, view.booking.id)
    assert paid.booking.status is BookingStatus.PAID
    assert paid.booking.paid_at == NOW
    assert _templates(store) == {"booking_paid_user", "booking_paid_operator"}
    with pytest.raises(BadRequest, match="already been paid"):
        payments.create_payment_intent(deps, anna, view.booking.id)
    cancelled = bookings.cancel_booking(deps, anna, view.booking.id, reason="weather")
    assert cancelled.booking.status is BookingStatus.CANCELLED
    assert cancelled.payment is not None
    assert cancelled.payment.status is PaymentStatus.REFUND_PENDING
    assert gateway.refunds == [paid.payment.payment_intent_id if paid.payment else ""]
    assert _templates(store) == {"booking_paid_user", "booking_paid_operator", "booking_cancelled_user"}
    with pytest.raises(InvalidTransition, match="status 'cancelled'"):
        bookings.cancel_booking(deps, anna, view.booking.id)
    assert len(gateway.refunds) == 1


def test_the_same_event_twice_changes_nothing(deps: Deps, store: InMemoryStore) -> None:
    anna = user_actor(deps)
    view = book(deps, anna, at(2, 10))
    pay(deps, view, anna, "evt_same")
    intent = store.tables.payments
    assert len(intent) == 1
    payments.apply_payment_event(
        deps,
        payments.PaymentEvent(
            id="evt_same",
            kind=Event.PAYMENT_SUCCEEDED,
            payment_intent_id=next(iter(intent.values())).payment_intent_id,
            booking_id=view.booking.id,
            amount_minor=2000,
            currency="EUR",
        ),
    )
    assert _templates(store) == {"booking_paid_user", "booking_paid_operator"}
    assert len(store.tables.outbox) == 2


def test_amount_mismatch_does_not_mark_paid(deps: Deps) -> None:
    anna = user_actor(deps)
    view = book(deps, anna, at(2, 10))
    intent = payments.create_payment_intent(deps, anna, view.booking.id)
    payments.apply_payment_event(
        deps,
        payments.PaymentEvent(
            id="evt_x",
            kind=Event.PAYMENT_SUCCEEDED,
            payment_intent_id=intent.payment.payment_intent_id,
            booking_id=view.booking.id,
            amount_minor=1,
            currency="EUR",
        ),
    )
    assert bookings.get_booking(deps, anna, view.booking.id).booking.status is BookingStatus.PENDING


def test_overlap_and_gap_rules_hold(deps: Deps) -> None:
    anna = user_actor(deps)
    book(deps, anna, at(2, 10))
    with pytest.raises(SlotUnavailable):
        book(deps, anna, at(2, 10, 30))
    with pytest.raises(ValidationFailed, match="30-minute gap; the minimum booking is 60 minutes"):
        book(deps, anna, at(2, 11, 30))
    book(deps, anna, at(2, 11))  # exactly adjacent is fine


def test_expired_hold_frees_the_slot(deps: Deps, clock: FixedClock) -> None:
    anna = user_actor(deps)
    first = book(deps, anna, at(2, 10))
    clock.advance(timedelta(minutes=16))
    second = book(deps, anna, at(2, 10))
    assert bookings.get_booking(deps, anna, first.booking.id).booking.status is BookingStatus.CANCELLED
    assert second.booking.status is BookingStatus.PENDING
    with pytest.raises(BadRequest):
        payments.create_payment_intent(deps, anna, first.booking.id)


def test_a_lapsed_hold_met_by_a_booking_expires_with_every_lapsed_hold_of_its_resource(
    deps: Deps, clock: FixedClock
) -> None:
    anna = user_actor(deps)
    in_the_way, elsewhere = book(deps, anna, at(2, 10)), book(deps, anna, at(2, 14))
    clock.advance(timedelta(minutes=16))
    book(deps, anna, at(2, 10))
    with deps.read() as uow:
        stored = [uow.bookings.get(v.booking.id) for v in (in_the_way, elsewhere)]
    assert [b.status if b else None for b in stored] == [BookingStatus.CANCELLED] * 2


def test_payment_for_expired_hold_books_if_free_else_refunds(
    deps: Deps, clock: FixedClock, gateway: InMemoryPaymentGateway
) -> None:
    anna = user_actor(deps)
    lucky = book(deps, anna, at(3, 10))
    unlucky = book(deps, anna, at(3, 14))
    intents = {
        v.booking.id: payments.create_payment_intent(deps, anna, v.booking.id).payment.payment_intent_id
        for v in (lucky, unlucky)
    }
    clock.advance(timedelta(minutes=20))
    assert operator.expire_holds(deps) == 2
    book(deps, anna, at(3, 14))  # someone takes the unlucky booking's time
    for n, view in enumerate((lucky, unlucky)):
        payments.apply_payment_event(
            deps,
            payments.PaymentEvent(
                id=f"evt_{n}",
                kind=Event.PAYMENT_SUCCEEDED,
                payment_intent_id=intents[view.booking.id],
                booking_id=view.booking.id,
                amount_minor=2000,
                currency="EUR",
            ),
        )
    assert bookings.get_booking(deps, anna, lucky.booking.id).booking.status is BookingStatus.PAID
    assert bookings.get_booking(deps, anna, unlucky.booking.id).booking.status is BookingStatus.CANCELLED
    assert gateway.refunds == [intents[unlucky.booking.id]]


def test_users_see_and_act_only_on_their_own(deps: Deps) -> None:
    anna, ben = user_actor(deps), user_actor(deps, "ben@example.com")
    view = book(deps, anna, at(2, 10))
    with pytest.raises(NotFound):
        bookings.get_booking(deps, ben, view.booking.id)
    with pytest.raises(PermissionDenied):
        bookings.cancel_booking(deps, ben, view.booking.id)
    with pytest.raises(PermissionDenied):
        payments.create_payment_intent(deps, ben, view.booking.id)
    assert [v.booking.id for v in bookings.list_bookings(deps, anna).items] == [view.booking.id]
    assert bookings.list_bookings(deps, ben).items == []


def client_principal(deps: Deps, token: str = "client-token") -> Principal:
    return auth.authenticate(deps, token)


def test_client_flow_with_commission(deps: Deps, store: InMemoryStore) -> None:
    partner = client_principal(deps)
    reg = clients.register_user(deps, 7, external_id="u-42", email="eva@example.com", language="en")
    assert (reg.created, reg.mapping_created) == (True, True)
    again = clients.register_user(deps, 7, external_id="u-42", email="eva@example.com")
    assert (again.created, again.mapping_created, again.user.id) == (False, False, reg.user.id)
    clients.register_resource(deps, 7, external_id="court-a", resource_id=1, external_data={"x": 1})
    actor = auth.resolve_actor(deps, partner, user_id=None, external_user_id="u-42", required=True)
    cmd = bookings.NewBooking(resource_external_id="court-a", start=at(2, 12), end=at(2, 13))
    view = bookings.create_booking(deps, actor, cmd)
    assert view.booking.client_id == 7
    assert view.external_user_id == "u-42"
    pay(deps, view, actor)
    [commission] = clients.list_commissions(deps, 7, "2026-06").items
    assert (commission.amount, commission.status) == (Decimal("2.00"), CommissionStatus.OPEN)
    assert clients.list_commissions(deps, 8, "2026-06").items == []
    payments.apply_payment_event(
        deps,
        payments.PaymentEvent(
            id="evt_refund",
            kind=Event.REFUND_REPORTED,
            payment_intent_id=store.tables.payments[next(iter(store.tables.payments))].payment_intent_id,
            booking_id=None,
            amount_minor=2000,
            currency="eur",
        ),
    )
    assert clients.list_commissions(deps, 7, "2026-06").items[0].status is CommissionStatus.REVERSED


def test_client_header_rules(deps: Deps) -> None:
    partner = client_principal(deps)
    with pytest.raises(BadRequest, match="user identification required"):
        auth.resolve_actor(deps, partner, user_id=None, external_user_id=None, required=True)
    with pytest.raises(BadRequest, match="exactly one"):
        auth.resolve_actor(deps, partner, user_id="x", external_user_id="y", required=True)
    with pytest.raises(MappingNotFound, match="no user found for that external_id"):
        auth.resolve_actor(deps, partner, user_id=None, external_user_id="nobody", required=True)


def test_clients_are_isolated(deps: Deps) -> None:
    reg = clients.register_user(deps, 7, external_id="u-1", email="eva@example.com")
    clients.register_resource(deps, 7, external_id="court-a", resource_id=1, external_data=None)
    actor = auth.resolve_actor(
        deps, client_principal(deps), user_id=None, external_user_id="u-1", required=True
    )
    view = book(deps, actor, at(2, 15))
    other = client_principal(deps, "other-token")
    with pytest.raises(MappingNotFound):
        auth.resolve_actor(deps, other, user_id=reg.user.id, external_user_id=None, required=True)
    with pytest.raises(MappingNotFound):
        clients.lookup_user(deps, 8, "u-1")
    other_view = Actor(user_id=None, client_id=8)
    assert bookings.list_bookings(deps, other_view).items == []
    with pytest.raises(NotFound):
        bookings.get_booking(deps, other_view, view.booking.id)
    with pytest.raises(ValidationFailed) as unmapped:
        bookings.create_booking(
            deps,
            Actor(user_id=reg.user.id, client_id=8),
            bookings.NewBooking(resource_external_id="court-a", start=at(2, 18), end=at(2, 19)),
        )
    assert unmapped.value.field == "resource_external_id"


def test_email_of_existing_user_maps_to_that_user(deps: Deps) -> None:
    user, _ = auth.register_user(deps, email="anna@example.com", password="a-long-passphrase", language=None)
    reg = clients.register_user(deps, 7, external_id="a", email="ANNA@example.com")
    assert (reg.user.id, reg.created, reg.mapping_created) == (user.id, False, True)


def test_venue_mapping_needs_approval(deps: Deps) -> None:
    reg = clients.register_venue(deps, 7, external_id="v1", venue_id=1, external_data=None)
    assert reg.mapping.approval_status is ApprovalStatus.PENDING
    with pytest.raises(Forbidden, match="venue mapping is not approved"):
        clients.venue_resources(deps, 7, "v1")
    operator.decide_venue_mapping(deps, reg.mapping.id, ApprovalStatus.APPROVED)
    _mapping, venue, resources = clients.venue_resources(deps, 7, "v1")
    assert venue.id == 1
    assert [r.id for r, _m in resources] == [1, 2]
    assert clients.list_venue_mappings(deps, 7, "approved").items[0][0].id == reg.mapping.id
    with pytest.raises(ValidationFailed, match="1000"):
        clients.list_user_mappings(deps, 7, page=Page(limit=1001))


def test_availability_subtracts_bookings(deps: Deps) -> None:
    anna = user_actor(deps)
    book(deps, anna, at(2, 12))
    view = browse.get_availability(
        deps,
        resource_id=1,
        resource_external_id=None,
        client_id=None,
        start_date=date(2026, 6, 2),
        end_date=date(2026, 6, 2),
    )
    assert [(r.start_time, r.end_time) for r in view.ranges] == [(time(8), time(12)), (time(13), time(22))]
    with pytest.raises(BadRequest):
        browse.get_availability(
            deps,
            resource_id=1,
            resource_external_id=None,
            client_id=None,
            start_date=date(2026, 6, 2),
            end_date=date(2026, 8, 2),
        )


def test_operator_transitions(deps: Deps, clock: FixedClock) -> None:
    anna = user_actor(deps)
    view = book(deps, anna, at(2, 10))
    confirmed = operator.confirm_booking(deps, view.booking.reference_code.lower())
    assert confirmed.status is BookingStatus.CONFIRMED
    with pytest.raises(InvalidTransition):
        operator.mark_no_show(deps, view.booking.reference_code)
    clock.advance(timedelta(days=2))
    assert operator.complete_past_bookings(deps) == 1
    with pytest.raises(NotFound):
        operator.confirm_booking(deps, "ZZZZZZZZ")


def test_idempotency_replays_and_conflicts(deps: Deps) -> None:
    assert idempotency.replay(deps, "s", "k", "h1") is None
    with deps.uow() as uow:
        request = IdempotentRequest(scope="s", key="k", request_hash="h1", answer=lambda body: (201, body))
        idempotency.remember_in(uow, request, b"{}", deps.clock.now())
        uow.commit()
    record = idempotency.replay(deps, "s", "k", "h1")
    assert record is not None
    assert record.status_code == 201
    with pytest.raises(IdempotencyConflict):
        idempotency.replay(deps, "s", "k", "h2")


def test_a_booking_stores_its_idempotent_answer_in_its_own_transaction(deps: Deps) -> None:
    anna = user_actor(deps)

    def request(key: str) -> IdempotentRequest[bookings.BookingView]:
        return IdempotentRequest(
            scope="s", key=key, request_hash="h", answer=lambda view: (201, view.booking.id.encode())
        )

    cmd = bookings.NewBooking(resource_id=1, start=at(4, 10), end=at(4, 11))
    view = bookings.create_booking(deps, anna, cmd, idempotency=request("first"))
    stored = idempotency.replay(deps, "s", "first", "h")
    assert stored is not None
    assert (stored.status_code, stored.body) == (201, view.booking.id.encode())
    with pytest.raises(SlotUnavailable):  # refused: neither a booking nor an answer is stored
        bookings.create_booking(deps, anna, cmd, idempotency=request("second"))
    assert idempotency.replay(deps, "s", "second", "h") is None


def test_racing_bookings_one_wins(deps: Deps) -> None:
    anna = user_actor(deps)
    outcomes: list[str] = []

    def attempt() -> None:
        try:
            book(deps, anna, at(4, 10))
            outcomes.append("ok")
        except (SlotUnavailable, ValidationFailed):
            outcomes.append("refused")

    threads = [threading.Thread(target=attempt) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["ok"] + ["refused"] * 19


def test_lapsed_hold_reads_as_expired_before_the_sweep(deps: Deps, clock: FixedClock) -> None:
    anna = user_actor(deps)
    view = book(deps, anna, at(2, 10))
    clock.advance(timedelta(minutes=30))
    shown = bookings.get_booking(deps, anna, view.booking.id)
    assert shown.booking.status is BookingStatus.CANCELLED
    assert shown.booking.cancelled_at == view.booking.hold_expires_at
    assert not shown.can_cancel
    assert not shown.is_upcoming
    with pytest.raises(InvalidTransition, match="hold of this booking has expired"):
        payments.create_payment_intent(deps, anna, view.booking.id)
    assert operator.expire_holds(deps) == 1
    stored = bookings.get_booking(deps, anna, view.booking.id).booking
    assert stored.cancelled_at == view.booking.hold_expires_at


def _templates(store: InMemoryStore) -> set[str]:
    """The email templates in the outbox, each of which must be there once only."""
    templates = [entry.template for entry in store.tables.outbox.values()]
    assert len(templates) == len(set(templates))
    return set(templates)
