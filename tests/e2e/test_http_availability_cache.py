"""Raw availability is cached per process yet always exact, whoever changes the data.

Two apps on one database stand for two server processes: one caches, the other (or an operator's
SQL, or the catalog loader) writes, and the first must answer with the new truth at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from copy import deepcopy
from typing import Any

import pytest
from sqlalchemy import text

from adapters.catalog import validate_catalog, write_catalog
from adapters.passwords import Argon2Passwords
from adapters.sqla.version_probe import DataVersionProbe
from booking_core.usecases import browse
from entrypoints.bootstrap import Services
from entrypoints.http.availability_cache import ANSWERS_STATE, AvailabilityAnswers
from tests.support.http_fixtures import (
    ANNA,
    CATALOG,
    NOW,
    Api,
    auth,
    book,
    clone_postgres,
    database_url,
    loaded_sqlite_url,
    postgres_template,
    sqlite_template,
    start,
)
from tests.support.server import free_port

__all__ = ["clone_postgres", "database_url", "loaded_sqlite_url", "postgres_template", "sqlite_template"]

DAY = "start_date=2026-06-05&end_date=2026-06-05"


@pytest.fixture
def two(database_url: str) -> Iterator[tuple[Api, Api]]:
    """Two apps, each with its own cache, on the same database."""
    for first in start(database_url):
        for second in start(database_url):
            yield first, second


def raw(api: Api, court: str = "Court 1") -> dict[str, Any]:
    response = api.client.get(f"/api/v1/resources/{api.resources[court]}/availability/?{DAY}")
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def booked(api: Api, court: str = "Court 1") -> list[str]:
    return [slot["booking_id"] for slot in raw(api, court)["booked_slots"]]


def test_a_booking_made_elsewhere_shows_at_once(two: tuple[Api, Api]) -> None:
    reader, writer = two
    assert booked(reader) == []
    assert booked(reader) == []  # now served from the reader's cache
    made = book(writer, ANNA, "Court 1", "2026-06-05T14:00:00+02:00", "2026-06-05T15:00:00+02:00")
    assert booked(reader) == [made["id"]]
    cancel = writer.client.post(f"/api/v1/bookings/{made['id']}/cancel/", json={}, headers=auth(ANNA))
    assert cancel.status_code == 200, cancel.text
    assert booked(reader) == []


def test_an_operators_sql_is_seen_too(two: tuple[Api, Api]) -> None:
    reader, writer = two
    made = book(writer, ANNA, "Court 1", "2026-06-05T14:00:00+02:00", "2026-06-05T15:00:00+02:00")
    assert booked(reader) == [made["id"]]
    with reader.services.engine.begin() as connection:
        connection.execute(
            text("UPDATE bookings SET status = 'cancelled' WHERE id = :id"), {"id": made["id"]}
        )
    assert booked(reader) == []


def test_another_resources_booking_keeps_the_answer(two: tuple[Api, Api]) -> None:
    reader, writer = two
    first = raw(reader)
    book(writer, ANNA, "Court 2", "2026-06-05T14:00:00+02:00", "2026-06-05T15:00:00+02:00")
    assert raw(reader) == first
    assert len(raw(reader, "Court 2")["booked_slots"]) == 1


def test_a_lapsed_hold_frees_its_time_before_any_sweep(two: tuple[Api, Api]) -> None:
    reader, writer = two
    made = book(writer, ANNA, "Court 1", "2026-06-05T14:00:00+02:00", "2026-06-05T15:00:00+02:00")
    assert booked(reader) == [made["id"]]
    reader.clock.advance(minutes=14, seconds=59)
    assert booked(reader) == [made["id"]]
    reader.clock.advance(seconds=1)
    assert booked(reader) == []


def test_a_catalog_change_shows_at_once(two: tuple[Api, Api]) -> None:
    reader, _writer = two
    before = raw(reader)
    catalog = deepcopy(dict(CATALOG))
    court = next(r for v in catalog["venues"] for r in v["resources"] if r["name"] == "Court 1")
    court["booking_interval_minutes"] = 15
    write_catalog(reader.services.engine, validate_catalog(catalog), Argon2Passwords(), now=NOW)
    after = raw(reader)
    assert before["windows"][0]["booking_interval_minutes"] == 30
    assert after["windows"][0]["booking_interval_minutes"] == 15


def free(api: Api, day: str = "2026-06-01", court: str = "Court 1") -> list[tuple[str, str]]:
    query = f"resource_id={api.resources[court]}&start_date={day}&end_date={day}"
    response = api.client.get(f"/api/v1/resources/availability/?{query}")
    assert response.status_code == 200, response.text
    return [(r["start_time"], r["end_time"]) for r in response.json()["available_ranges"]]


def test_free_ranges_follow_a_booking_made_elsewhere(two: tuple[Api, Api]) -> None:
    reader, writer = two
    assert free(reader, "2026-06-05") == [("12:00:00", "17:00:00"), ("17:00:00", "22:00:00")]
    assert free(reader, "2026-06-05") == [("12:00:00", "17:00:00"), ("17:00:00", "22:00:00")]
    book(writer, ANNA, "Court 1", "2026-06-05T14:00:00+02:00", "2026-06-05T15:00:00+02:00")
    assert free(reader, "2026-06-05") == [
        ("12:00:00", "14:00:00"),
        ("15:00:00", "17:00:00"),
        ("17:00:00", "22:00:00"),
    ]


def test_free_ranges_move_with_the_clock(two: tuple[Api, Api]) -> None:
    reader, _writer = two
    # 08:00 now, a start no longer in the future; from 08:30 the gap rule would leave 30 minutes
    # before it in the free block that opens at 08:00
    assert free(reader)[0] == ("09:00:00", "17:00:00")
    reader.clock.advance(minutes=59, seconds=59)
    assert free(reader)[0] == ("09:00:00", "17:00:00")
    reader.clock.advance(seconds=1)
    assert free(reader)[0] == ("09:30:00", "17:00:00")  # 09:00 is now


def test_free_ranges_priced_by_demand_are_not_kept(two: tuple[Api, Api]) -> None:
    reader, _writer = two
    free(reader, "2026-06-05", "Court 2")  # Court 2 prices by demand, which moves with time
    assert len(answers(reader)) == 0
    free(reader, "2026-06-05", "Court 1")
    assert len(answers(reader)) == 1


def answers(api: Api) -> AvailabilityAnswers:
    kept = api.client.app.state[ANSWERS_STATE]
    assert isinstance(kept, AvailabilityAnswers)
    return kept


class _Runs:
    """Counts the runs of a use case the routes call (on a handler thread)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
        self.count = 0
        real = getattr(browse, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(browse, name, counted)


@pytest.mark.postgres
def test_a_remembered_answer_is_served_without_running_the_use_case(
    clone_postgres: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # PostgreSQL: the route reads the data version on the event loop and answers from memory
    raw_runs = _Runs(monkeypatch, "get_raw_availability")
    free_runs = _Runs(monkeypatch, "get_availability")
    for reader in start(clone_postgres):
        for writer in start(clone_postgres):
            assert booked(reader) == []
            assert booked(reader) == []
            assert free(reader, "2026-06-05") == free(reader, "2026-06-05")
            assert (raw_runs.count, free_runs.count) == (1, 1)
            made = book(writer, ANNA, "Court 1", "2026-06-05T14:00:00+02:00", "2026-06-05T15:00:00+02:00")
            assert booked(reader) == [made["id"]]
            assert ("14:00:00", "15:00:00") not in free(reader, "2026-06-05")
            assert (raw_runs.count, free_runs.count) == (2, 2)
            bad = reader.client.get(f"/api/v1/resources/{reader.resources['Court 1']}/availability/")
            assert bad.status_code == 400
            assert "start_date" in bad.json()["error"]


def test_without_a_probe_the_version_is_read_on_a_thread_and_the_answer_kept(
    loaded_sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SQLite has no async driver: the version is read through the use case, the answer still kept
    raw_runs = _Runs(monkeypatch, "get_raw_availability")
    free_runs = _Runs(monkeypatch, "get_availability")
    for reader in start(loaded_sqlite_url):
        assert reader.services.version_probe() is None
        assert booked(reader) == []
        assert booked(reader) == []
        assert free(reader, "2026-06-05") == free(reader, "2026-06-05")
        assert (raw_runs.count, free_runs.count) == (1, 1)
        book(reader, ANNA, "Court 1", "2026-06-05T14:00:00+02:00", "2026-06-05T15:00:00+02:00")
        assert len(booked(reader)) == 1
        assert raw_runs.count == 2


@pytest.mark.postgres
def test_a_probe_that_cannot_tell_leaves_the_answer_to_the_use_case(
    clone_postgres: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a probe aimed where nothing listens gives up; the route still answers, from the database
    nowhere = f"postgresql://postgres@127.0.0.1:{free_port()}/nowhere"
    monkeypatch.setattr(Services, "version_probe", lambda _services: DataVersionProbe(nowhere))
    runs = _Runs(monkeypatch, "get_raw_availability")
    for api in start(clone_postgres):
        made = book(api, ANNA, "Court 1", "2026-06-05T14:00:00+02:00", "2026-06-05T15:00:00+02:00")
        assert booked(api) == [made["id"]]
        assert runs.count == 1
