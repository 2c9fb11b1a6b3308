"""The versioned cache, the availability answers' validity, and the web layer's cache of them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.sqla.repositories.accounts import PRINCIPAL
from booking_core.errors import BadRequest
from booking_core.memory import (
    FixedClock,
    InMemoryPaymentGateway,
    InMemoryStore,
    PlainPasswords,
    SequentialIds,
)
from booking_core.ports import DataVersion
from booking_core.usecases import bookings, browse
from booking_core.usecases.deps import Deps
from booking_core.viewcache import VersionedCache
from entrypoints.bootstrap import charging_currencies
from entrypoints.http.availability_cache import AnswerKey, AvailabilityAnswers, Encoded
from tests.unit.test_usecase_flow import NOW, at, book, court, user_actor

T0 = datetime(2026, 6, 1, tzinfo=UTC)


def test_hit_only_at_the_same_version() -> None:
    cache = VersionedCache()
    cache.put("k", (1, 2), None, "value")
    assert cache.get("k", (1, 2), T0) == "value"
    assert cache.get("k", (1, 3), T0) is None
    # a miss at another version drops the entry: the old version never comes back
    assert cache.get("k", (1, 2), T0) is None


def test_entry_expires_at_valid_until() -> None:
    cache = VersionedCache()
    cache.put("k", (1,), T0 + timedelta(minutes=5), "value")
    assert cache.get("k", (1,), T0 + timedelta(minutes=4, seconds=59)) == "value"
    assert cache.get("k", (1,), T0 + timedelta(minutes=5)) is None


def test_least_recently_used_entries_go_first() -> None:
    cache = VersionedCache(max_entries=2)
    cache.put("a", (1,), None, "A")
    cache.put("b", (1,), None, "B")
    assert cache.get("a", (1,), T0) == "A"  # "a" is now the most recent
    cache.put("c", (1,), None, "C")
    assert len(cache) == 2
    assert cache.get("b", (1,), T0) is None
    assert cache.get("a", (1,), T0) == "A"
    assert cache.get("c", (1,), T0) == "C"


def test_zero_entries_keeps_nothing_and_negative_is_refused() -> None:
    cache = VersionedCache(max_entries=0)
    cache.put("a", (1,), None, "A")
    assert cache.get("a", (1,), T0) is None
    with pytest.raises(ValueError, match="max_entries"):
        VersionedCache(max_entries=-1)


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3)), max_size=60), st.integers(1, 4))
def test_never_more_than_max_entries_and_never_a_stale_version(ops: list[tuple[int, int]], size: int) -> None:
    cache = VersionedCache(max_entries=size)
    latest: dict[int, int] = {}
    for key, version in ops:
        cache.put(key, (version,), None, (key, version))
        latest[key] = version
        assert len(cache) <= size
    for key, version in latest.items():
        assert cache.get(key, (version,), T0) in {None, (key, version)}


@pytest.fixture
def store() -> InMemoryStore:
    store = InMemoryStore()
    store.add_resource(court(1))
    return store


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(NOW)


@pytest.fixture
def deps(store: InMemoryStore, clock: FixedClock) -> Deps:
    return Deps(
        uow=store.uow,
        clock=clock,
        ids=SequentialIds(),
        passwords=PlainPasswords(),
        payments=InMemoryPaymentGateway(),
        currencies=charging_currencies(),
    )


def _raw(deps: Deps) -> browse.RawAvailabilityView:
    return browse.get_raw_availability(deps, 1, date(2026, 6, 2), date(2026, 6, 3))


def _booked(view: browse.RawAvailabilityView) -> list[str]:
    return [slot.booking_id for slot in view.raw.booked_slots]


def _version(deps: Deps) -> DataVersion | None:
    with deps.read() as uow:
        return uow.availability.version(1)


def test_raw_availability_says_at_which_version_it_holds(deps: Deps) -> None:
    first = _raw(deps)
    assert first.validity is not None
    assert first.validity == browse.Validity(version=first.validity.version, until=None)
    assert first.validity.version == _version(deps)
    actor = user_actor(deps)
    made = book(deps, actor, at(2, 10))
    after_booking = _raw(deps)
    assert after_booking.validity is not None
    assert after_booking.validity.version == _version(deps) != first.validity.version
    assert _booked(after_booking) == [made.booking.id]
    bookings.cancel_booking(deps, actor, made.booking.id)
    assert _booked(_raw(deps)) == []


def test_a_lapsing_hold_ends_the_answers_validity(deps: Deps, clock: FixedClock) -> None:
    actor = user_actor(deps)
    held = book(deps, actor, at(2, 10))
    view = _raw(deps)
    assert _booked(view) == [held.booking.id]
    assert view.validity is not None
    assert held.booking.hold_expires_at is not None
    assert view.validity.until == held.booking.hold_expires_at
    clock.current = held.booking.hold_expires_at
    assert _booked(_raw(deps)) == []


def test_the_dates_are_checked_by_the_use_case_too(deps: Deps) -> None:
    with pytest.raises(BadRequest, match="must not be before"):
        browse.get_raw_availability(deps, 1, date(2026, 6, 3), date(2026, 6, 2))
    with pytest.raises(BadRequest, match="at most 31 days"):
        browse.get_raw_availability(deps, 1, date(2026, 6, 1), date(2026, 7, 3))


class _Versions:
    """A :class:`~booking_core.ports.DataVersions` the test sets."""

    def __init__(self) -> None:
        self.current: DataVersion | None = (1,)

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def version(self, resource_id: int) -> DataVersion | None:
        return self.current


def test_the_web_layer_keeps_each_routes_answer_at_its_version(clock: FixedClock) -> None:
    versions = _Versions()
    answers = AvailabilityAnswers(versions, clock)
    runs: list[str] = []

    def compute(body: str, until: datetime | None = None) -> Callable[[], Encoded]:
        def run() -> Encoded:
            runs.append(body)
            return Encoded(body.encode(), browse.Validity(version=(1,), until=until))

        return run

    raw = AnswerKey("raw_availability", 1, date(2026, 6, 2), date(2026, 6, 3))
    free = AnswerKey("availability", 1, date(2026, 6, 2), date(2026, 6, 3))

    async def ask() -> list[bytes]:
        return [
            await answers.answer(raw, compute("raw")),
            await answers.answer(raw, compute("raw again")),  # kept: the same version
            await answers.answer(free, compute("free", until=clock.now() + timedelta(minutes=1))),
            await answers.answer(free, compute("free again")),
        ]

    assert asyncio.run(ask()) == [b"raw", b"raw", b"free", b"free"]
    assert runs == ["raw", "free"]
    clock.current += timedelta(minutes=1)  # time alone ends the free ranges' answer
    assert asyncio.run(answers.answer(free, compute("free 2"))) == b"free 2"
    versions.current = (2,)  # and the data's change the raw one
    assert asyncio.run(answers.answer(raw, compute("raw 2"))) == b"raw 2"
    versions.current = None  # cannot tell: nothing is served from memory
    assert asyncio.run(answers.answer(free, compute("free 3"))) == b"free 3"


def test_the_token_statement_carries_no_catalog_revision() -> None:
    assert "catalog_revision" not in PRINCIPAL.sql


def test_memory_store_version_moves_on_commit_only(store: InMemoryStore) -> None:
    with store.uow() as uow:
        before = uow.availability.version(1)
        assert before == (uow.catalog_revision(),)
    with store.uow() as uow:
        uow.rollback()
    with store.uow() as uow:
        assert uow.availability.version(1) == before
        uow.commit()
    with store.uow() as uow:
        assert uow.availability.version(1) != before
