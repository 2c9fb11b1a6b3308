"""Races over HTTP against `booking serve` with several worker processes on PostgreSQL.

The no-double-booking guarantee must hold across processes, not only threads: exactly one of
many concurrent requests for a slot wins, and the gap rule holds for neighbouring requests. Court 1
has the gap rule, so its bookings are checked one after another under the court's lock; Court 2 has
not, so its bookings run side by side and the overlap constraint decides between them.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
import pytest

from tests.support.arena import RACER, race_catalog
from tests.support.postgres import require_postgres, temporary_database
from tests.support.server import serving

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

BERLIN = ZoneInfo("Europe/Berlin")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, int]]]:
    require_postgres()
    with (
        temporary_database() as url,
        serving(url, race_catalog(), tmp_path_factory.mktemp("race"), workers=3) as base,
    ):
        yield base, {r["name"]: r["id"] for r in httpx.get(f"{base}/api/v1/resources/").json()}


def _at(day: date, hour: int, minute: int = 0) -> str:
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=BERLIN).isoformat()


def _post_all(base: str, bodies: list[dict[str, object]]) -> list[httpx.Response]:
    headers = {"Authorization": f"Token {RACER}"}

    def post(body: dict[str, object]) -> httpx.Response:
        return httpx.post(f"{base}/api/v1/bookings/", json=body, headers=headers, timeout=60)

    with ThreadPoolExecutor(max_workers=len(bodies)) as pool:
        return list(pool.map(post, bodies))


@pytest.mark.parametrize("court", ["Court 1", "Court 2"])
def test_fifty_requests_for_one_slot_exactly_one_wins(server: tuple[str, dict[str, int]], court: str) -> None:
    base, courts = server
    day = datetime.now(BERLIN).date() + timedelta(days=3)
    body = {"resource": courts[court], "start_datetime": _at(day, 10), "end_datetime": _at(day, 11)}
    responses = _post_all(base, [body] * 50)
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [400] * 49, statuses
    refusals = {r.text for r in responses if r.status_code == 400}
    # the same answer whether the check or the storage's constraint refused
    assert [json.loads(text) for text in refusals] == [
        {"non_field_errors": ["The requested time slot is not available."]}
    ], refusals


def test_overlapping_requests_without_the_gap_rule_never_both_win(server: tuple[str, dict[str, int]]) -> None:
    """Sixty requests of 1 to 2 hours, starting every half hour from 10:00, for a court without the
    gap rule: the ones that win cover disjoint times and the rest are refused as taken."""
    base, courts = server
    day = datetime.now(BERLIN).date() + timedelta(days=5)
    first = datetime(day.year, day.month, day.day, 10, tzinfo=BERLIN)
    bodies = []
    for n in range(60):
        start = first + timedelta(minutes=30 * (n % 12))
        end = start + timedelta(minutes=60 + 30 * (n % 3))
        bodies.append(
            {
                "resource": courts["Court 2"],
                "start_datetime": start.isoformat(),
                "end_datetime": end.isoformat(),
            }
        )
    responses = _post_all(base, bodies)
    assert {r.status_code for r in responses} == {201, 400}, [
        r.text for r in responses if r.status_code >= 500
    ]
    won = sorted(
        (datetime.fromisoformat(b["start_datetime"]), datetime.fromisoformat(b["end_datetime"]))
        for b, r in zip(bodies, responses, strict=True)
        if r.status_code == 201
    )
    for (_s1, end), (start, _e2) in itertools.pairwise(won):
        assert end <= start, won
    availability = httpx.get(
        f"{base}/api/v1/resources/{courts['Court 2']}/availability/",
        params={"start_date": str(day), "end_date": str(day)},
    ).json()
    assert len(availability["booked_slots"]) == len(won)


def test_neighbours_racing_cannot_leave_an_unbookable_gap(server: tuple[str, dict[str, int]]) -> None:
    base, courts = server
    resource = courts["Court 1"]
    day = datetime.now(BERLIN).date() + timedelta(days=4)
    fences = [
        {"resource": resource, "start_datetime": _at(day, 9), "end_datetime": _at(day, 10)},
        {"resource": resource, "start_datetime": _at(day, 13), "end_datetime": _at(day, 14)},
    ]
    assert [r.status_code for r in _post_all(base, fences)] == [201, 201]
    # Free block 10:00-13:00. Each request alone is valid; together they leave 11:00-11:30 free.
    left = {"resource": resource, "start_datetime": _at(day, 10), "end_datetime": _at(day, 11)}
    right = {"resource": resource, "start_datetime": _at(day, 11, 30), "end_datetime": _at(day, 13)}
    responses = _post_all(base, [left, right] * 25)
    statuses = [r.status_code for r in responses]
    assert sorted(statuses) == [201] + [400] * 49, statuses
    assert all(r.status_code < 500 for r in responses)
    availability = httpx.get(
        f"{base}/api/v1/resources/{resource}/availability/",
        params={"start_date": str(day), "end_date": str(day)},
    ).json()
    booked = sorted((s["start_datetime"], s["end_datetime"]) for s in availability["booked_slots"])
    assert len(booked) == 3
    for (_s1, end), (start, _e2) in itertools.pairwise(booked):
        gap = (datetime.fromisoformat(start) - datetime.fromisoformat(end)).total_seconds() / 60
        assert gap == 0 or gap >= 60, booked
