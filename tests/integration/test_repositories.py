"""One contract suite for the storage ports, run on the in-memory fake, SQLite and PostgreSQL.

Cases that depend on database constraints run on the real databases only (``db_backend``).
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any, cast
from zoneinfo import ZoneInfo

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, text

from adapters.identity import TokenAuthenticator
from adapters.sqla import SqlaUnitOfWork, current_revision, head_revision, is_up_to_date, make_engine, ping
from adapters.sqla import upgrade as migrate_up
from adapters.sqla.models import NO_OVERLAP_CONSTRAINT, metadata
from booking_core.account_codes import CODE_LIFETIME, AccountCode, CodePurpose, hash_code
from booking_core.accounts import (
    Actor,
    ApprovalStatus,
    Client,
    Principal,
    ResourceMapping,
    User,
    UserMapping,
    VenueMapping,
)
from booking_core.booking import Booking, BookingStatus, CancellationReason
from booking_core.catalog import (
    BlockReason,
    BlockSource,
    DynamicPricing,
    PriceUnit,
    Resource,
    Schedule,
    TimeSlot,
    UnavailablePeriod,
)
from booking_core.claims import ClaimCheck, Neighbourhood, refuse_beyond_unpaid_limit
from booking_core.commission import Commission, CommissionStatus
from booking_core.errors import (
    AmbiguousUser,
    BadRequest,
    EmailNotConfirmed,
    MappingNotFound,
    NotAuthenticated,
    NotFound,
    SlotUnavailable,
    StorageUnavailable,
    TooManyUnpaid,
    TransientConflict,
)
from booking_core.memory import InMemoryStore
from booking_core.outbox import MailTemplate, OutboxEntry, OutboxStatus, without_secrets
from booking_core.payments import Payment, PaymentStatus
from booking_core.payout import PayoutBatch
from booking_core.ports import BookingQuery, IdempotencyRecord, OutboxMessage, ResourceQuery, UnitOfWork
from booking_core.ports.identity import Credentials
from booking_core.timerange import TimeRange
from booking_core.usecases.auth import hash_token
from tests.support.bookings import BERLIN, DAY, NOW, USER_ID
from tests.support.bookings import add_bookings as _add
from tests.support.bookings import at as _at
from tests.support.bookings import make_booking as _booking
from tests.support.seed import demo_client, demo_resource, demo_venue, seed

OTHER_USER_ID = "00000000-0000-4000-8000-000000000002"
THREADS = 20


@dataclass
class Backend:
    """A storage implementation under test and how to seed what has no write port."""

    name: str
    uow: Callable[[], UnitOfWork]
    add_resource: Callable[[Resource], None]
    add_client: Callable[[Client], None]
    engine: Engine | None = None


def _sql_backend(name: str, url: str) -> Iterator[Backend]:
    migrate_up(url)
    engine = make_engine(url)
    try:
        yield Backend(
            name=name,
            uow=SqlaUnitOfWork.factory(engine),
            add_resource=lambda resource: seed(engine, resource),
            add_client=lambda client: seed(engine, clients=(client,)),
            engine=engine,
        )
    finally:
        engine.dispose()


def _backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    if request.param == "memory":
        store = InMemoryStore()
        # cast: the UnitOfWork protocol's mutable attributes are invariant, so mypy refuses the fake's.
        uow = cast("Callable[[], UnitOfWork]", store.uow)
        yield Backend("memory", uow, store.add_resource, store.add_client)
        return
    fixture = "sqlite_url" if request.param == "sqlite" else "postgres_url"
    yield from _sql_backend(request.param, request.getfixturevalue(fixture))


_PG = pytest.param("postgresql", marks=pytest.mark.postgres)


@pytest.fixture(params=["memory", "sqlite", _PG])
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """Every implementation of the storage ports."""
    yield from _backend(request)


@pytest.fixture(params=["sqlite", _PG])
def db_backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """The real databases only (constraints, migrations, drivers)."""
    yield from _backend(request)


@pytest.fixture
def pg_backend(postgres_url: str) -> Iterator[Backend]:
    """PostgreSQL only (the exclusion constraint)."""
    yield from _sql_backend("postgresql", postgres_url)


def _user(user_id: str = USER_ID, email: str = "Anna@Example.com") -> User:
    return User(id=user_id, email=email, first_name="Anna", last_name="Schmidt", created_at=NOW)


def _seed_world(backend: Backend) -> Backend:
    """Two resources of one venue, a client and two users."""
    backend.add_resource(demo_resource())
    backend.add_resource(demo_resource(id=2, name="Court 2", activity_types=()))
    backend.add_client(demo_client())
    with backend.uow() as uow:
        uow.users.add(_user())
        uow.users.add(_user(OTHER_USER_ID, "ben@example.com"))
        uow.commit()
    return backend


@pytest.fixture
def world(backend: Backend) -> Backend:
    return _seed_world(backend)


@pytest.fixture
def db_world(db_backend: Backend) -> Backend:
    return _seed_world(db_backend)


def _ids(items: Sequence[Booking | OutboxMessage | OutboxEntry]) -> list[str]:
    return [item.id for item in items]


# --------------------------------------------------------------------------- catalog


def _strip_ids(resource: Resource) -> Resource:
    """The resource with database-assigned ids of schedules, slots and periods removed (and the
    periods' resource id, which the databases fill in)."""
    schedules = tuple(
        replace(s, id=None, time_slots=tuple(replace(t, id=None) for t in s.time_slots))
        for s in resource.schedules
    )
    periods = tuple(replace(p, id=None, resource_id=None) for p in resource.unavailable_periods)
    return replace(resource, schedules=schedules, unavailable_periods=periods)


def test_resource_round_trips_with_schedules_slots_and_periods(backend: Backend) -> None:
    weekly = demo_resource().schedules
    christmas = Schedule(specific_date=date(2026, 12, 24), priority=5)
    summer = Schedule(
        day_of_week=6,
        start_date=date(2026, 7, 1),
        end_date=date(2026, 8, 31),
        priority=1,
        is_active=False,
        time_slots=(
            TimeSlot(
                start_time=time(9),
                end_time=time(0),
                price_per_unit=Decimal("12.50"),
                pricing_unit=PriceUnit.PERSON_HOUR,
                slot_duration_minutes=15,
                capacity_override=2,
                label="Summer",
                is_bookable=False,
            ),
        ),
    )
    resource = demo_resource(
        description="Clay court",
        price_unit=PriceUnit.PERSON_HOUR,
        max_booking_duration_minutes=None,
        prevent_unbookable_gaps=True,
        min_advance_booking_minutes=15,
        max_advance_booking_days=30,
        cancellation_deadline_hours=24,
        attributes={"surface": "clay", "indoor": False, "lights": ["led"]},
        dynamic_pricing=DynamicPricing(enabled=True, min_price=Decimal("15.00"), max_price=Decimal("45.00")),
        schedules=(*weekly, christmas, summer),
        unavailable_periods=(
            UnavailablePeriod(start=_at("08:00"), end=_at("12:00"), reason="maintenance"),
            UnavailablePeriod(start=_at("00:00", DAY + timedelta(1)), end=_at("23:00", DAY + timedelta(1))),
        ),
    )
    backend.add_resource(resource)

    with backend.uow() as uow:
        loaded = uow.resources.get(1)
        missing = uow.resources.get(99)

    assert missing is None
    assert loaded is not None
    assert _strip_ids(loaded) == _strip_ids(resource)
    assert loaded.venue == demo_venue()
    assert loaded.tz == BERLIN
    assert loaded.unavailable_periods[0].start.tzinfo is not None
    assert [s.specific_date for s in loaded.schedules if s.specific_date] == [date(2026, 12, 24)]


def test_overlapping_reads_the_bookings_of_several_resources_at_once(world: Backend) -> None:
    first = _booking("10:00", "11:00")
    cancelled = _booking("11:00", "12:00", resource_id=2, status=BookingStatus.CANCELLED)
    later = _booking("12:00", "13:00")
    earlier = _booking("09:00", "10:30", resource_id=2)
    _add(world, first, cancelled, later, earlier)
    span = TimeRange(_at("10:00"), _at("12:00"))
    with world.uow() as uow:
        found = uow.bookings.overlapping([1, 2], span)
        live = uow.bookings.overlapping([2, 1], span, statuses={BookingStatus.CONFIRMED})
        one = uow.bookings.overlapping([1], span)
        none = uow.bookings.overlapping([], span)
    assert _ids(found) == [earlier.id, first.id, cancelled.id]
    assert _ids(live) == [earlier.id, first.id]
    assert (_ids(one), none) == ([first.id], [])


def test_blocks_are_stored_read_with_their_resource_and_deleted(world: Backend) -> None:
    block = UnavailablePeriod(
        resource_id=1,
        start=_at("10:00"),
        end=_at("12:00"),
        reason=BlockReason.WEATHER,
        note="rain",
        source=BlockSource.STAFF,
        created_by=USER_ID,
        created_at=NOW,
    )
    with world.uow() as uow:
        uow.blocks.lock([2, 1])
        stored = uow.blocks.add(block)
        uow.commit()
    assert stored == replace(block, id=stored.id)
    assert stored.id is not None
    with world.uow() as uow:
        assert uow.blocks.get(stored.id) == stored
        resource = uow.resources.get(1)
        assert resource is not None
        assert resource.unavailable_periods == (stored,)
        assert uow.blocks.get(2**63 - 1) is None
        uow.blocks.delete(stored.id)
        uow.commit()
    with world.uow() as uow:
        assert uow.blocks.get(stored.id) is None
        resource = uow.resources.get(1)
        assert resource is not None
        assert resource.unavailable_periods == ()


def test_the_storage_refuses_a_live_booking_over_closed_time(db_world: Backend) -> None:
    with db_world.uow() as uow:
        uow.blocks.add(UnavailablePeriod(resource_id=1, start=_at("10:00"), end=_at("12:00")))
        uow.commit()
    with db_world.uow() as uow, pytest.raises(SlotUnavailable):
        uow.bookings.add(_booking("11:30", "12:30"))  # past every check of the application
    # touching is fine, and so is a booking that blocks no time, or another resource's
    _add(db_world, _booking("12:00", "13:00"), _booking("10:00", "11:00", status=BookingStatus.CANCELLED))
    _add(db_world, _booking("10:00", "11:00", resource_id=2))


def test_resource_listing_filters_and_order(world: Backend) -> None:
    world.add_resource(
        demo_resource(id=3, name="A court", venue=demo_venue(id=2, slug="other", name="Another Club"))
    )
    world.add_resource(demo_resource(id=4, name="Closed", is_active=False, activity_types=()))
    with world.uow() as uow:
        everything = uow.resources.list(ResourceQuery(is_active=None, is_bookable=None))
        active = uow.resources.list(ResourceQuery())
        by_slug = uow.resources.list(ResourceQuery(venue_slug="center-court"))
        by_venue = uow.resources.list(ResourceQuery(venue_id=2))
        tennis = uow.resources.list(ResourceQuery(activity_id=1))
        inactive = uow.resources.list(ResourceQuery(is_active=False))
        for_venue = uow.resources.for_venue(1)
        venue = uow.resources.get_venue(2)

    assert [r.id for r in everything] == [3, 4, 1, 2]  # venue name, then resource name
    assert [r.id for r in active] == [3, 1, 2]
    assert [r.id for r in by_slug] == [1, 2]
    assert [r.id for r in by_venue] == [3]
    assert [r.id for r in tennis] == [3, 1]
    assert [r.id for r in inactive] == [4]
    assert [r.id for r in for_venue] == [4, 1, 2]
    assert venue is not None
    assert venue.slug == "other"


# --------------------------------------------------------------------------- bookings


def test_booking_add_get_save_and_reference(world: Backend) -> None:
    booking = _booking(
        "10:00",
        "11:30",
        status=BookingStatus.PENDING,
        client_id=1,
        participant_count=3,
        pricing_unit=PriceUnit.PERSON_HOUR,
        price_per_unit=Decimal("12.35"),
        total_price=Decimal("55.58"),
        notes="bring balls",
        hold_expires_at=NOW + timedelta(minutes=15),
    )
    _add(world, booking)

    with world.uow() as uow:
        loaded = uow.bookings.get(booking.id)
        by_reference = uow.bookings.get_by_reference(booking.reference_code)
        assert uow.bookings.get("no-such-id") is None
        assert uow.bookings.get_by_reference("ZZZZZZZZ") is None

    assert loaded is not None
    assert loaded == booking
    assert by_reference == booking
    assert loaded.start.tzinfo is not None
    assert loaded.start == _at("10:00")
    assert isinstance(loaded.total_price, Decimal)

    later = NOW + timedelta(minutes=5)
    paid = loaded.mark_paid(later)
    cancelled = paid.cancel(later, CancellationReason.WEATHER, "storm")
    with world.uow() as uow:
        uow.bookings.save(cancelled)
        uow.commit()
    with world.uow() as uow:
        assert uow.bookings.get(booking.id) == cancelled


def test_save_of_unknown_booking_is_not_found(db_world: Backend) -> None:
    with db_world.uow() as uow, pytest.raises(NotFound):
        uow.bookings.save(_booking("10:00", "11:00"))


def test_blocking_counts_live_bookings_and_unexpired_holds(world: Backend) -> None:
    confirmed = _booking("09:00", "10:30")
    held = _booking(
        "11:00", "11:30", status=BookingStatus.PENDING, hold_expires_at=NOW + timedelta(minutes=1)
    )
    paid = _booking("11:30", "12:30", status=BookingStatus.PAID)
    lapsed = _booking("10:30", "11:00", status=BookingStatus.PENDING, hold_expires_at=NOW)
    open_hold = _booking("13:00", "14:00", status=BookingStatus.PENDING, hold_expires_at=None)
    cancelled = _booking("10:00", "12:00", status=BookingStatus.CANCELLED, cancelled_at=NOW)
    refunded = _booking("10:00", "12:00", status=BookingStatus.REFUNDED)
    other_resource = _booking("10:00", "12:00", resource_id=2)
    _add(world, confirmed, held, paid, lapsed, open_hold, cancelled, refunded, other_resource)

    def blocking(start: str, end: str, resource_id: int = 1) -> list[str]:
        with world.uow() as uow:
            slots = uow.bookings.blocked_slots(resource_id, TimeRange(_at(start), _at(end)), NOW)
            return [slot.booking_id for slot in slots]

    assert blocking("10:00", "12:00") == _ids([confirmed, held, paid])
    assert blocking("12:30", "13:00") == []  # touching ends do not overlap
    assert blocking("08:00", "09:00") == []
    assert blocking("12:30", "13:30") == _ids([open_hold])
    assert blocking("00:00", "23:00", resource_id=2) == _ids([other_resource])


def test_live_spans_are_the_confirmed_and_paid_bookings_only(world: Backend) -> None:
    confirmed = _booking("09:00", "10:00")
    paid = _booking("12:00", "13:00", status=BookingStatus.PAID)
    held = _booking("10:00", "11:00", status=BookingStatus.PENDING, hold_expires_at=NOW + timedelta(hours=1))
    open_hold = _booking("11:00", "12:00", status=BookingStatus.PENDING, hold_expires_at=None)
    cancelled = _booking("13:00", "14:00", status=BookingStatus.CANCELLED, cancelled_at=NOW)
    completed = _booking("14:00", "15:00", status=BookingStatus.COMPLETED)
    other_resource = _booking("09:00", "10:00", resource_id=2)
    _add(world, paid, confirmed, held, open_hold, cancelled, completed, other_resource)

    with world.uow() as uow:
        found = uow.bookings.live_spans(1, TimeRange(_at("09:30"), _at("23:00")))

    assert found == [confirmed.span, paid.span]  # by start; touching or outside spans are left out


def _claim_seen(uow: UnitOfWork, booking: Booking) -> ClaimCheck:
    """Claim ``booking`` (its own span as neighbourhood), accepting whatever it finds; what it found."""
    found: list[ClaimCheck] = []
    uow.bookings.claim(booking, Neighbourhood(span=booking.span, serialized=False), found.append, now=NOW)
    return found[0]


def _accept_all(_: ClaimCheck) -> None:
    """An ``accept`` with no rules: what a claim refuses then, the storage refuses by itself."""


def test_a_claim_counts_a_users_pending_bookings_that_still_hold_time(world: Backend) -> None:
    live = _booking(
        "09:00", "10:00", status=BookingStatus.PENDING, hold_expires_at=NOW + timedelta(seconds=1)
    )
    through_client = _booking(
        "10:00", "11:00", resource_id=2, client_id=1, status=BookingStatus.PENDING, hold_expires_at=None
    )
    lapsed = _booking("11:00", "12:00", status=BookingStatus.PENDING, hold_expires_at=NOW)
    paid = _booking("12:00", "13:00", status=BookingStatus.PAID)
    cancelled = _booking("13:00", "14:00", status=BookingStatus.CANCELLED, cancelled_at=NOW)
    others = _booking(
        "14:00",
        "15:00",
        user_id=OTHER_USER_ID,
        status=BookingStatus.PENDING,
        hold_expires_at=NOW + timedelta(1),
    )
    _add(world, live, through_client, lapsed, paid, cancelled, others)

    counts = []
    for user_id, start in ((USER_ID, "16:00"), (OTHER_USER_ID, "17:00")):
        with world.uow() as uow:  # each claim in its own unit of work: the user's lock lasts until it ends
            claim = _booking(
                start, start.replace(":00", ":30"), user_id=user_id, status=BookingStatus.PENDING
            )
            counts.append(
                _claim_seen(uow, replace(claim, hold_expires_at=NOW + timedelta(minutes=15))).unpaid_holds
            )

    assert counts == [2, 1]


def test_expired_holds_and_ended(world: Backend) -> None:
    due = _booking("09:00", "10:00", status=BookingStatus.PENDING, hold_expires_at=NOW)
    overdue = _booking(
        "10:00", "11:00", resource_id=2, status=BookingStatus.PENDING, hold_expires_at=NOW - timedelta(1)
    )
    live = _booking(
        "11:00", "12:00", status=BookingStatus.PENDING, hold_expires_at=NOW + timedelta(seconds=1)
    )
    unlimited = _booking("12:00", "13:00", status=BookingStatus.PENDING, hold_expires_at=None)
    past_paid = _booking(NOW - timedelta(hours=2), NOW, status=BookingStatus.PAID)
    past_confirmed = _booking(NOW - timedelta(hours=3), NOW - timedelta(hours=2))
    past_cancelled = _booking(NOW - timedelta(hours=2), NOW, status=BookingStatus.CANCELLED)
    running = _booking(NOW, NOW + timedelta(hours=1), status=BookingStatus.PAID)
    _add(world, due, overdue, live, unlimited, past_paid, past_confirmed, past_cancelled, running)

    with world.uow() as uow:
        expired = set(_ids(uow.bookings.expired_holds(NOW)))
        expired_here = _ids(uow.bookings.expired_holds(NOW, resource_id=1))
        ended = set(_ids(uow.bookings.ended(NOW)))

    assert expired == {due.id, overdue.id}
    assert expired_here == [due.id]
    assert ended == {past_paid.id, past_confirmed.id}


def test_booking_list_filters_newest_start_first(world: Backend) -> None:
    early = _booking("09:00", "10:00")
    late = _booking("15:00", "16:00", client_id=1)
    middle = _booking("12:00", "13:00", client_id=1, status=BookingStatus.CANCELLED)
    someone_else = _booking("17:00", "18:00", user_id=OTHER_USER_ID, client_id=1)
    _add(world, early, late, middle, someone_else)

    def listed(query: BookingQuery, limit: int = 10, offset: int = 0) -> list[str]:
        with world.uow() as uow:
            return _ids(uow.bookings.list(query, limit=limit, offset=offset))

    assert listed(BookingQuery(user_id=USER_ID)) == _ids([late, middle, early])
    assert listed(BookingQuery(client_id=1)) == _ids([someone_else, late, middle])
    assert listed(BookingQuery(user_id=USER_ID, client_id=1)) == _ids([late, middle])
    assert listed(BookingQuery(user_id=USER_ID, only_client_bookings=True)) == _ids([late, middle])
    assert listed(BookingQuery(user_id=USER_ID), limit=1, offset=1) == _ids([middle])
    assert listed(BookingQuery(user_id=USER_ID), limit=5, offset=3) == []


def test_upcoming_bookings_are_live_ones_ahead_soonest_first(world: Backend) -> None:
    now = _at("11:00")
    past = _booking("09:00", "10:00")
    pending = BookingStatus.PENDING
    held = _booking("13:00", "14:00", status=pending, hold_expires_at=now + timedelta(minutes=5))
    lapsed = _booking("14:00", "15:00", status=pending, hold_expires_at=now)
    paid = _booking("16:00", "17:00", status=BookingStatus.PAID)
    cancelled = _booking("12:00", "13:00", status=BookingStatus.CANCELLED)
    _add(world, past, held, lapsed, paid, cancelled)
    query = BookingQuery(user_id=USER_ID, upcoming_at=now)
    with world.uow() as uow:
        upcoming = uow.bookings.list(query, limit=10, offset=0)
        second = uow.bookings.list(query, limit=1, offset=1)
    assert _ids(upcoming) == _ids([held, paid])
    assert _ids(second) == _ids([paid])


def test_sqlite_reads_back_aware_utc(db_world: Backend) -> None:
    booking = _booking("10:00", "11:00", paid_at=datetime(2026, 6, 1, 12, 0, tzinfo=ZoneInfo("Asia/Tokyo")))
    _add(db_world, booking)
    with db_world.uow() as uow:
        loaded = uow.bookings.get(booking.id)
    assert loaded is not None
    assert loaded.start.utcoffset() == timedelta(0)
    assert loaded.start == _at("10:00")
    assert loaded.paid_at == datetime(2026, 6, 1, 3, 0, tzinfo=UTC)


# --------------------------------------------------------------------------- accounts


def test_users_by_id_and_email_case_insensitively(world: Backend) -> None:
    with world.uow() as uow:
        assert uow.users.get(USER_ID) == _user()
        assert uow.users.get_by_email("anna@example.COM") == _user()
        assert uow.users.get_by_email(" ANNA@example.com ") == _user()
        assert uow.users.get_by_email("nobody@example.com") is None
        assert uow.users.get("nobody") is None


def test_users_many_at_once(world: Backend) -> None:
    with world.uow() as uow:
        found = uow.users.get_many({USER_ID, OTHER_USER_ID, "nobody"})
        assert found == {USER_ID: _user(), OTHER_USER_ID: _user(OTHER_USER_ID, "ben@example.com")}
        assert uow.users.get_many(set()) == {}


def test_user_emails_are_unique_regardless_of_case(db_world: Backend) -> None:
    with db_world.uow() as uow, pytest.raises(BadRequest):
        uow.users.add(_user("00000000-0000-4000-8000-000000000009", "ANNA@example.com"))


def test_tokens_resolve_until_revoked(world: Backend) -> None:
    with world.uow() as uow:
        uow.tokens.add("user-hash", Principal(user_id=USER_ID), NOW)
        uow.tokens.add("client-hash", Principal(client_id=1), NOW)
        uow.commit()
    with world.uow() as uow:
        assert uow.tokens.principal("user-hash") == Principal(user_id=USER_ID)
        assert uow.tokens.principal("client-hash") == Principal(client_id=1)
        assert uow.tokens.principal("unknown") is None
        uow.tokens.revoke("user-hash")
        uow.tokens.revoke("unknown")
        uow.commit()
    with world.uow() as uow:
        assert uow.tokens.principal("user-hash") is None
        assert uow.tokens.principal("client-hash") == Principal(client_id=1)


def test_a_users_token_says_whether_the_email_is_confirmed(world: Backend) -> None:
    with world.uow() as uow:
        uow.users.update(replace(_user(), email_confirmed=False))
        uow.tokens.add("user-hash", Principal(user_id=USER_ID), NOW)
        uow.tokens.add("client-hash", Principal(client_id=1), NOW)
        uow.commit()
    with world.uow() as uow:
        assert uow.users.get(USER_ID) == replace(_user(), email_confirmed=False)
        assert uow.tokens.principal("user-hash") == Principal(user_id=USER_ID, email_confirmed=False)
        assert uow.tokens.principal("client-hash") == Principal(client_id=1)
        uow.users.update(replace(_user(), password_hash="new-hash"))
        uow.commit()
    with world.uow() as uow:
        assert uow.users.get(USER_ID) == replace(_user(), password_hash="new-hash")
        assert uow.tokens.principal("user-hash") == Principal(user_id=USER_ID)


def test_revoke_all_revokes_every_token_of_one_user(world: Backend) -> None:
    with world.uow() as uow:
        for name, principal in [
            ("anna-1", Principal(user_id=USER_ID)),
            ("anna-2", Principal(user_id=USER_ID)),
            ("ben", Principal(user_id=OTHER_USER_ID)),
            ("client", Principal(client_id=1)),
        ]:
            uow.tokens.add(name, principal, NOW)
        uow.commit()
    with world.uow() as uow:
        uow.tokens.revoke_all(USER_ID, NOW)
        uow.commit()
    with world.uow() as uow:
        assert [uow.tokens.principal(name) is None for name in ("anna-1", "anna-2", "ben", "client")] == [
            True,
            True,
            False,
            False,
        ]


def _authenticator(world: Backend) -> TokenAuthenticator:
    """The Authenticator adapter on the backend's read-only units of work, as the app builds it."""
    reads = SqlaUnitOfWork.factory(world.engine, read_only=True) if world.engine is not None else world.uow
    return TokenAuthenticator(reads)


def test_authenticator_turns_a_users_token_into_its_user(world: Backend) -> None:
    with world.uow() as uow:
        uow.users.update(replace(_user(OTHER_USER_ID, "ben@example.com"), email_confirmed=False))
        uow.tokens.add(hash_token("anna"), Principal(user_id=USER_ID), NOW)
        uow.tokens.add(hash_token("ben"), Principal(user_id=OTHER_USER_ID), NOW)
        uow.tokens.add(hash_token("gone"), Principal(user_id=USER_ID), NOW)
        uow.tokens.revoke(hash_token("gone"))
        uow.commit()
    authenticator = _authenticator(world)
    anna = authenticator.principal(Credentials(token="anna"))
    assert anna == Principal(user_id=USER_ID)
    # a user token acts for its user, whatever user ids come with it
    named = Credentials(token="anna", user_id=OTHER_USER_ID, external_user_id="x")
    assert authenticator.actor(anna, named, user_required=True) == Actor(user_id=USER_ID)
    for token in ("gone", "unknown"):
        with pytest.raises(NotAuthenticated, match=r"^Invalid token\.$"):
            authenticator.principal(Credentials(token=token))
    with pytest.raises(EmailNotConfirmed):
        authenticator.principal(Credentials(token="ben"))
    unconfirmed = authenticator.principal(Credentials(token="ben"), unconfirmed_ok=True)
    assert unconfirmed == Principal(user_id=OTHER_USER_ID, email_confirmed=False)


def test_authenticator_finds_the_user_a_client_acts_for(world: Backend) -> None:
    with world.uow() as uow:
        uow.tokens.add(hash_token("partner"), Principal(client_id=1), NOW)
        uow.user_mappings.add(
            UserMapping(id="um-1", client_id=1, external_id="ext-anna", user_id=USER_ID, created_at=NOW)
        )
        uow.user_mappings.add(
            UserMapping(
                id="um-2",
                client_id=1,
                external_id="ext-ben",
                user_id=OTHER_USER_ID,
                is_active=False,
                created_at=NOW,
            )
        )
        uow.commit()
    authenticator = _authenticator(world)
    partner = authenticator.principal(Credentials(token="partner"))
    assert partner == Principal(client_id=1)
    anna = Actor(user_id=USER_ID, client_id=1, external_user_id="ext-anna")

    def actor(required: bool = True, **ids: str) -> Actor:
        return authenticator.actor(partner, Credentials(token="partner", **ids), user_required=required)

    assert actor(external_user_id="ext-anna") == anna
    assert actor(user_id=USER_ID) == anna
    assert actor(required=False) == Actor(user_id=None, client_id=1)
    with pytest.raises(BadRequest, match="user identification required"):
        actor()
    with pytest.raises(AmbiguousUser):
        actor(user_id=USER_ID, external_user_id="ext-anna")
    for ids in ({"external_user_id": "ext-ben"}, {"user_id": OTHER_USER_ID}, {"external_user_id": "nobody"}):
        with pytest.raises(MappingNotFound):
            actor(**ids)


def _code(purpose: CodePurpose = CodePurpose.CONFIRM_EMAIL, code: str = "12345678") -> AccountCode:
    return AccountCode(
        user_id=USER_ID,
        purpose=purpose,
        code_hash=hash_code(USER_ID, purpose, code),
        expires_at=NOW + CODE_LIFETIME,
        created_at=NOW,
    )


def test_account_codes_count_tries_expire_and_are_replaced(world: Backend) -> None:
    with world.uow() as uow:
        uow.account_codes.put(_code())
        uow.account_codes.put(_code(CodePurpose.RESET_PASSWORD, "87654321"))
        uow.commit()
    with world.uow() as uow:
        tried = [
            uow.account_codes.spend_attempt(USER_ID, CodePurpose.CONFIRM_EMAIL, now=NOW) for _ in range(6)
        ]
        uow.commit()
    assert [code.attempts if code else None for code in tried] == [1, 2, 3, 4, 5, None]
    assert tried[0] is not None
    assert tried[0].matches("12345678")
    assert not tried[0].matches("12345679")
    with world.uow() as uow:
        uow.account_codes.put(_code(code="11112222"))  # a new code replaces the spent one
        uow.commit()
    with world.uow() as uow:
        fresh = uow.account_codes.spend_attempt(USER_ID, CodePurpose.CONFIRM_EMAIL, now=NOW)
        assert fresh is not None
        assert fresh.attempts == 1
        assert fresh.matches("11112222")
        expiry = NOW + CODE_LIFETIME
        assert uow.account_codes.spend_attempt(USER_ID, CodePurpose.CONFIRM_EMAIL, now=expiry) is None
        reset = uow.account_codes.spend_attempt(USER_ID, CodePurpose.RESET_PASSWORD, now=NOW)
        assert reset is not None
        assert reset.matches("87654321")
        uow.account_codes.delete(USER_ID, CodePurpose.RESET_PASSWORD)
        assert uow.account_codes.spend_attempt(USER_ID, CodePurpose.RESET_PASSWORD, now=NOW) is None
        assert uow.account_codes.spend_attempt(OTHER_USER_ID, CodePurpose.CONFIRM_EMAIL, now=NOW) is None


def test_concurrent_tries_of_one_code_get_five_attempts_in_all(world: Backend) -> None:
    with world.uow() as uow:
        uow.account_codes.put(_code())
        uow.commit()
    start = threading.Barrier(THREADS)

    def one(_: int) -> int | None:
        start.wait()
        for _try in range(50):  # SQLite may answer "busy" to a writer that waited too long
            try:
                with world.uow() as uow:
                    code = uow.account_codes.spend_attempt(USER_ID, CodePurpose.CONFIRM_EMAIL, now=NOW)
                    uow.commit()
                return code.attempts if code else None
            except TransientConflict:
                continue
        raise AssertionError("never got through")

    with ThreadPoolExecutor(THREADS) as pool:
        outcomes = list(pool.map(one, range(THREADS)))
    assert sorted(n for n in outcomes if n is not None) == [1, 2, 3, 4, 5]


def test_clients(world: Backend) -> None:
    with world.uow() as uow:
        assert uow.clients.get(1) == demo_client()
        assert uow.clients.get(2) is None
        assert uow.clients.get_many({1, 2}) == {1: demo_client()}
        assert uow.clients.get_many(set()) == {}


# --------------------------------------------------------------------------- mappings


def test_user_mappings(world: Backend) -> None:
    first = UserMapping(id="um-1", client_id=1, external_id="ext-anna", user_id=USER_ID, created_at=NOW)
    second = UserMapping(
        id="um-2", client_id=1, external_id="ext-ben", user_id=OTHER_USER_ID, is_active=False, created_at=NOW
    )
    third = UserMapping(
        id="um-0", client_id=1, external_id="ext-3", user_id=USER_ID, created_at=NOW + timedelta(1)
    )
    with world.uow() as uow:
        for mapping in (third, second, first):
            uow.user_mappings.add(mapping)
        uow.commit()
    with world.uow() as uow:
        assert uow.user_mappings.get(1, "ext-anna") == first
        assert uow.user_mappings.get(2, "ext-anna") is None
        assert uow.user_mappings.for_user(1, OTHER_USER_ID) == second
        assert uow.user_mappings.for_user(1, "nobody") is None
        users = [USER_ID, OTHER_USER_ID, "nobody", USER_ID]
        assert uow.user_mappings.for_users(1, users) == {
            u: uow.user_mappings.for_user(1, u) for u in (USER_ID, OTHER_USER_ID)
        }
        assert uow.user_mappings.for_users(2, users) == {}
        assert uow.user_mappings.for_users(1, []) == {}
        pairs = {(1, USER_ID), (1, OTHER_USER_ID), (1, "nobody"), (2, USER_ID)}
        assert uow.user_mappings.for_pairs(pairs) == {
            (1, u): uow.user_mappings.for_user(1, u) for u in (USER_ID, OTHER_USER_ID)
        }
        assert uow.user_mappings.for_pairs(set()) == {}
        listed = uow.user_mappings.list(1, is_active=None, limit=10, offset=0)
        active = uow.user_mappings.list(1, is_active=True, limit=10, offset=0)
        page = uow.user_mappings.list(1, is_active=None, limit=1, offset=1)
    assert [m.id for m in listed] == ["um-1", "um-2", "um-0"]  # created_at, then id
    assert [m.id for m in active] == ["um-1", "um-0"]
    assert [m.id for m in page] == ["um-2"]


def test_resource_and_venue_mappings(world: Backend) -> None:
    resource_mapping = ResourceMapping(
        id="rm-1", client_id=1, external_id="court-a", resource_id=1, external_data={"x": 1}, created_at=NOW
    )
    venue_mapping = VenueMapping(id="vm-1", client_id=1, external_id="club-a", venue_id=1, created_at=NOW)
    with world.uow() as uow:
        uow.resource_mappings.add(resource_mapping)
        uow.venue_mappings.add(venue_mapping)
        uow.commit()
    with world.uow() as uow:
        assert uow.resource_mappings.get(1, "court-a") == resource_mapping
        assert uow.resource_mappings.get(1, "nope") is None
        assert uow.resource_mappings.list(1, limit=10, offset=0) == [resource_mapping]
        assert uow.resource_mappings.list(1, limit=10, offset=1) == []
        assert uow.resource_mappings.for_resources(1, [1, 2]) == [resource_mapping]
        assert uow.resource_mappings.for_resources(1, [2]) == []
        assert uow.venue_mappings.get(1, "club-a") == venue_mapping
        assert uow.venue_mappings.get_by_id("vm-1") == venue_mapping
        assert uow.venue_mappings.list(None, ApprovalStatus.APPROVED) == []
        uow.venue_mappings.save(venue_mapping.decide(ApprovalStatus.APPROVED))
        uow.commit()
    with world.uow() as uow:
        approved = uow.venue_mappings.list(1, ApprovalStatus.APPROVED)
        assert [m.approval_status for m in approved] == [ApprovalStatus.APPROVED]
        assert uow.venue_mappings.list(None, None) == approved
        assert uow.venue_mappings.list(2, None) == []
        assert uow.venue_mappings.list(1, None, limit=1, offset=1) == []


@pytest.mark.parametrize("kind", ["user", "resource", "venue"])
def test_mappings_are_unique_per_client_and_external_id(db_world: Backend, kind: str) -> None:
    db_world.add_client(demo_client(id=2, name="OtherApp"))

    def mapping(mapping_id: str, client_id: int) -> Any:
        common: dict[str, Any] = {
            "id": mapping_id,
            "client_id": client_id,
            "external_id": "same",
            "created_at": NOW,
        }
        if kind == "user":
            return UserMapping(user_id=USER_ID, **common)
        if kind == "resource":
            return ResourceMapping(resource_id=1, **common)
        return VenueMapping(venue_id=1, **common)

    def repository(uow: UnitOfWork) -> Any:
        return {"user": uow.user_mappings, "resource": uow.resource_mappings, "venue": uow.venue_mappings}[
            kind
        ]

    with db_world.uow() as uow:
        repository(uow).add(mapping("m-1", 1))
        repository(uow).add(mapping("m-2", 2))  # another client may use the same external id
        uow.commit()
    with db_world.uow() as uow, pytest.raises(BadRequest, match=r"already exists|conflict"):
        repository(uow).add(mapping("m-3", 1))


# --------------------------------------------------------------------------- money


def _commission(booking: Booking, **fields: Any) -> Commission:
    defaults: dict[str, Any] = {
        "id": f"c-{booking.id[-4:]}",
        "booking_id": booking.id,
        "reference_code": booking.reference_code,
        "client_id": 1,
        "base_amount": Decimal("40.00"),
        "commission_percent": Decimal("12.50"),
        "amount": Decimal("5.00"),
        "currency": "EUR",
        "month": "2026-06",
        "created_at": NOW,
    }
    return Commission(**(defaults | fields))


def test_commissions(world: Backend) -> None:
    june, july = _booking("10:00", "11:00", client_id=1), _booking("11:00", "12:00", client_id=1)
    _add(world, june, july)
    first, second = _commission(june), _commission(july, month="2026-07")
    with world.uow() as uow:
        uow.commissions.add(first)
        uow.commissions.add(second)
        uow.commit()
    with world.uow() as uow:
        assert uow.commissions.of_booking(june.id) == [first]
        assert uow.commissions.of_booking("none") == []
        assert uow.commissions.list(client_id=1, month="2026-06") == [first]
        assert uow.commissions.list(client_id=None, month="2026-07") == [second]
        assert uow.commissions.list(client_id=2, month="2026-06") == []
        uow.commissions.save(first.pay_out())
        uow.commit()
    with world.uow() as uow:
        assert uow.commissions.of_booking(june.id) == [first.pay_out()]


def test_a_booking_keeps_its_first_record_and_the_ones_that_correct_it(world: Backend) -> None:
    """A refund after a payout adds a negative record beside the paid-out one (CONTRACT 9.2)."""
    booking = _booking("10:00", "11:00", client_id=1)
    _add(world, booking)
    first = _commission(booking, status=CommissionStatus.PAID_OUT)
    correction = _commission(
        booking,
        id="c-corr",
        amount=Decimal("-5.00"),
        base_amount=Decimal("-40.00"),
        created_at=NOW + timedelta(1),
    )
    with world.uow() as uow:
        uow.commissions.add(correction)
        uow.commissions.add(first)
        uow.commit()
    with world.uow() as uow:
        assert uow.commissions.of_booking(booking.id) == [first, correction]
        assert uow.commissions.open_for_payout("2026-06") == [correction]


def _batch(batch_id: str, month: str = "2026-06") -> PayoutBatch:
    return PayoutBatch(
        id=batch_id, month=month, transfers=1, total=Decimal("5.00"), document="<xml/>", prepared_at=NOW
    )


def test_payout_batches_hold_their_records(world: Backend) -> None:
    bookings = [_booking(f"{h}:00", f"{h + 1}:00", client_id=1) for h in range(10, 15)]
    _add(world, *bookings)
    free, held, paid, gone, july = (
        _commission(bookings[0]),
        _commission(bookings[1], payout_batch_id="b-1"),
        _commission(bookings[2], status=CommissionStatus.PAID_OUT),
        _commission(bookings[3], status=CommissionStatus.REVERSED),
        _commission(bookings[4], month="2026-07"),
    )
    with world.uow() as uow:
        uow.commissions.add_batch(_batch("b-1"))
        for record in (free, held, paid, gone, july):
            uow.commissions.add(record)
        uow.commit()
    with world.uow() as uow:
        assert uow.commissions.open_for_payout("2026-06") == [free]
        assert uow.commissions.in_batch("b-1") == [held]
        assert uow.commissions.unfinished_batch("2026-06") == _batch("b-1")
        assert uow.commissions.unfinished_batch("2026-07") is None
        with pytest.raises(BadRequest):  # one unfinished batch per month
            uow.commissions.add_batch(_batch("b-2"))
    with world.uow() as uow:
        uow.commissions.save(held.pay_out())
        uow.commissions.save_batch(_batch("b-1").complete(NOW, "/srv/payouts/june.xml"))
        uow.commissions.add_batch(_batch("b-3", month="2026-07"))
        uow.commit()
    with world.uow() as uow:
        assert uow.commissions.unfinished_batch("2026-06") is None
        assert uow.commissions.in_batch("b-1") == [held.pay_out()]
        assert uow.commissions.unfinished_batch("2026-07") == _batch("b-3", month="2026-07")
        uow.commissions.add_batch(_batch("b-4"))  # the month's only batch is completed
        uow.commit()


def test_payments_and_processed_events(world: Backend) -> None:
    booking = _booking("10:00", "11:00", status=BookingStatus.PENDING)
    _add(world, booking)
    first = Payment(
        id="p-1",
        booking_id=booking.id,
        provider="sandbox",
        payment_intent_id="pi_1",
        client_secret="pi_1_secret",
        amount=Decimal("40.00"),
        currency="EUR",
        created_at=NOW,
    )
    second = replace(first, id="p-2", payment_intent_id="pi_2", created_at=NOW + timedelta(minutes=1))
    with world.uow() as uow:
        uow.payments.add(second)
        uow.payments.add(first)
        assert uow.payments.mark_event_processed("evt_1", NOW) is True
        uow.commit()
    succeeded = replace(first, status=PaymentStatus.SUCCEEDED, paid_at=NOW)
    with world.uow() as uow:
        assert uow.payments.by_intent("pi_2") == second
        assert uow.payments.by_intent("pi_none") is None
        assert list(uow.payments.for_booking(booking.id)) == [first, second]
        batch = uow.payments.for_bookings([booking.id, "none", booking.id])
        assert {k: list(v) for k, v in batch.items()} == {booking.id: [first, second]}
        assert uow.payments.for_bookings([]) == {}
        uow.payments.save(succeeded)
        assert uow.payments.mark_event_processed("evt_1", NOW) is False
        assert uow.payments.mark_event_processed("evt_2", NOW) is True
        uow.commit()
    with world.uow() as uow:
        assert uow.payments.by_intent("pi_1") == succeeded
        assert uow.payments.mark_event_processed("evt_2", NOW) is False


def test_event_ids_of_any_length_are_processed_once(world: Backend) -> None:
    """Stripe's ids are not bounded; two long ids alike in their first 5,000 characters are two."""
    long_ids = ["evt_" + "a" * 300, "evt_" + "b" * 5000, "evt_" + "b" * 5000 + "c"]
    with world.uow() as uow:
        assert [uow.payments.mark_event_processed(i, NOW) for i in long_ids] == [True, True, True]
        uow.commit()
    with world.uow() as uow:
        assert [uow.payments.mark_event_processed(i, NOW) for i in long_ids] == [False, False, False]


# --------------------------------------------------------------------------- idempotency and outbox


def test_idempotency_records(world: Backend) -> None:
    record = IdempotencyRecord(
        scope="user:1:POST /bookings/",
        key="k-1",
        request_hash="abc",
        status_code=201,
        body=b'{"id": "x"}\x00\xff',
        created_at=NOW,
    )
    with world.uow() as uow:
        uow.idempotency.add(record)
        uow.commit()
    with world.uow() as uow:
        assert uow.idempotency.get(record.scope, "k-1") == record
        assert uow.idempotency.get(record.scope, "k-2") is None
        assert uow.idempotency.get("other-scope", "k-1") is None


def test_idempotency_key_is_stored_once(db_world: Backend) -> None:
    record = IdempotencyRecord(
        scope="s", key="k", request_hash="h", status_code=201, body=b"{}", created_at=NOW
    )
    with db_world.uow() as uow:
        uow.idempotency.add(record)
        uow.commit()
    with db_world.uow() as uow, pytest.raises(BadRequest):
        uow.idempotency.add(replace(record, request_hash="other"))


def test_outbox_claims_settle_and_retry(world: Backend) -> None:
    lease = timedelta(minutes=10)
    first = OutboxMessage.email(MailTemplate.BOOKING_PAID_USER, "b-1", id="m-1", now=NOW)
    later = OutboxMessage.email(
        MailTemplate.BOOKING_PAID_OPERATOR, "b-1", id="m-2", now=NOW + timedelta(hours=1)
    )
    with world.uow() as uow:
        uow.outbox.add(first)
        uow.outbox.add(later)
        uow.commit()
    with world.uow() as uow:
        [claimed] = uow.outbox_queue.claim_due(NOW, lease=lease, limit=10)
        uow.commit()
    assert (claimed.id, claimed.attempts, claimed.due_at, claimed.status) == (
        "m-1",
        1,
        NOW + lease,
        OutboxStatus.PENDING,
    )
    assert claimed.payload == {"template": "booking_paid_user", "booking_id": "b-1"}
    with world.uow() as uow:
        assert uow.outbox_queue.claim_due(NOW + timedelta(minutes=5), lease=lease, limit=10) == []
        assert uow.outbox_queue.mark_retry(
            claimed, NOW + timedelta(minutes=2), error="smtp down", message_id="<m-1@x>"
        )
        uow.commit()
    with world.uow() as uow:
        again = uow.outbox_queue.claim_due(NOW + timedelta(hours=1), lease=lease, limit=10)
        uow.commit()
    assert [(e.id, e.attempts, e.message_id, e.last_error) for e in again] == [
        ("m-1", 2, "<m-1@x>", "smtp down"),
        ("m-2", 1, None, None),
    ]
    with world.uow() as uow:
        # a settlement of an older claim (try 1) is refused: try 2 owns the message now
        assert not uow.outbox_queue.mark_sent(claimed, NOW, message_id="<m-1@x>", note=None, payload={})
        assert uow.outbox_queue.mark_sent(
            again[0], NOW + timedelta(hours=1), message_id="<m-1@x>", note=None, payload=again[0].payload
        )
        assert uow.outbox_queue.mark_failed(
            again[1], NOW + timedelta(hours=1), error="550", message_id="<m-2@x>"
        )
        uow.commit()
    with world.uow() as uow:
        sent, failed = (
            uow.outbox_queue.list(OutboxStatus.SENT, limit=10),
            uow.outbox_queue.list(OutboxStatus.FAILED, limit=10),
        )
        assert [(e.id, e.sent_at, e.message_id) for e in sent] == [
            ("m-1", NOW + timedelta(hours=1), "<m-1@x>")
        ]
        assert [(e.id, e.last_error) for e in failed] == [("m-2", "550")]
        assert _ids(uow.outbox_queue.list(None, limit=10)) == ["m-2", "m-1"]
        assert uow.outbox_queue.counts() == {OutboxStatus.SENT: 1, OutboxStatus.FAILED: 1}
        assert uow.outbox_queue.retry(["m-1", "nope"], NOW) == 0  # only failed messages go back
        assert uow.outbox_queue.retry(None, NOW + timedelta(hours=2)) == 1
        uow.commit()
    with world.uow() as uow:
        [retried] = uow.outbox_queue.claim_due(NOW + timedelta(hours=2), lease=lease, limit=10)
    assert (retried.id, retried.attempts, retried.message_id) == ("m-2", 1, "<m-2@x>")


def test_an_outbox_lease_is_extended_only_for_the_claim_that_holds_it(world: Backend) -> None:
    lease = timedelta(minutes=10)
    with world.uow() as uow:
        uow.outbox.add(OutboxMessage.email(MailTemplate.BOOKING_PAID_USER, "b-1", id="m-1", now=NOW))
        uow.commit()
    with world.uow() as uow:
        [claimed] = uow.outbox_queue.claim_due(NOW, lease=lease, limit=10)
        assert uow.outbox_queue.extend_lease(claimed, NOW + 2 * lease)
        uow.commit()
    with world.uow() as uow:
        # held past its first lease, then free for another worker's claim
        assert uow.outbox_queue.claim_due(NOW + lease, lease=lease, limit=10) == []
        [taken] = uow.outbox_queue.claim_due(NOW + 2 * lease, lease=lease, limit=10)
        uow.commit()
    assert (taken.id, taken.attempts, taken.due_at) == ("m-1", 2, NOW + 3 * lease)
    with world.uow() as uow:
        assert not uow.outbox_queue.extend_lease(claimed, NOW + 5 * lease)  # the first claim is lost
        assert uow.outbox_queue.mark_sent(
            taken, NOW + 2 * lease, message_id="<m-1@x>", note=None, payload=taken.payload
        )
        assert not uow.outbox_queue.extend_lease(taken, NOW + 5 * lease)  # settled: nothing to hold
        uow.commit()
    with world.uow() as uow:
        [sent] = uow.outbox_queue.list(None, limit=10)
    assert (sent.status, sent.attempts, sent.due_at) == (OutboxStatus.SENT, 2, NOW + 3 * lease)


def test_a_sent_message_keeps_the_payload_it_is_settled_with(world: Backend) -> None:
    code = OutboxMessage.account_email(MailTemplate.CONFIRM_EMAIL, "u-1", "123456", id="m-1", now=NOW)
    lease = timedelta(minutes=10)
    with world.uow() as uow:
        uow.outbox.add(code)
        uow.commit()
    with world.uow() as uow:
        [claimed] = uow.outbox_queue.claim_due(NOW, lease=lease, limit=10)
        assert uow.outbox_queue.mark_retry(claimed, NOW, error="smtp down", message_id="<m-1@x>")
        [again] = uow.outbox_queue.claim_due(NOW, lease=lease, limit=10)
        uow.commit()
    assert again.payload["code"] == "123456"  # a retry still has the code to send
    with world.uow() as uow:
        stale = uow.outbox_queue.mark_sent(claimed, NOW, message_id="<m-1@x>", note=None, payload={})
        assert not stale  # a lost claim changes nothing, the payload included
        assert uow.outbox_queue.mark_sent(
            again, NOW, message_id="<m-1@x>", note=None, payload=without_secrets(again.payload)
        )
        uow.commit()
    with world.uow() as uow:
        [sent] = uow.outbox_queue.list(OutboxStatus.SENT, limit=10)
    assert sent.payload == {"template": "confirm_email", "user_id": "u-1"}


# --------------------------------------------------------------------------- transactions


def test_changes_roll_back_unless_committed(world: Backend) -> None:
    booking = _booking("10:00", "11:00")
    with world.uow() as uow:
        uow.bookings.add(booking)
        uow.users.add(_user("00000000-0000-4000-8000-000000000003", "carl@example.com"))
    with world.uow() as uow:
        uow.bookings.add(booking)
        uow.rollback()
        uow.commit()

    def failing_use_case() -> None:
        with world.uow() as uow:
            uow.bookings.add(booking)
            raise RuntimeError("use case failed")

    with pytest.raises(RuntimeError):
        failing_use_case()
    with world.uow() as uow:
        assert uow.bookings.get(booking.id) is None
        assert uow.users.get_by_email("carl@example.com") is None


def _race(backend: Backend, attempt: Callable[[UnitOfWork, Booking], str]) -> list[str]:
    """``THREADS`` units of work try to book overlapping time at once; returns each outcome."""
    start = threading.Barrier(THREADS)

    def one(i: int) -> str:
        booking = _booking(
            "10:00" if i % 2 else "10:30",
            "11:30",
            status=BookingStatus.PENDING,
            hold_expires_at=NOW + timedelta(minutes=15),
        )
        start.wait()
        try:
            with backend.uow() as uow:
                return attempt(uow, booking)
        except SlotUnavailable:
            return "refused"

    with ThreadPoolExecutor(THREADS) as pool:
        outcomes = list(pool.map(one, range(THREADS)))
    with backend.uow() as uow:
        booked = uow.bookings.blocked_slots(1, TimeRange(_at("00:00"), _at("23:00")), NOW)
    assert len(booked) == 1
    return outcomes


def _lock_check_add(uow: UnitOfWork, booking: Booking) -> str:
    uow.resources.lock(booking.resource_id)
    for lapsed in uow.bookings.expired_holds(NOW, booking.resource_id):
        uow.bookings.save(lapsed.expire(NOW))
    if uow.bookings.blocked_slots(booking.resource_id, booking.span, NOW):
        return "observed"
    uow.bookings.add(booking)
    uow.commit()
    return "won"


@pytest.mark.slow
@pytest.mark.parametrize("serialized", [False, True])
def test_parallel_overlapping_claims_exactly_one_wins(world: Backend, serialized: bool) -> None:
    """Threads claiming overlapping time at once: one claim stores its booking, every other is
    refused, whether the neighbourhood serializes them (the gap rule) or only the constraint decides."""

    def attempt(uow: UnitOfWork, booking: Booking) -> str:
        # ``accept`` takes anything: the claim itself must refuse every loser (SlotUnavailable)
        uow.bookings.claim(
            booking, Neighbourhood(span=booking.span, serialized=serialized), _accept_all, now=NOW
        )
        uow.commit()
        return "won"

    outcomes = _race(world, attempt)
    assert outcomes.count("won") == 1
    assert outcomes.count("refused") == THREADS - 1


@pytest.mark.slow
def test_parallel_claims_of_one_user_never_hold_more_unpaid_than_the_limit(world: Backend) -> None:
    """Threads claiming free, distinct time for one user, each refused at 3 unpaid holds: exactly 3 win."""
    limit, start = 3, threading.Barrier(THREADS)

    def one(i: int) -> str:
        hour = 8 + i % 12
        booking = _booking(
            _at(f"{hour:02d}:00", DAY + timedelta(days=i // 12)),
            _at(f"{hour:02d}:30", DAY + timedelta(days=i // 12)),
            status=BookingStatus.PENDING,
            hold_expires_at=NOW + timedelta(minutes=15),
        )

        def accept(found: ClaimCheck) -> None:
            refuse_beyond_unpaid_limit(found, limit)

        start.wait()
        try:
            with world.uow() as uow:
                uow.bookings.claim(
                    booking, Neighbourhood(span=booking.span, serialized=False), accept, now=NOW
                )
                uow.commit()
                return "won"
        except TooManyUnpaid:
            return "refused"

    with ThreadPoolExecutor(THREADS) as pool:
        outcomes = list(pool.map(one, range(THREADS)))
    assert outcomes.count("won") == limit
    assert outcomes.count("refused") == THREADS - limit


@pytest.mark.slow
def test_parallel_overlapping_bookings_exactly_one_wins(world: Backend) -> None:
    outcomes = _race(world, _lock_check_add)
    assert outcomes.count("won") == 1
    assert outcomes.count("observed") + outcomes.count("refused") == THREADS - 1


def _waiting_lock(engine: Engine) -> str:
    """The kind of lock (``pg_locks.locktype``) some session of the test's database waits for."""
    with engine.connect() as connection:
        for _ in range(200):
            kind = connection.execute(
                text(
                    "SELECT locktype FROM pg_locks JOIN pg_stat_activity USING (pid) "
                    "WHERE NOT granted AND datname = current_database()"
                )
            ).scalar()
            if kind is not None:
                return str(kind)
            threading.Event().wait(0.02)
    raise AssertionError("no session waited for a lock")


def test_a_claim_of_time_being_claimed_waits_for_its_hours_not_inside_the_overlap_constraint(
    pg_backend: Backend,
) -> None:
    """Two claims of overlapping time: the later waits for the hour both touch, then its check sees
    the earlier committed and refuses it. Waiting inside the overlap constraint instead (for the
    other's uncommitted row) is where two claims deadlock, each having inserted before it looked."""
    world = _seed_world(pg_backend)
    assert world.engine is not None
    first, second = _booking("10:00", "11:00"), _booking("10:30", "11:30", user_id=OTHER_USER_ID)
    outcome: list[str] = []

    def later() -> None:
        try:
            with world.uow() as uow:
                _claim_seen(uow, second)
                uow.commit()
                outcome.append("won")
        except SlotUnavailable as refused:
            by = "the constraint" if refused.__cause__ is not None else "the check"
            outcome.append(f"refused by {by}")

    with world.uow() as uow:
        _claim_seen(uow, first)
        thread = threading.Thread(target=later)
        thread.start()
        waited = _waiting_lock(world.engine)
        uow.commit()
    thread.join(timeout=30)
    assert waited == "advisory"  # the hour's lock, not another transaction ("transactionid")
    assert outcome == ["refused by the check"]


def _book_in_process(url: str, index: int, barrier: Any, results: Any) -> None:
    """One server process: its own engine, lock-check-insert, outcome on ``results``."""
    engine = make_engine(url)
    booking = _booking(
        "10:00", "11:30", id=f"00000000-0000-4000-a000-{index:012d}", reference_code=f"P{index:07d}"
    )
    barrier.wait()
    try:
        with SqlaUnitOfWork.factory(engine)() as uow:
            results.put(_lock_check_add(uow, booking))
    except SlotUnavailable:
        results.put("refused")
    finally:
        engine.dispose()


@pytest.mark.slow
def test_parallel_processes_on_one_database_exactly_one_wins(db_world: Backend) -> None:
    assert db_world.engine is not None
    url = (
        db_world.engine.url.render_as_string(hide_password=False)
        .replace("+psycopg", "")
        .replace("+pysqlite", "")
    )
    processes_count = 8
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(processes_count), context.Queue()
    processes = [
        context.Process(target=_book_in_process, args=(url, i, barrier, results))
        for i in range(processes_count)
    ]
    for process in processes:
        process.start()
    outcomes = [results.get(timeout=60) for _ in processes]
    for process in processes:
        process.join(timeout=60)
    assert outcomes.count("won") == 1
    assert outcomes.count("observed") + outcomes.count("refused") == processes_count - 1


@pytest.mark.postgres
@pytest.mark.slow
def test_exclusion_constraint_alone_lets_one_of_many_win(pg_backend: Backend) -> None:
    _seed_world(pg_backend)

    def add_without_lock(uow: UnitOfWork, booking: Booking) -> str:
        uow.bookings.add(booking)
        uow.commit()
        return "won"

    outcomes = _race(pg_backend, add_without_lock)
    assert outcomes.count("won") == 1
    assert outcomes.count("refused") == THREADS - 1


@pytest.mark.postgres
def test_exclusion_constraint_refuses_overlap_but_not_cancelled_or_touching(pg_backend: Backend) -> None:
    _seed_world(pg_backend)
    _add(pg_backend, _booking("10:00", "11:00"))
    with pg_backend.uow() as uow, pytest.raises(SlotUnavailable):
        uow.bookings.add(_booking("10:30", "12:00", status=BookingStatus.PENDING))  # raised at add (flush)
    _add(
        pg_backend,
        _booking("11:00", "12:00"),  # touching
        _booking("10:00", "11:00", status=BookingStatus.CANCELLED),
        _booking("10:00", "11:00", resource_id=2),
    )
    expired_hold = _booking("13:00", "14:00", status=BookingStatus.PENDING, hold_expires_at=NOW)
    _add(pg_backend, expired_hold)
    with pg_backend.uow() as uow:
        # A lapsed hold still holds its row in the constraint until the use case expires it.
        uow.bookings.save(expired_hold.expire(NOW))
        uow.bookings.add(_booking("13:00", "14:00"))
        uow.commit()


def test_commit_time_overlap_is_slot_unavailable(world: Backend) -> None:
    """Without the check, the storage itself refuses a second blocking booking of the same time."""
    if world.name == "sqlite":
        pytest.skip("SQLite has no overlap constraint; BEGIN IMMEDIATE serializes lock-check-insert instead")
    _add(world, _booking("10:00", "11:00"))
    with pytest.raises(SlotUnavailable):
        _add(world, _booking("10:30", "11:30"))


# --------------------------------------------------------------------------- failures and schema


def test_a_connection_lost_mid_booking_is_storage_unavailable(pg_backend: Backend) -> None:
    """The booking's statements run on psycopg's connection: a lost one still reads as unavailable
    (not as a driver error), and the next unit of work gets a live connection."""
    world = _seed_world(pg_backend)
    assert world.engine is not None
    with world.uow() as uow:
        session = cast("SqlaUnitOfWork", uow).session
        pid = session.connection().exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
        with world.engine.begin() as other:
            other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        booking = _booking("08:00", "09:00")
        with pytest.raises(StorageUnavailable):
            _claim_seen(uow, booking)
    _add(world, _booking("10:00", "11:00"))  # the next unit of work gets a live connection
    with world.uow() as uow:
        assert uow.bookings.blocked_slots(1, TimeRange(_at("10:00"), _at("11:00")), NOW) != []


@pytest.mark.parametrize("kind", ["postgresql", "sqlite"])
def test_unreachable_database_is_storage_unavailable(kind: str, tmp_path: Path) -> None:
    # Nothing listens on port 1; a directory cannot be opened as an SQLite database file.
    url = "postgresql://postgres@127.0.0.1:1/nowhere" if kind == "postgresql" else f"sqlite:///{tmp_path}"
    engine = make_engine(url)
    uow_factory = SqlaUnitOfWork.factory(engine)
    with pytest.raises(StorageUnavailable), uow_factory() as uow:
        uow.resources.get(1)

    def add_user() -> None:
        with uow_factory() as uow:
            uow.users.add(_user())
            uow.commit()

    with pytest.raises(StorageUnavailable):
        add_user()
    assert ping(engine) is False
    engine.dispose()


def test_migrations_bring_the_database_up_to_date(sqlite_url: str) -> None:
    assert current_revision(sqlite_url) is None
    assert not is_up_to_date(sqlite_url)
    migrate_up(sqlite_url)
    migrate_up(sqlite_url)  # a second run changes nothing
    assert current_revision(sqlite_url) == head_revision()
    assert is_up_to_date(sqlite_url)
    assert Path(sqlite_url.removeprefix("sqlite:///")).exists()


def test_models_agree_with_the_migrated_schema(db_backend: Backend) -> None:
    assert db_backend.engine is not None
    assert ping(db_backend.engine)
    with warnings.catch_warnings(), db_backend.engine.connect() as connection:
        # SQLite cannot reflect the expression index on lower(email); PostgreSQL compares it.
        warnings.filterwarnings("ignore", message=".*expression-based index")
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, metadata) == []
        if connection.dialect.name == "postgresql":
            found = connection.execute(
                text("SELECT contype FROM pg_constraint WHERE conname = :name"),
                {"name": NO_OVERLAP_CONSTRAINT},
            ).scalar_one()
            assert found == "x"


def test_domain_and_rows_share_field_names() -> None:
    """A new field on Booking must get a column (the mapping functions would silently drop it)."""
    renamed = {"start": "start_at", "end": "end_at"}
    columns = set(metadata.tables["bookings"].columns.keys())
    assert {renamed.get(f.name, f.name) for f in dataclasses.fields(Booking)} <= columns


# --------------------------------------------------------------------------- reclaim (a booking moved)


def _reclaim(uow: UnitOfWork, moved: Booking, accept: Callable[[ClaimCheck], None] = _accept_all) -> None:
    uow.bookings.lock_for_change(moved.id, resource_first=True)
    uow.bookings.reclaim(moved, Neighbourhood(span=moved.span, serialized=True), accept, now=NOW)


def test_a_reclaim_moves_a_booking_onto_free_time_only(world: Backend) -> None:
    mine = _booking("09:00", "10:00")
    theirs = _booking("11:00", "12:00")
    lapsed = _booking("13:00", "14:00", status=BookingStatus.PENDING, hold_expires_at=NOW)
    _add(world, mine, theirs, lapsed)

    with world.uow() as uow, pytest.raises(SlotUnavailable):  # the storage refuses, whatever accept says
        _reclaim(uow, replace(mine, start=_at("10:30"), end=_at("11:30")))
    with world.uow() as uow:
        assert uow.bookings.get(mine.id) == mine

    seen: list[ClaimCheck] = []
    over_itself = replace(mine, start=_at("09:30"), end=_at("10:30"))
    with world.uow() as uow:
        _reclaim(uow, over_itself, seen.append)
        uow.commit()
    assert seen[0].blocking == []  # its own stored time is not shown, nor in its way
    with world.uow() as uow:
        assert uow.bookings.get(mine.id) == over_itself

    onto_lapsed = replace(mine, start=_at("13:00"), end=_at("14:00"))
    with world.uow() as uow:
        _reclaim(uow, onto_lapsed)
        uow.commit()
    with world.uow() as uow:
        assert uow.bookings.get(mine.id) == onto_lapsed
        expired = uow.bookings.get(lapsed.id)
        assert expired is not None
        assert expired.status is BookingStatus.CANCELLED

    other_resource = replace(mine, resource_id=2, start=_at("11:00"), end=_at("12:00"))
    with world.uow() as uow:
        _reclaim(uow, other_resource)
        uow.commit()
    with world.uow() as uow:
        found = uow.bookings.blocked_slots(2, TimeRange(_at("00:00"), _at("23:00")), NOW)
    assert [s.booking_id for s in found] == [mine.id]


@pytest.mark.slow
@pytest.mark.parametrize("serialized", [False, True])
def test_parallel_moves_and_claims_of_one_time_exactly_one_wins(world: Backend, serialized: bool) -> None:
    """Half the threads move a booking of their own onto 10:00-11:30, half claim new bookings there:
    exactly one of them wins, and the time holds one booking afterwards."""
    movers = [_booking(f"{12 + i}:00", f"{12 + i}:30") for i in range(THREADS // 2)]
    _add(world, *movers)
    start = threading.Barrier(THREADS)

    def one(i: int) -> str:
        start.wait()
        for _try in range(50):  # a deadlock (or SQLite's busy) runs the unit of work again, as @retried does
            try:
                with world.uow() as uow:
                    if i % 2:
                        booking = _booking("10:30", "11:30")
                        near = Neighbourhood(span=booking.span, serialized=serialized)
                        uow.bookings.claim(booking, near, _accept_all, now=NOW)
                    else:
                        # as the move's use case locks: the resource exclusively only where claims
                        # of it are serialized; a mover holding it while its UPDATE waits for a
                        # claim's row would deadlock with that claim's foreign-key check
                        locked = uow.bookings.lock_for_change(movers[i // 2].id, resource_first=serialized)
                        assert locked is not None
                        moved = replace(locked, start=_at("10:00"), end=_at("11:30"))
                        near = Neighbourhood(span=moved.span, serialized=serialized)
                        uow.bookings.reclaim(moved, near, _accept_all, now=NOW)
                    uow.commit()
                    return "won"
            except SlotUnavailable:
                return "refused"
            except TransientConflict:
                continue
        raise AssertionError("never got through")

    with ThreadPoolExecutor(THREADS) as pool:
        outcomes = list(pool.map(one, range(THREADS)))
    assert outcomes.count("won") == 1
    assert outcomes.count("refused") == THREADS - 1
    with world.uow() as uow:
        assert len(uow.bookings.blocked_slots(1, TimeRange(_at("10:00"), _at("11:30")), NOW)) == 1
