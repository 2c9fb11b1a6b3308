"""Blocks, staff bookings, moves and customers' bookings racing for one court (CONTRACT 7.9).

``booking serve`` runs with four worker processes on SQLite and on PostgreSQL. Every request of
four kinds asks for the same hour of one court: staff closing it, staff booking a walk-in, staff
moving a booking made earlier onto it, and customers booking it. Exactly one of them wins: one
booking (made or moved), or else closed time and no booking. Blocks do not conflict with one
another (closed time may be closed again), so when a block comes first every block is placed. The
storage decides (the overlap constraint and the blocks' trigger on PostgreSQL, the one writer on
SQLite).
Afterwards the database itself is asked for overlaps: live bookings with each other, and with blocks.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
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

pytestmark = [pytest.mark.slow]

BERLIN = ZoneInfo("Europe/Berlin")
DESK = "race-desk-token"
CUSTOMERS = [f"race-customer-{n}" for n in range(8)]
OPERATOR = "/api/v1/operator"
OF_EACH_KIND = 25  # blocks, staff bookings and customers' bookings; the moves come on top


def _catalog() -> dict[str, object]:
    venue = berlin_venue("race-club", "Race Club", [court("Centre", interval_minutes=30)])
    users = [person("desk@race.example", DESK)]
    users += [person(f"c{n}@race.example", token) for n, token in enumerate(CUSTOMERS)]
    return {
        "venues": [venue],
        "users": users,
        "clients": [],
        "staff": [desk_of("desk@race.example", "race-club")],
    }


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'race.sqlite3'}"
        with serving(url, _catalog(), tmp_path, workers=4) as base:
            yield base, url
        return
    require_postgres()
    with temporary_database() as url, serving(url, _catalog(), tmp_path, workers=4) as base:
        yield base, url


def _at(day: date, hour: int) -> str:
    return datetime(day.year, day.month, day.day, hour, tzinfo=BERLIN).isoformat()


def _headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Token {token}"}


def test_a_hundred_mixed_claims_for_one_hour_exactly_one_wins(
    server: tuple[str, str], tmp_path: Path
) -> None:
    base, url = server
    venues = httpx.get(f"{base}{OPERATOR}/venues/", headers=_headers(DESK)).json()
    venue_id, court = venues[0]["id"], venues[0]["resources"][0]["id"]
    day = datetime.now(BERLIN).date() + timedelta(days=3)
    contested = {"start_datetime": _at(day, 10), "end_datetime": _at(day, 11)}

    def walk_in(start_hour: int, on: date) -> dict[str, object]:
        return {
            "resource": court,
            "start_datetime": _at(on, start_hour),
            "end_datetime": _at(on, start_hour + 1),
            "participant_count": 1,
            "customer": {"email": f"walkin{start_hour}@race.example", "first_name": "W", "last_name": "I"},
            "payment": "at_venue",
        }

    # bookings elsewhere that the movers will try to move onto the contested hour
    movable = []
    for other_day in (day + timedelta(days=1), day + timedelta(days=2)):
        for hour in range(7, 22):
            made = httpx.post(
                f"{base}{OPERATOR}/bookings/", json=walk_in(hour, other_day), headers=_headers(DESK)
            )
            assert made.status_code == 201, made.text
            movable.append(made.json()["id"])

    calls: list[tuple[str, str, dict[str, object], str]] = []
    for n in range(OF_EACH_KIND):
        block = {"resource_ids": [court], **contested, "reason": "maintenance", "note": f"race {n}"}
        calls.append(("block", f"{OPERATOR}/venues/{venue_id}/blocks/", block, DESK))
        staff_booking = walk_in(10, day) | {"customer": {"email": f"s{n}@race.example"}}
        calls.append(("staff booking", f"{OPERATOR}/bookings/", staff_booking, DESK))
        customer = {"resource": court, **contested}
        calls.append(("customer", "/api/v1/bookings/", customer, CUSTOMERS[n % len(CUSTOMERS)]))
    for booking_id in movable:
        calls.append(("move", f"{OPERATOR}/bookings/{booking_id}/move/", dict(contested), DESK))
    random.Random(7).shuffle(calls)

    def call(kind_path_body_token: tuple[str, str, dict[str, object], str]) -> tuple[str, httpx.Response]:
        kind, path, body, token = kind_path_body_token
        return kind, httpx.post(f"{base}{path}", json=body, headers=_headers(token), timeout=120)

    with ThreadPoolExecutor(max_workers=32) as pool:
        answers = list(pool.map(call, calls))

    assert len(answers) >= 100
    errors = [(kind, r.status_code, r.text) for kind, r in answers if r.status_code >= 500]
    assert errors == []
    won = [kind for kind, r in answers if r.status_code in {200, 201}]
    blocks_won = won.count("block")
    assert len(won) == 1 or blocks_won == len(won) == OF_EACH_KIND, won
    refused = {r.status_code for _, r in answers if r.status_code not in {200, 201}}
    assert refused <= {400, 409}, refused
    # decided one after another, not by deadlocks the database breaks a second later each
    logs = "".join(log.read_text() for log in tmp_path.glob("serve-*.log"))
    assert "deadlock" not in logs.lower()

    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            live = "status IN ('confirmed', 'paid') OR (status = 'pending' AND hold_expires_at > :now)"
            now = datetime.now(BERLIN)
            bookings = connection.execute(
                text(f"SELECT id, resource_id, start_at, end_at FROM bookings WHERE {live}"), {"now": now}
            ).all()
            blocks = connection.execute(
                text("SELECT id, resource_id, start_at, end_at FROM unavailable_periods")
            ).all()
    finally:
        engine.dispose()

    def overlap(a: tuple[object, ...], b: tuple[object, ...]) -> bool:
        return bool(a[1] == b[1] and _utc(a[2]) < _utc(b[3]) and _utc(b[2]) < _utc(a[3]))

    pairs = [(a[0], b[0]) for i, a in enumerate(bookings) for b in bookings[i + 1 :] if overlap(a, b)]
    assert pairs == []
    crossing = [(a[0], b[0]) for a in bookings for b in blocks if overlap(a, b)]
    assert crossing == []
    in_the_hour = [b for b in bookings if overlap(b, (None, court, _utc(_at(day, 10)), _utc(_at(day, 11))))]
    assert (len(in_the_hour), len(blocks)) in {(1, 0), (0, blocks_won)}, (in_the_hour, blocks)


def _utc(value: object) -> datetime:
    instant = datetime.fromisoformat(value) if isinstance(value, str) else value
    assert isinstance(instant, datetime)
    return instant if instant.tzinfo else instant.replace(tzinfo=ZoneInfo("UTC"))
