"""Blocks racing bookings over HTTP against `booking serve` with several worker processes, on
PostgreSQL and SQLite (CONTRACT 7.9): a block and a customer's booking for overlapping time of one
resource never both win, whichever process serves which; the database is counted afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import pytest
from sqlalchemy import text

from adapters.sqla import make_engine
from tests.support.arena import berlin_venue, court, desk_of, person
from tests.support.postgres import require_postgres, temporary_database
from tests.support.server import serving

pytestmark = pytest.mark.slow

BERLIN = ZoneInfo("Europe/Berlin")
CUSTOMER = "block-race-customer"
DESK = "block-race-desk"
HOURS = ("08:00:00", "22:00:00")


def _catalog() -> dict[str, object]:
    return {
        "venues": [
            berlin_venue("block-race", "Block Race Arena", [court("Court", interval_minutes=30, hours=HOURS)])
        ],
        "users": [person("player@example.com", CUSTOMER), person("desk@block-race.example", DESK)],
        "clients": [],
        "staff": [desk_of("desk@block-race.example", "block-race")],
    }


@contextmanager
def _database(backend: str, tmp: Path) -> Iterator[str]:
    if backend == "sqlite":
        yield f"sqlite:///{tmp / 'race.sqlite3'}"
        return
    require_postgres()
    with temporary_database() as url:
        yield url


@pytest.fixture(scope="module", params=[pytest.param("postgres", marks=pytest.mark.postgres), "sqlite"])
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str, int, int]]:
    tmp = tmp_path_factory.mktemp("block-race")
    with _database(request.param, tmp) as url, serving(url, _catalog(), tmp, workers=3) as base:
        (court,) = httpx.get(f"{base}/api/v1/resources/").json()
        yield base, url, court["id"], court["venue"]


def _at(day: date, minutes: int) -> str:
    return (datetime(day.year, day.month, day.day, tzinfo=BERLIN) + timedelta(minutes=minutes)).isoformat()


def _requests(
    base: str, court: int, venue: int, day: date, starts: list[int]
) -> list[tuple[str, dict[str, object]]]:
    """A booking and a block of one hour for each start (minutes after midnight), interleaved."""
    out: list[tuple[str, dict[str, object]]] = []
    for n, start in enumerate(starts):
        span = {"start_datetime": _at(day, start), "end_datetime": _at(day, start + 60)}
        booking = ("booking", {"resource": court, **span})
        block = ("block", {"resource_ids": [court], "reason": "maintenance", **span})
        out += [booking, block] if n % 2 else [block, booking]
    return out


def _send(base: str, venue: int, requests: list[tuple[str, dict[str, object]]]) -> list[httpx.Response]:
    def send(request: tuple[str, dict[str, object]]) -> httpx.Response:
        kind, body = request
        if kind == "booking":
            url, token = f"{base}/api/v1/bookings/", CUSTOMER
        else:
            url, token = f"{base}/api/v1/operator/venues/{venue}/blocks/", DESK
        return httpx.post(url, json=body, headers={"Authorization": f"Token {token}"}, timeout=60)

    with ThreadPoolExecutor(max_workers=len(requests)) as pool:
        return list(pool.map(send, requests))


def _overlaps_in_database(url: str, court: int) -> int:
    """Live bookings (pending, confirmed, paid) overlapping closed time of the court."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            found = connection.execute(
                text(
                    "SELECT count(*) FROM bookings b JOIN unavailable_periods u "
                    "ON u.resource_id = b.resource_id WHERE b.resource_id = :court "
                    "AND b.status IN ('pending', 'confirmed', 'paid') "
                    "AND b.start_at < u.end_at AND u.start_at < b.end_at"
                ),
                {"court": court},
            ).scalar_one()
    finally:
        engine.dispose()
    return int(found)


def test_blocks_and_bookings_for_one_slot_never_both_win(server: tuple[str, str, int, int]) -> None:
    base, url, court, venue = server
    day = datetime.now(BERLIN).date() + timedelta(days=3)
    responses = _send(base, venue, _requests(base, court, venue, day, [10 * 60] * 16))
    kinds = ["block" if "operator" in str(r.request.url) else "booking" for r in responses]
    won = {
        kind: sum(1 for k, r in zip(kinds, responses, strict=True) if k == kind and r.status_code == 201)
        for kind in ("block", "booking")
    }
    assert all(r.status_code in {201, 400, 409} for r in responses), [
        r.text for r in responses if r.status_code >= 500
    ]
    # blocks may share time with each other, never with a booking
    assert (won["booking"], won["block"] > 0) in {(1, False), (0, True)}, won
    assert _overlaps_in_database(url, court) == 0


def test_overlapping_blocks_and_bookings_leave_no_booking_in_closed_time(
    server: tuple[str, str, int, int],
) -> None:
    base, url, court, venue = server
    for offset in (4, 5, 6, 7):
        day = datetime.now(BERLIN).date() + timedelta(days=offset)
        starts = [9 * 60 + 30 * (n % 10) for n in range(16)]
        responses = _send(base, venue, _requests(base, court, venue, day, starts))
        assert all(r.status_code in {201, 400, 409} for r in responses), [
            r.text for r in responses if r.status_code >= 500
        ]
        assert any(r.status_code == 201 for r in responses)
        refused = [r.json() for r in responses if r.status_code == 409]
        assert all(body["error"] == "the block overlaps bookings" and body["conflicts"] for body in refused)
    assert _overlaps_in_database(url, court) == 0
