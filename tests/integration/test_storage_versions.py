"""Storage versions and read paths: booking revisions (migration 0003), ``AvailabilityReads.version``,
``Bookings.claim`` and read-only units of work, on SQLite and PostgreSQL (and, where the
contract is shared, on the in-memory fake).
"""

from __future__ import annotations

import sqlite3
import threading
import time as clock
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, cast

import pytest
from sqlalchemy import Connection, Engine, event, insert, select, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from adapters.sqla import SqlaUnitOfWork, make_engine
from adapters.sqla import upgrade as migrate_up
from adapters.sqla.engine import ReadOnlyViolation
from adapters.sqla.models import BookingRow, ResourceRow
from adapters.sqla.repositories.bookings import booking_values
from adapters.sqla.repositories.bookings.postgres import CLAIM
from booking_core.accounts import Principal, User
from booking_core.availability import BookedSlot
from booking_core.booking import Booking, BookingStatus
from booking_core.catalog import Resource
from booking_core.claims import ClaimCheck, Neighbourhood
from booking_core.errors import SlotUnavailable, TooManyUnpaid
from booking_core.memory import InMemoryStore
from booking_core.ports import UnitOfWork
from booking_core.timerange import TimeRange
from tests.support.bookings import DAY, NOW, USER_ID
from tests.support.bookings import add_bookings as _add
from tests.support.bookings import at as _at
from tests.support.bookings import make_booking as _booking
from tests.support.seed import demo_resource, seed

#: Generous: a reader that waited for the writer would wait for SQLite's 30 s busy timeout.
READER_DEADLINE_S = 2.0
#: How long a queued second writer is watched to show that it waits (it must not finish).
WAITING_S = 0.2


@dataclass
class Backend:
    """A storage implementation: its writing and read-only units of work and how to seed it."""

    name: str
    uow: Callable[[], UnitOfWork]
    reads: Callable[[], UnitOfWork]
    add_resource: Callable[[Resource], None]
    engine: Engine | None = None

    @property
    def db(self) -> Engine:
        """The engine of a real database (not the fake)."""
        assert self.engine is not None, "a database backend was expected"
        return self.engine


def _sql_backend(name: str, url: str, **engine_options: Any) -> Iterator[Backend]:
    migrate_up(url)
    engine = make_engine(url, **engine_options)
    writes, reads = SqlaUnitOfWork.factories(engine)
    try:
        yield Backend(name, writes, reads, lambda resource: seed(engine, resource), engine)
    finally:
        engine.dispose()


def _backend(request: pytest.FixtureRequest, **engine_options: Any) -> Iterator[Backend]:
    if request.param == "memory":
        store = InMemoryStore()
        # cast: the UnitOfWork protocol's mutable attributes are invariant, so mypy refuses the fake's.
        uow = cast("Callable[[], UnitOfWork]", store.uow)
        yield Backend("memory", uow, uow, store.add_resource)
        return
    fixture = "sqlite_url" if request.param == "sqlite" else "postgres_url"
    yield from _sql_backend(request.param, request.getfixturevalue(fixture), **engine_options)


_PG = pytest.param("postgresql", marks=pytest.mark.postgres)


@pytest.fixture(params=["memory", "sqlite", _PG])
def world(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """Every implementation, seeded with two resources and a user."""
    for backend in _backend(request):
        yield _seed_world(backend)


@pytest.fixture(params=["sqlite", _PG])
def db_world(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """The real databases, seeded with two resources and a user."""
    for backend in _backend(request):
        yield _seed_world(backend)


@pytest.fixture(params=["sqlite", _PG])
def single_connection_world(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """The real databases with a pool of exactly one connection, which every unit of work reuses."""
    for backend in _backend(request, pool_size=1, max_overflow=0):
        yield _seed_world(backend)


@pytest.fixture
def pg_world(postgres_url: str) -> Iterator[Backend]:
    """PostgreSQL only (autocommit readers)."""
    for backend in _sql_backend("postgresql", postgres_url):
        yield _seed_world(backend)


def _seed_world(backend: Backend) -> Backend:
    backend.add_resource(demo_resource())
    backend.add_resource(demo_resource(id=2, name="Court 2", activity_types=()))
    with backend.uow() as uow:
        uow.users.add(
            User(id=USER_ID, email="anna@example.com", first_name="Anna", last_name="Schmidt", created_at=NOW)
        )
        uow.commit()
    return backend


def _slot(booking: Booking, hold: datetime | None = None) -> BookedSlot:
    return BookedSlot(start=booking.start, end=booking.end, booking_id=booking.id, hold_expires_at=hold)


def _ids(slots: Sequence[BookedSlot]) -> list[str]:
    return [slot.booking_id for slot in slots]


def _raw(engine: Engine, sql: str, **params: Any) -> int:
    """An operator's SQL, committed, outside the ORM and the repositories; returns the row count."""
    with engine.begin() as connection:
        return connection.execute(text(sql), params).rowcount


def _revision(engine: Engine, resource_id: int) -> int | None:
    """The resource's booking revision: the sum of its counter rows (None without a row)."""
    with engine.connect() as connection:
        found = connection.execute(
            text("SELECT sum(revision) FROM booking_revisions WHERE resource_id = :resource_id"),
            {"resource_id": resource_id},
        ).scalar_one()
        return None if found is None else int(found)


def _connections_on_two_shards(engine: Engine) -> tuple[Connection, Connection]:
    """Two PostgreSQL connections whose process ids fall in different counter shards (of 16)."""
    opened: list[Connection] = []
    shards: list[int] = []
    while len(opened) < 10:
        connection = engine.connect()
        opened.append(connection)
        shards.append(connection.execute(text("SELECT pg_backend_pid() % 16")).scalar_one())
        connection.rollback()
        if shards[-1] != shards[0]:
            for spare in opened[1:-1]:
                spare.close()
            return opened[0], opened[-1]
    raise AssertionError(f"ten connections, all in shard {shards[0]}")


def _catalog_revision(engine: Engine) -> int:
    with engine.connect() as connection:
        found: int = connection.execute(
            text("SELECT revision FROM catalog_revision WHERE id = 1")
        ).scalar_one()
        return found


def _version(backend: Backend, resource_id: int = 1) -> tuple[int, ...] | None:
    with backend.reads() as uow:
        return uow.availability.version(resource_id)


# --------------------------------------------------------------------------- 1. booking revisions


def test_triggers_move_the_booking_revision_on_every_insert_update_and_delete(db_world: Backend) -> None:
    engine = db_world.db
    assert (_revision(engine, 1), _revision(engine, 2)) == (None, None)  # no row before the first booking

    booking = _booking("10:00", "11:00")
    _add(db_world, booking)
    assert (_revision(engine, 1), _revision(engine, 2)) == (1, None)

    # An operator's plain SQL, not the ORM: the trigger still moves the counter.
    assert _raw(engine, "UPDATE bookings SET notes = 'x' WHERE id = :id", id=booking.id) == 1
    assert (_revision(engine, 1), _revision(engine, 2)) == (2, None)

    # A statement that changes no row moves nothing.
    assert _raw(engine, "UPDATE bookings SET notes = 'y' WHERE id = 'no-such-booking'") == 0
    assert _revision(engine, 1) == 2

    # The repository's ORM update (save) moves it as well.
    with db_world.uow() as uow:
        uow.bookings.save(booking.cancel(NOW))
        uow.commit()
    assert _revision(engine, 1) == 3

    assert _raw(engine, "DELETE FROM bookings WHERE id = :id", id=booking.id) == 1
    assert (_revision(engine, 1), _revision(engine, 2)) == (4, None)

    # Another resource's bookings move only that resource's counter.
    other = _booking("10:00", "11:00", resource_id=2)
    _add(db_world, other)
    assert (_revision(engine, 1), _revision(engine, 2)) == (4, 1)


def test_a_rolled_back_change_leaves_the_revision_and_a_move_bumps_both_resources(db_world: Backend) -> None:
    engine = db_world.db
    booking = _booking("10:00", "11:00")
    _add(db_world, booking)
    assert _revision(engine, 1) == 1

    with db_world.uow() as uow:
        uow.bookings.add(_booking("12:00", "13:00"))
        version = uow.availability.version(1)
        assert version is not None
        assert version[1] == 2  # the trigger ran inside the transaction...
    # ...and was rolled back with it.
    assert (_revision(engine, 1), _revision(engine, 2)) == (1, None)

    # Moving a booking to another resource changes the availability of both.
    assert _raw(engine, "UPDATE bookings SET resource_id = 2 WHERE id = :id", id=booking.id) == 1
    assert (_revision(engine, 1), _revision(engine, 2)) == (2, 1)


def test_concurrent_changes_to_one_resource_do_not_wait_for_each_other(pg_world: Backend) -> None:
    """Migration 0010: each connection counts in its own row, so a second booking of the resource
    does not wait for the first one's commit (with one counter row it did, and here timed out)."""
    engine = pg_world.db
    first, second = _connections_on_two_shards(engine)
    bookings = BookingRow.__table__
    try:
        with first.begin(), second.begin():
            first.execute(insert(bookings).values(booking_values(_booking("10:00", "11:00"))))
            second.execute(text("SET LOCAL lock_timeout = '2s'"))
            second.execute(insert(bookings).values(booking_values(_booking("12:00", "13:00"))))
    finally:
        first.close()
        second.close()
    assert _revision(engine, 1) == 2
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT count(*) FROM booking_revisions WHERE resource_id = 1"))
        assert rows.scalar_one() == 2


# --------------------------------------------------------------------------- 2. data_version


def test_data_version_of_a_resource_without_bookings(db_world: Backend) -> None:
    catalog = _catalog_revision(db_world.db)
    assert catalog > 0  # seeding the catalog through the ORM moved it
    assert _version(db_world, 1) == (catalog, 0)
    assert _version(db_world, 2) == (catalog, 0)
    with db_world.uow() as uow:  # a writing unit of work reads the same
        assert uow.availability.version(1) == (catalog, 0)


def test_data_version_changes_with_the_resources_bookings_and_the_catalog(db_world: Backend) -> None:
    engine = db_world.db
    first = _version(db_world, 1)
    assert first is not None
    assert _version(db_world, 1) == first  # nothing changed

    # Only another resource's bookings change: resource 1's version stays.
    other = _booking("10:00", "11:00", resource_id=2)
    _add(db_world, other)
    assert _version(db_world, 1) == first
    assert _version(db_world, 2) != first
    _raw(engine, "UPDATE bookings SET notes = 'x' WHERE id = :id", id=other.id)
    assert _version(db_world, 1) == first

    # A booking of the resource is added.
    booking = _booking("10:00", "11:00")
    _add(db_world, booking)
    after_add = _version(db_world, 1)
    assert after_add is not None
    assert after_add != first
    assert after_add == (first[0], 1)  # same catalog, one booking change

    # A rolled-back unit of work changes nothing.
    with db_world.uow() as uow:
        uow.bookings.add(_booking("12:00", "13:00"))
    assert _version(db_world, 1) == after_add

    # A booking of the resource is changed: by the repository, then by raw SQL.
    with db_world.uow() as uow:
        uow.bookings.save(booking.cancel(NOW))
        uow.commit()
    after_save = _version(db_world, 1)
    assert after_save not in (first, after_add)
    _raw(engine, "UPDATE bookings SET notes = 'x' WHERE id = :id", id=booking.id)
    after_sql = _version(db_world, 1)
    assert after_sql not in (first, after_add, after_save)

    # The catalog changes: another resource is added, then this one is edited through the ORM.
    seed(engine, demo_resource(id=3, name="Court 3", activity_types=()))
    after_catalog = _version(db_world, 1)
    assert after_catalog is not None
    assert after_sql is not None
    assert after_catalog[0] > after_sql[0]
    assert after_catalog != after_sql
    with Session(engine) as session, session.begin():
        session.scalars(select(ResourceRow).where(ResourceRow.id == 1)).one().base_price = Decimal("25.00")
    after_edit = _version(db_world, 1)
    assert after_edit != after_catalog
    assert _version(db_world, 1) == after_edit  # and it is stable again


# --------------------------------------------------------------------------- 3. claim


@dataclass(frozen=True)
class _CheckWorld:
    """Bookings of resource 1 around the span 10:00-14:00 of ``DAY``, and of resource 2."""

    span: TimeRange
    # Resource 1, blocking inside the span, in start order.
    confirmed: Booking
    held: Booking
    paid: Booking
    open_hold: Booking
    paid_with_stale_hold: Booking
    # Resource 1, pending with a lapsed hold: in the span, tomorrow, in the past.
    lapsed_in_span: Booking
    lapsed_tomorrow: Booking
    lapsed_in_the_past: Booking
    # Resource 1, blocking outside the span.
    before: Booking
    after: Booking
    confirmed_with_stale_hold: Booking
    live_hold_later: Booking
    # Resource 1, never blocking, never a lapsed hold.
    cancelled: Booking
    refunded: Booking
    cancelled_with_stale_hold: Booking
    # Resource 2.
    other_lapsed: Booking
    other_confirmed: Booking

    def bookings(self) -> list[Booking]:
        return [value for value in vars(self).values() if isinstance(value, Booking)]


def _check_world(backend: Backend) -> _CheckWorld:
    hour_ago = NOW - timedelta(hours=1)
    tomorrow = DAY + timedelta(days=1)
    world = _CheckWorld(
        span=TimeRange(_at("10:00"), _at("14:00")),
        confirmed=_booking("09:00", "10:30"),
        held=_booking(
            "11:00", "11:30", status=BookingStatus.PENDING, hold_expires_at=NOW + timedelta(minutes=1)
        ),
        paid=_booking("11:30", "12:30", status=BookingStatus.PAID),
        open_hold=_booking("12:30", "13:00", status=BookingStatus.PENDING, hold_expires_at=None),
        # Paid after a hold and kept its hold_expires_at: it blocks for good, so its slot has no hold.
        paid_with_stale_hold=_booking(
            "13:30", "14:30", status=BookingStatus.PAID, hold_expires_at=NOW - timedelta(minutes=1)
        ),
        lapsed_in_span=_booking("10:30", "11:00", status=BookingStatus.PENDING, hold_expires_at=NOW),
        lapsed_tomorrow=_booking(
            _at("10:00", tomorrow),
            _at("11:00", tomorrow),
            status=BookingStatus.PENDING,
            hold_expires_at=NOW - timedelta(days=1),
        ),
        lapsed_in_the_past=_booking(
            NOW - timedelta(hours=2), hour_ago, status=BookingStatus.PENDING, hold_expires_at=hour_ago
        ),
        before=_booking("08:00", "09:00"),
        after=_booking("14:30", "15:30"),  # 14:00, the span's end, is inside paid_with_stale_hold
        confirmed_with_stale_hold=_booking("17:00", "18:00", hold_expires_at=hour_ago),
        live_hold_later=_booking(
            "18:00", "19:00", status=BookingStatus.PENDING, hold_expires_at=NOW + timedelta(hours=1)
        ),
        cancelled=_booking("10:00", "14:00", status=BookingStatus.CANCELLED, cancelled_at=NOW),
        refunded=_booking("10:00", "14:00", status=BookingStatus.REFUNDED),
        cancelled_with_stale_hold=_booking(
            "10:00", "14:00", status=BookingStatus.CANCELLED, hold_expires_at=hour_ago
        ),
        other_lapsed=_booking(
            "10:00", "11:00", resource_id=2, status=BookingStatus.PENDING, hold_expires_at=hour_ago
        ),
        other_confirmed=_booking("11:00", "13:00", resource_id=2),
    )
    _add(backend, *world.bookings())
    return world


def _claim(
    uow: UnitOfWork, booking: Booking, near: TimeRange, *, now: datetime = NOW, serialized: bool = False
) -> ClaimCheck:
    """Claim ``booking`` with ``near`` as its neighbourhood, accepting whatever it finds; what it found."""
    found: list[ClaimCheck] = []
    uow.bookings.claim(booking, Neighbourhood(span=near, serialized=serialized), found.append, now=now)
    return found[0]


def _pending(start: str, end: str) -> Booking:
    return _booking(start, end, status=BookingStatus.PENDING, hold_expires_at=NOW + timedelta(minutes=15))


@pytest.mark.parametrize("serialized", [False, True])
def test_a_claim_shows_the_blocking_neighbours_and_expires_the_lapsed_holds_in_its_way(
    world: Backend, serialized: bool
) -> None:
    w = _check_world(world)
    newcomer = _pending("10:30", "11:00")  # exactly the lapsed hold's time
    with world.uow() as uow:
        check = _claim(uow, newcomer, w.span, serialized=serialized)
        uow.commit()
    with world.reads() as uow:
        blocked = uow.bookings.blocked_slots(1, w.span, NOW)
        lapsed = [uow.bookings.get(b.id) for b in (w.lapsed_in_span, w.lapsed_tomorrow, w.other_lapsed)]

    neighbours = [
        _slot(w.confirmed),
        _slot(w.held, NOW + timedelta(minutes=1)),
        _slot(w.paid),
        _slot(w.open_hold),
        _slot(w.paid_with_stale_hold),
    ]
    assert check.blocking == neighbours
    assert blocked == sorted([*neighbours, _slot(newcomer, newcomer.hold_expires_at)], key=lambda s: s.start)
    # all of the resource's lapsed holds are expired (the query is the same); other resources' are not
    assert [b.status if b else None for b in lapsed] == [
        BookingStatus.CANCELLED,
        BookingStatus.CANCELLED,
        BookingStatus.PENDING,
    ]
    assert check.unpaid_holds == 3  # held, open_hold, live_hold_later: the live holds of the user


def test_a_claim_at_the_instant_a_hold_lapses(world: Backend) -> None:
    w = _check_world(world)
    lapse = NOW + timedelta(minutes=1)  # the held booking's hold_expires_at
    with world.uow() as uow, pytest.raises(SlotUnavailable):
        _claim(uow, _pending("11:00", "11:30"), w.held.span, now=lapse - timedelta(microseconds=1))
    with world.uow() as uow:
        at_lapse = _claim(uow, _pending("11:00", "11:30"), w.held.span, now=lapse)
        uow.commit()
    assert at_lapse.blocking == []  # nothing blocks the held booking's time any more
    with world.reads() as uow:
        held = uow.bookings.get(w.held.id)
    assert held is not None
    assert held.status is BookingStatus.CANCELLED


def test_a_claim_stores_only_a_booking_whose_time_is_free_whatever_accept_says(world: Backend) -> None:
    neighbour, taken = _booking("09:00", "10:00"), _booking("15:00", "16:00")
    _add(world, neighbour, taken)
    free, over_taken = _pending("10:00", "11:00"), _pending("15:30", "16:30")
    with world.uow() as uow:
        check = _claim(uow, free, TimeRange(_at("09:00"), _at("12:00")))
        uow.commit()
    with world.uow() as uow, pytest.raises(SlotUnavailable):
        _claim(uow, over_taken, TimeRange(_at("15:30"), _at("16:30")))
    assert check.blocking == [_slot(neighbour)]  # 10:00 touches: near, not in the way
    with world.reads() as uow:
        assert uow.bookings.get(free.id) == free
        assert uow.bookings.get(over_taken.id) is None


def test_a_claim_is_undone_with_its_unit_of_work_and_by_a_refusal(world: Backend) -> None:
    """A claim without commit leaves nothing; the refusal ``accept`` raises comes out as it is."""
    booking = _pending("10:00", "11:00")
    with world.uow() as uow:
        assert _claim(uow, booking, booking.span).blocking == []

    def refuse(_: ClaimCheck) -> None:
        raise TooManyUnpaid()

    with world.uow() as uow, pytest.raises(TooManyUnpaid):
        uow.bookings.claim(booking, Neighbourhood(span=booking.span, serialized=True), refuse, now=NOW)
    with world.reads() as uow:
        assert uow.bookings.get(booking.id) is None


def test_a_claim_counts_only_the_unpaid_holds_of_a_pending_bookings_user(world: Backend) -> None:
    _add(
        world,
        _pending("08:00", "09:00"),
        _booking("09:00", "10:00", status=BookingStatus.PENDING, hold_expires_at=None),
        _booking("10:00", "11:00", status=BookingStatus.PENDING, hold_expires_at=NOW),  # lapsed
        _booking("11:00", "12:00", status=BookingStatus.PAID),
    )
    with world.uow() as uow:
        pending = _claim(uow, _pending("14:00", "15:00"), TimeRange(_at("14:00"), _at("15:00")))
        confirmed = _claim(uow, _booking("16:00", "17:00"), TimeRange(_at("16:00"), _at("17:00")))
    assert (pending.unpaid_holds, confirmed.unpaid_holds) == (2, 0)


def _rows_read(plan: dict[str, Any]) -> int:
    """Rows the scans of an EXPLAIN ANALYZE plan produced or threw away."""
    own = sum(int(plan.get(key, 0)) for key in ("Actual Rows", "Rows Removed by Filter"))
    own = own if "Scan" in plan["Node Type"] and "Bitmap Index" not in plan["Node Type"] else 0
    return own + sum(_rows_read(child) for child in plan.get("Plans", []))


def test_postgres_claim_does_not_read_the_resources_other_bookings(pg_world: Backend) -> None:
    """The claim's check answers from indexes, whatever the resource's history: its cost must not
    grow with it. (The count of a holder's unpaid holds reads that user's bookings: left out here.)"""
    engine = pg_world.db
    span = TimeRange(_at("10:00"), _at("12:00"))
    # 600 live bookings of resource 1 before and after the span, none near it, no lapsed hold anywhere
    history = [
        _booking(span.start - timedelta(hours=2 * n + 3), span.start - timedelta(hours=2 * n + 2))
        for n in range(300)
    ] + [
        _booking(
            NOW + timedelta(days=90, hours=2 * n),
            NOW + timedelta(days=90, hours=2 * n + 1),
            status=BookingStatus.PENDING,
            hold_expires_at=NOW + timedelta(hours=1),
        )
        for n in range(300)
    ]
    _add(pg_world, *history)
    _raw(engine, "ANALYZE bookings")  # as autovacuum keeps it; with no statistics any plan may win
    booking = _pending("10:00", "12:00")
    params = {**booking_values(booking), "start": span.start, "end": span.end, "now": NOW, "holder": None}
    with engine.connect() as connection:  # rolled back on close: the EXPLAIN's INSERT is undone
        cursor = cast("Any", connection.connection.driver_connection).cursor()
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {CLAIM.sql}", CLAIM.params(params))
        plan = cursor.fetchone()[0][0]["Plan"]
    assert _rows_read(plan) <= 5, plan


def test_blocked_slots_carry_the_hold_of_pending_bookings_only(world: Backend) -> None:
    w = _check_world(world)
    with world.reads() as uow:
        slots = uow.bookings.blocked_slots(1, TimeRange(_at("00:00"), _at("23:59")), NOW)

    assert slots == [
        _slot(w.before),
        _slot(w.confirmed),
        _slot(w.held, NOW + timedelta(minutes=1)),
        _slot(w.paid),
        _slot(w.open_hold),
        _slot(w.paid_with_stale_hold),
        _slot(w.after),
        _slot(w.confirmed_with_stale_hold),
        _slot(w.live_hold_later, NOW + timedelta(hours=1)),
    ]
    held = slots[2]
    assert held.hold_expires_at is not None
    assert held.hold_expires_at.utcoffset() is not None  # aware, comparable with the clock
    assert held.blocks_at(NOW) is True
    assert held.blocks_at(NOW + timedelta(minutes=1)) is False


# --------------------------------------------------------------------------- 4. read-only units of work


def test_a_read_only_unit_of_work_cannot_commit(db_world: Backend) -> None:
    with db_world.reads() as uow:
        assert uow.resources.get(1) is not None
        with pytest.raises(RuntimeError, match="read-only"):
            uow.commit()
    with db_world.uow() as uow:  # the writing one still can
        uow.bookings.add(_booking("10:00", "11:00"))
        uow.commit()
    with db_world.reads() as uow:
        assert len(uow.bookings.blocked_slots(1, TimeRange(_at("00:00"), _at("23:00")), NOW)) == 1


def test_a_read_only_unit_of_work_refuses_to_write(db_world: Backend) -> None:
    # On PostgreSQL readers run in autocommit: a write that got through would be durable at once.
    with db_world.reads() as uow, pytest.raises(ReadOnlyViolation, match="INSERT"):
        uow.bookings.add(_booking("10:00", "11:00"))
    with db_world.reads() as uow:
        assert uow.bookings.blocked_slots(1, TimeRange(_at("00:00"), _at("23:00")), NOW) == []


def _second_writer_is_refused_now(engine: Engine) -> bool:
    """Whether another writer, asked not to wait, is refused the lock that ``lock(1)`` takes."""
    if engine.dialect.name == "sqlite":
        probe = sqlite3.connect(str(engine.url.database), timeout=0, isolation_level=None)
        try:
            probe.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            return "locked" in str(error)
        else:
            probe.execute("ROLLBACK")
            return False
        finally:
            probe.close()
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT id FROM resources WHERE id = 1 FOR UPDATE NOWAIT"))
    except OperationalError as error:
        return "lock" in str(error)
    return False


def test_a_reader_does_not_wait_for_an_open_writer(db_world: Backend) -> None:
    day = TimeRange(_at("00:00"), _at("23:00"))
    committed, uncommitted = _booking("10:00", "11:00"), _booking("12:00", "13:00")
    _add(db_world, committed)
    assert _second_writer_is_refused_now(db_world.db) is False  # the probe works both ways
    second_writer_started = threading.Event()

    def read() -> tuple[Resource | None, list[str]]:
        with db_world.reads() as uow:
            return uow.resources.get(1), _ids(uow.bookings.blocked_slots(1, day, NOW))

    def write_after_the_first() -> list[str]:
        with db_world.uow() as uow:
            second_writer_started.set()
            uow.resources.lock(1)
            return _ids(uow.bookings.blocked_slots(1, day, NOW))

    with ThreadPoolExecutor(2) as pool:
        with db_world.uow() as writer:
            writer.resources.lock(1)  # SQLite: BEGIN IMMEDIATE; PostgreSQL: the row lock
            writer.bookings.add(uncommitted)
            assert _second_writer_is_refused_now(db_world.db) is True

            second = pool.submit(write_after_the_first)
            assert second_writer_started.wait(5)
            done, _ = wait([second], timeout=WAITING_S)
            assert not done, "a second writer should wait for the first"

            started = clock.monotonic()
            resource, seen = pool.submit(read).result(timeout=10)
            elapsed = clock.monotonic() - started

            assert elapsed < READER_DEADLINE_S
            assert resource is not None
            assert resource.id == 1
            assert seen == [committed.id]  # the committed state, not the writer's open changes
            assert not second.done()
            writer.commit()
        # The second writer got the lock only now, after the first one's commit.
        assert second.result(timeout=10) == [committed.id, uncommitted.id]


def test_the_catalog_revision_is_read_once_per_unit_of_work_on_its_own(db_world: Backend) -> None:
    """The revision is the unit of work's (``catalog_revision()``), read by its own statement when
    first needed: no other statement carries it, so the order of the statements does not matter."""
    with db_world.uow() as uow:
        uow.tokens.add("live-hash", Principal(user_id=USER_ID), NOW)
        uow.tokens.add("revoked-hash", Principal(user_id=USER_ID), NOW)
        uow.tokens.revoke("revoked-hash")
        uow.commit()
    with db_world.reads() as uow:
        assert uow.resources.get(1) is not None  # now in the resource cache
    for unknown in ("no-such-hash", "revoked-hash"):
        with db_world.uow() as uow:
            assert uow.tokens.principal(unknown) is None
    catalog = _catalog_revision(db_world.db)
    statements: list[str] = []
    event.listen(db_world.db, "before_cursor_execute", lambda *args: statements.append(args[2]))
    with db_world.uow() as uow:
        assert uow.tokens.principal("live-hash") == Principal(user_id=USER_ID)
        assert not [s for s in statements if "catalog_revision" in s]  # the token's statement alone
        if db_world.name == "postgresql":  # SQLite: every writer holds the write lock anyway
            assert _second_writer_is_refused_now(db_world.db) is False  # authenticating locks nothing
        statements.clear()
        resource = uow.resources.get(1)
        assert resource is not None
        assert resource.id == 1
        assert uow.resources.get(1) is resource
        assert uow.catalog_revision() == catalog
        assert len(statements) == 1  # the cached resource cost the revision's own statement, once
        assert "FROM catalog_revision" in statements[0]


def test_read_only_units_of_work_leave_pooled_connections_transactional(
    single_connection_world: Backend,
) -> None:
    """Readers and writers share the pool: after a reader, a writer's uncommitted work still rolls back."""
    backend = single_connection_world
    day = TimeRange(_at("00:00"), _at("23:00"))
    for _ in range(2):
        with backend.reads() as uow:
            assert uow.resources.get(1) is not None
            assert uow.bookings.blocked_slots(1, day, NOW) == []
        with backend.uow() as uow:
            uow.bookings.add(_booking("10:00", "11:00"))  # never committed
    catalog = _catalog_revision(backend.db)  # outside a unit of work: the pool has one connection
    with backend.reads() as uow:
        assert uow.bookings.blocked_slots(1, day, NOW) == []
        assert uow.availability.version(1) == (catalog, 0)


def _backend_state(engine: Engine, pid: int) -> str:
    with engine.connect() as connection:
        state: str = connection.execute(
            text("SELECT state FROM pg_stat_activity WHERE pid = :pid"), {"pid": pid}
        ).scalar_one()
        return state


def _pid(uow: UnitOfWork) -> int:
    assert isinstance(uow, SqlaUnitOfWork)
    pid: int = uow.session.connection().exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
    return pid


@pytest.mark.postgres
def test_postgres_reader_sees_commits_between_statements_and_holds_no_transaction(
    pg_world: Backend,
) -> None:
    engine = pg_world.db
    day = TimeRange(_at("00:00"), _at("23:00"))
    booking = _booking("10:00", "11:00")

    # The control: a writing unit of work is inside a transaction between its statements.
    with pg_world.uow() as uow:
        pid = _pid(uow)
        uow.bookings.get("no-such-booking")
        assert _backend_state(engine, pid) == "idle in transaction"

    with pg_world.reads() as uow:
        pid = _pid(uow)
        assert uow.bookings.blocked_slots(1, day, NOW) == []
        before = uow.availability.version(1)
        assert _backend_state(engine, pid) == "idle"

        _add(pg_world, booking)  # another transaction commits in between

        assert _ids(uow.bookings.blocked_slots(1, day, NOW)) == [booking.id]
        after = uow.availability.version(1)
        assert before is not None
        assert after == (before[0], before[1] + 1)
        assert _pid(uow) == pid  # the same connection all along
        assert _backend_state(engine, pid) == "idle"

    # Nothing of this database is left inside a transaction, and the next reader works.
    with engine.connect() as connection:
        stuck = connection.execute(
            text(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND state LIKE 'idle in transaction%' AND pid <> pg_backend_pid()"
            )
        ).scalar_one()
    assert stuck == 0
    with pg_world.reads() as uow:
        assert _ids(uow.bookings.blocked_slots(1, day, NOW)) == [booking.id]
        assert _backend_state(engine, _pid(uow)) == "idle"


# --------------------------------------------------------------------------- 5. the in-memory fake


def test_memory_data_version_moves_with_each_commit_and_not_on_rollback() -> None:
    store = InMemoryStore()
    store.add_resource(demo_resource())

    def version() -> tuple[int, ...] | None:
        with store.uow() as uow:
            return uow.availability.version(1)

    seeded = version()
    assert seeded is not None
    assert version() == seeded  # nothing changed

    with store.uow() as uow:
        uow.users.add(
            User(id=USER_ID, email="anna@example.com", first_name="Anna", last_name="Schmidt", created_at=NOW)
        )
        uow.bookings.add(_booking("10:00", "11:00"))
        assert uow.availability.version(1) == seeded  # not before the commit
        uow.commit()
        first = uow.availability.version(1)
        assert first != seeded
        uow.bookings.add(_booking("11:00", "12:00"))
        uow.commit()
        second = uow.availability.version(1)
        assert second not in (seeded, first)  # each commit, even in one unit of work
    assert version() == second

    with store.uow() as uow:  # rolled back explicitly
        uow.bookings.add(_booking("12:00", "13:00"))
        uow.rollback()
        assert uow.availability.version(1) == second
    with store.uow() as uow:  # left without commit
        uow.bookings.add(_booking("12:00", "13:00"))

    def failing_use_case() -> None:
        with store.uow() as uow:
            uow.bookings.add(_booking("13:00", "14:00"))
            raise RuntimeError("use case failed")

    with pytest.raises(RuntimeError):
        failing_use_case()
    assert version() == second

    store.add_resource(demo_resource(id=2, name="Court 2", activity_types=()))  # a catalog change
    after_catalog = version()
    assert after_catalog not in (seeded, first, second)
    assert version() == after_catalog
