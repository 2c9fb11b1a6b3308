"""The versioned cache, and the raw-availability use case that serves from it only while exact."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from booking_core.memory import (
    FixedClock,
    InMemoryPaymentGateway,
    InMemoryStore,
    PlainPasswords,
    SequentialIds,
)
from booking_core.usecases import bookings, browse
from booking_core.usecases.deps import Deps
from booking_core.viewcache import VersionedCache
from entrypoints.bootstrap import charging_currencies
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
    return browse.get_raw_availability(deps, 1, "2026-06-02", "2026-06-03")


def _booked(view: browse.RawAvailabilityView) -> list[str]:
    return [slot.booking_id for slot in view.raw.booked_slots]


def test_raw_availability_is_served_from_the_cache_until_the_data_changes(deps: Deps) -> None:
    first = _raw(deps)
    assert _raw(deps) is first  # nothing changed: the very same result
    actor = user_actor(deps)
    made = book(deps, actor, at(2, 10))
    after_booking = _raw(deps)
    assert after_booking is not first
    assert _booked(after_booking) == [made.booking.id]
    bookings.cancel_booking(deps, actor, made.booking.id)
    assert _booked(_raw(deps)) == []


def test_a_lapsing_hold_frees_its_time_without_any_write(deps: Deps, clock: FixedClock) -> None:
    actor = user_actor(deps)
    held = book(deps, actor, at(2, 10))
    assert _booked(_raw(deps)) == [held.booking.id]
    assert held.booking.hold_expires_at is not None
    clock.current = held.booking.hold_expires_at - timedelta(seconds=1)
    assert _booked(_raw(deps)) == [held.booking.id]
    clock.current = held.booking.hold_expires_at
    assert _booked(_raw(deps)) == []


def test_each_render_is_cached_on_its_own(deps: Deps) -> None:
    as_ids = browse.render_raw_availability(deps, 1, "2026-06-02", "2026-06-03", render=_booked)
    view = _raw(deps)
    assert as_ids == _booked(view)
    assert browse.render_raw_availability(deps, 1, "2026-06-02", "2026-06-03", render=_booked) is as_ids


def test_memory_store_version_moves_on_commit_only(store: InMemoryStore) -> None:
    with store.uow() as uow:
        before = uow.resources.data_version(1)
    with store.uow() as uow:
        uow.rollback()
    with store.uow() as uow:
        assert uow.resources.data_version(1) == before
        uow.commit()
    with store.uow() as uow:
        assert uow.resources.data_version(1) != before
