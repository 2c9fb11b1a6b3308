"""The storage's side of "one change of a booking at a time": the booking lock, refund requests,
conflicts that are retried, and errors that never name the database's internals."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal
from types import SimpleNamespace

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError, OperationalError

from adapters.sqla.errors import translate
from booking_core.booking import BookingStatus
from booking_core.errors import BadRequest, StorageUnavailable, TransientConflict
from booking_core.payments import Payment, PaymentStatus, RefundRequest
from booking_core.usecases.retry import retried
from tests.integration.test_repositories import (
    Backend,
    backend,
    db_backend,
    db_world,
    world,
)
from tests.support.bookings import NOW
from tests.support.bookings import add_bookings as _add
from tests.support.bookings import make_booking as _booking

__all__ = ["backend", "db_backend", "db_world", "world"]


def test_lock_for_change_waits_for_the_holder_and_reads_what_it_stored(db_world: Backend) -> None:
    booking = _booking("10:00", "11:00", status=BookingStatus.PENDING)
    _add(db_world, booking)
    held, seen = threading.Event(), []

    def holder() -> None:
        with db_world.uow() as uow:
            locked = uow.bookings.lock_for_change(booking.id)
            assert locked is not None
            held.set()
            time.sleep(0.4)
            uow.bookings.save(locked.cancel(NOW))
            uow.commit()

    def waiter() -> None:
        held.wait()
        began = time.monotonic()
        with db_world.uow() as uow:
            uow.bookings.get(booking.id)  # read before the lock: the lock must read again anyway
            locked = uow.bookings.lock_for_change(booking.id)
            seen.append((locked.status if locked else None, time.monotonic() - began))

    threads = [threading.Thread(target=holder), threading.Thread(target=waiter)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    status, waited = seen[0]
    assert status is BookingStatus.CANCELLED
    assert waited >= 0.2


def test_every_change_waits_for_a_booking_being_made_under_the_resource_lock(db_world: Backend) -> None:
    """The resource comes first on every path (``UnitOfWork``'s lock order): a change of a booking
    waits while a booking of its resource is being made under the resource's lock, whether it takes
    the resource exclusively (a provider event) or shared (a cancel). Opening a payment intent, which
    changes no booking, locks the booking alone and does not wait."""
    if db_world.name == "sqlite":
        pytest.skip("SQLite: BEGIN IMMEDIATE already serializes every writer")
    booking = _booking("10:00", "11:00", status=BookingStatus.PENDING)
    _add(db_world, booking)
    held, paying = threading.Event(), threading.Event()
    waited: dict[str, bool] = {}

    def holder() -> None:
        with db_world.uow() as uow:
            uow.resources.lock(booking.resource_id)  # as booking creation under the gap rule does
            held.set()
            _until_waiting(db_world, 2)
            paying.wait(timeout=30)
            waited["holder"] = True

    def locker(name: str) -> None:
        held.wait()
        with db_world.uow() as uow:
            if name == "payment intent":
                uow.bookings.lock_for_payment(booking.id)
            else:
                uow.bookings.lock_for_change(booking.id, resource_first=name == "provider event")
            waited[name] = "holder" in waited
        if name == "payment intent":
            paying.set()

    names = ("provider event", "cancel", "payment intent")
    threads = [threading.Thread(target=holder)] + [threading.Thread(target=locker, args=(n,)) for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert waited == {"holder": True, "provider event": True, "cancel": True, "payment intent": False}


def test_changes_of_bookings_of_one_resource_do_not_wait_for_each_other(db_world: Backend) -> None:
    """The shared resource lock of a change lets other changes of the resource's bookings through."""
    one, two = _booking("10:00", "11:00"), _booking("12:00", "13:00")
    _add(db_world, one)
    if db_world.name == "sqlite":
        pytest.skip("SQLite: BEGIN IMMEDIATE serializes every writer")
    both_locked = threading.Barrier(2)
    locked: list[str] = []

    def change(booking_id: str) -> None:
        with db_world.uow() as uow:
            assert uow.bookings.lock_for_change(booking_id) is not None
            both_locked.wait(timeout=30)  # each holds its lock while the other takes its own
            locked.append(booking_id)

    def make() -> None:
        with db_world.uow() as uow:
            uow.bookings.add(two)  # as booking creation without the gap rule: no lock before it
            both_locked.wait(timeout=30)
            locked.append(two.id)
            uow.commit()

    threads = [threading.Thread(target=change, args=(one.id,)), threading.Thread(target=make)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(locked) == sorted([one.id, two.id])


def test_a_cancel_and_a_late_payment_of_one_booking_wait_in_turn_without_deadlock(db_world: Backend) -> None:
    """Issue 24: a change of a booking whose connection had not counted a change of the resource's
    bookings yet inserts its counter row (the trigger's foreign-key check takes the resource in KEY
    SHARE); had it locked the booking before the resource, a provider event holding the resource and
    waiting for the booking would close a cycle, and PostgreSQL would abort one of them."""
    if db_world.name == "sqlite":
        pytest.skip("SQLite: BEGIN IMMEDIATE serializes writers, so they cannot deadlock")
    booking = _booking("10:00", "11:00", status=BookingStatus.PENDING)
    _add(db_world, booking)
    assert db_world.engine is not None
    with db_world.engine.begin() as db:  # no counter row yet: the cancel below inserts its own
        db.execute(text("DELETE FROM booking_revisions"))
    locked = threading.Event()
    errors: list[BaseException] = []

    def cancel() -> None:
        with db_world.uow() as uow:
            found = uow.bookings.lock_for_change(booking.id)
            assert found is not None
            locked.set()
            _until_waiting(db_world, 1)  # the provider event waits for this unit of work now
            uow.bookings.save(found.cancel(NOW))
            uow.commit()

    def payment() -> None:
        locked.wait()
        with db_world.uow() as uow:
            uow.bookings.lock_for_change(booking.id, resource_first=True)
            uow.commit()

    def run(step: Callable[[], None]) -> None:
        try:
            step()
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(step,)) for step in (cancel, payment)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def _until_waiting(backend: Backend, count: int, at_most_s: float = 30) -> None:
    """Return once ``count`` sessions of the test's database wait for a lock (or ``at_most_s`` passed,
    so that a test of a lock nobody waits for fails instead of hanging)."""
    assert backend.engine is not None
    waiting = text(
        "SELECT count(*) FROM pg_stat_activity"
        " WHERE datname = current_database() AND wait_event_type = 'Lock'"
    )
    give_up = time.monotonic() + at_most_s
    with backend.engine.connect() as db:
        while db.execute(waiting).scalar_one() < count and time.monotonic() < give_up:
            db.execute(text("SELECT pg_sleep(0.02)"))


def test_a_booking_in_flight_holds_off_a_late_payments_resource_lock(db_world: Backend) -> None:
    """A booking of a resource without the gap rule does not lock it (``Neighbourhood.serialized``),
    but its INSERT's foreign-key check holds the resource's row in KEY SHARE until it commits: a late
    payment, locking the resource first, waits for it and then sees the new booking."""
    if db_world.name == "sqlite":
        pytest.skip("SQLite: BEGIN IMMEDIATE already serializes every writer")
    late = _booking("10:00", "11:00", status=BookingStatus.PENDING)
    _add(db_world, late)
    newcomer = _booking("12:00", "13:00", status=BookingStatus.PENDING)
    inserted, waited = threading.Event(), {}

    def booker() -> None:
        with db_world.uow() as uow:
            uow.bookings.add(newcomer)  # as booking creation does, with no lock before it
            inserted.set()
            time.sleep(0.4)
            uow.commit()

    def payment() -> None:
        inserted.wait()
        began = time.monotonic()
        with db_world.uow() as uow:
            uow.bookings.lock_for_change(late.id, resource_first=True)
            waited["s"] = time.monotonic() - began
            waited["seen"] = uow.bookings.get(newcomer.id) is not None

    threads = [threading.Thread(target=booker), threading.Thread(target=payment)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert waited["s"] >= 0.2
    assert waited["seen"]


def test_a_deadlock_is_retried_until_both_succeed(db_world: Backend) -> None:
    if db_world.name == "sqlite":
        pytest.skip("SQLite: BEGIN IMMEDIATE serializes writers, so they cannot deadlock")
    one, two = _booking("10:00", "11:00"), _booking("12:00", "13:00")
    _add(db_world, one, two)
    both_hold_one = threading.Barrier(2)
    attempts: list[str] = []

    def crossing(first: str, second: str) -> None:
        with db_world.uow() as uow:
            attempts.append(first)
            uow.bookings.lock_for_change(first)
            if len(attempts) <= 2:  # the first round: each holds one lock, then asks for the other's
                both_hold_one.wait(timeout=10)
            uow.bookings.lock_for_change(second)
            uow.commit()

    with pytest.raises(TransientConflict):  # unretried, the database aborts one of them
        _race(crossing, one.id, two.id)
    attempts.clear()
    both_hold_one.reset()
    _race(retried(crossing), one.id, two.id)
    assert len(attempts) >= 3


def _race(crossing: object, a: str, b: str) -> None:
    errors: list[BaseException] = []

    def run(first: str, second: str) -> None:
        try:
            crossing(first, second)  # type: ignore[operator]
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=pair) for pair in ((a, b), (b, a))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def _payment(booking_id: str, payment_id: str = "p-1") -> Payment:
    return Payment(
        id=payment_id,
        booking_id=booking_id,
        provider="sandbox",
        payment_intent_id=f"pi_{payment_id}",
        client_secret="secret",
        amount=Decimal("40.00"),
        currency="EUR",
        created_at=NOW,
    )


def test_refund_requests_one_per_payment_claimed_once_sent_again_until_accepted(world: Backend) -> None:
    booking = _booking("10:00", "11:00")
    _add(world, booking)
    request = RefundRequest(
        payment_id="p-1",
        booking_id=booking.id,
        payment_intent_id="pi_p-1",
        idempotency_key="k",
        requested_at=NOW,
        next_attempt_at=NOW,
    )
    with world.uow() as uow:
        uow.payments.add(_payment(booking.id))
        assert uow.refunds.add(request) is True
        assert uow.refunds.add(replace(request, idempotency_key="other")) is False
        uow.commit()
    lease = NOW + timedelta(minutes=2)
    with world.uow() as uow:
        assert uow.refunds.due(NOW) == [request]
        assert uow.refunds.claim("p-1", NOW, lease) is True
        assert uow.refunds.claim("p-1", NOW, lease) is False  # taken: nobody else sends it now
        uow.commit()
    with world.uow() as uow:
        assert uow.refunds.due(NOW) == []
        uow.refunds.failed("p-1", "provider down", NOW + timedelta(seconds=30))
        uow.commit()
    with world.uow() as uow:
        assert uow.refunds.get("p-1") == replace(
            request, attempts=1, last_error="provider down", next_attempt_at=NOW + timedelta(seconds=30)
        )
        assert [r.payment_id for r in uow.refunds.due(NOW + timedelta(minutes=1))] == ["p-1"]
        uow.refunds.accepted("p-1", "re_1", NOW + timedelta(minutes=1))
        uow.refunds.accepted("p-1", None, NOW + timedelta(minutes=2))  # a later report changes nothing
        uow.commit()
    with world.uow() as uow:
        found = uow.refunds.get("p-1")
        assert found is not None
        assert (found.accepted_at, found.provider_refund_id) == (NOW + timedelta(minutes=1), "re_1")
        assert uow.refunds.due(NOW + timedelta(days=1)) == []
        assert uow.refunds.claim("p-1", NOW + timedelta(days=1), lease) is False


def test_a_refund_of_part_of_a_payment_keeps_its_amount(world: Backend) -> None:
    booking = _booking("10:00", "11:00")
    _add(world, booking)
    payment = replace(
        _payment(booking.id), status=PaymentStatus.REFUND_PENDING, refund_asked=Decimal("12.50")
    )
    request = RefundRequest(
        payment_id="p-1",
        booking_id=booking.id,
        payment_intent_id="pi_p-1",
        idempotency_key="k",
        amount=Decimal("12.50"),
        requested_at=NOW,
        next_attempt_at=NOW,
    )
    with world.uow() as uow:
        uow.payments.add(payment)
        assert uow.refunds.add(request) is True
        uow.commit()
    with world.uow() as uow:
        assert uow.refunds.get("p-1") == request
        assert uow.refunds.due(NOW) == [request]
        assert uow.payments.by_intent("pi_p-1") == payment
        uow.payments.save(replace(payment, status=PaymentStatus.REFUNDED, refunded_amount=Decimal("12.50")))
        uow.commit()
    with world.uow() as uow:
        stored = uow.payments.by_intent("pi_p-1")
        assert stored is not None
        assert (stored.refund_asked, stored.refunded_amount, stored.kept_amount) == (
            Decimal("12.50"),
            Decimal("12.50"),
            Decimal("27.50"),
        )


def test_a_constraint_violation_names_no_constraint_or_column(db_world: Backend) -> None:
    booking = _booking("10:00", "11:00")
    _add(db_world, booking)
    with db_world.uow() as uow:
        uow.payments.add(_payment(booking.id))
        uow.commit()
    with db_world.uow() as uow, pytest.raises(BadRequest) as refused:
        uow.payments.add(replace(_payment(booking.id), id="p-2"))  # the same intent id
    assert "payment" not in refused.value.message
    assert "uq_" not in refused.value.message


def test_deadlocks_and_serialization_failures_are_transient_a_lock_timeout_is_not() -> None:
    def orig(**attributes: object) -> Exception:
        error = Exception("database says no")
        error.__dict__.update(attributes)
        return error

    for sqlstate in ("40P01", "40001"):
        assert isinstance(translate(OperationalError("x", {}, orig(sqlstate=sqlstate))), TransientConflict)
    snapshot = orig(sqlite_errorcode=517)  # SQLITE_BUSY_SNAPSHOT: a stale read, at once
    assert isinstance(translate(OperationalError("x", {}, snapshot)), TransientConflict)
    # waited BOOKING_DB_LOCK_TIMEOUT_MS for a lock: 503 at once, not run again (and waited for again)
    for timed_out in (orig(sqlstate="55P03"), orig(sqlite_errorcode=5)):
        unavailable = translate(OperationalError("x", {}, timed_out))
        assert isinstance(unavailable, StorageUnavailable)
        assert not isinstance(unavailable, TransientConflict)
    named = orig(sqlstate="23505", diag=SimpleNamespace(constraint_name="uq_payments_payment_intent_id"))
    refused = translate(IntegrityError("x", {}, named))
    assert isinstance(refused, BadRequest)
    assert "uq_" not in refused.message
    gone = translate(OperationalError("x", {}, orig(sqlstate="08006")))
    assert gone is not None
    assert not isinstance(gone, TransientConflict)
