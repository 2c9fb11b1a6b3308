"""A block, staff bookings, moves and customers' bookings racing for one court's time (CONTRACT 7.9),
over HTTP against ``booking serve`` with several worker processes on PostgreSQL: exactly one wins, and the
database holds no two live bookings of one resource that overlap afterwards."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import psycopg
import pytest

from tests.support.arena import RACE_DESK, RACER, race_catalog
from tests.support.postgres import require_postgres, temporary_database
from tests.support.server import serving

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

BERLIN = ZoneInfo("Europe/Berlin")
CUSTOMER, STAFF = RACER, RACE_DESK
SLOT_TAKEN = {"non_field_errors": ["The requested time slot is not available."]}
OVERLAPS = """
    SELECT count(*) FROM bookings a JOIN bookings b
      ON a.resource_id = b.resource_id AND a.id < b.id AND a.start_at < b.end_at AND b.start_at < a.end_at
    WHERE a.status IN ('pending', 'confirmed', 'paid') AND b.status IN ('pending', 'confirmed', 'paid')
"""

IN_CLOSED_TIME = """
    SELECT count(*) FROM bookings b JOIN unavailable_periods p
      ON p.resource_id = b.resource_id AND b.start_at < p.end_at AND p.start_at < b.end_at
    WHERE b.status IN ('pending', 'confirmed', 'paid')
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    require_postgres()
    tmp = tmp_path_factory.mktemp("staff-race")
    with (
        temporary_database() as url,
        # Overlapping inserts and updates under the exclusion constraint may deadlock, each resolved
        # after PostgreSQL's deadlock_timeout and run again; on a busy test machine a queue of them
        # can outlast the default lock timeout (a 503 the contract allows), which is not under test.
        serving(url, race_catalog(), tmp, workers=3, env={"BOOKING_DB_LOCK_TIMEOUT_MS": "60000"}) as base,
    ):
        courts = {r["name"]: r["id"] for r in httpx.get(f"{base}/api/v1/resources/").json()}
        yield base, courts, url


def _at(day: date, hour: int) -> str:
    return datetime(day.year, day.month, day.day, hour, tzinfo=BERLIN).isoformat()


def _headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Token {token}"}


@pytest.mark.parametrize("court", ["Court 1", "Court 2"])
def test_staff_bookings_moves_and_customers_racing_for_one_slot_exactly_one_wins(
    server: tuple[str, dict[str, int], str], court: str
) -> None:
    base, courts, url = server
    resource = courts[court]
    venue = httpx.get(f"{base}/api/v1/operator/venues/", headers=_headers(STAFF)).json()[0]["id"]
    day = datetime.now(BERLIN).date() + timedelta(days=3 if court == "Court 1" else 20)
    staff_body = {"resource": resource, "customer": {"email": "walkin@example.com"}, "payment": "at_venue"}
    movable = []
    for n in range(8):  # each on a day of its own, to be moved onto the contested hour
        other_day = day + timedelta(days=n + 1)
        body = {**staff_body, "start_datetime": _at(other_day, 10), "end_datetime": _at(other_day, 11)}
        made = httpx.post(f"{base}/api/v1/operator/bookings/", json=body, headers=_headers(STAFF), timeout=60)
        assert made.status_code == 201, made.text
        movable.append(made.json()["id"])
    slot = {"start_datetime": _at(day, 10), "end_datetime": _at(day, 11)}
    requests: list[tuple[str, dict[str, Any], str]] = []
    for n in range(8):
        requests.append(("/api/v1/bookings/", {"resource": resource, **slot}, CUSTOMER))
        requests.append(("/api/v1/operator/bookings/", {**staff_body, **slot}, STAFF))
        requests.append((f"/api/v1/operator/bookings/{movable[n]}/move/", slot, STAFF))
    block = {"resource_ids": [resource], "reason": "event", **slot}
    requests.insert(len(requests) // 2, (f"/api/v1/operator/venues/{venue}/blocks/", block, STAFF))

    def post(request: tuple[str, dict[str, Any], str]) -> httpx.Response:
        path, body, token = request
        return httpx.post(f"{base}{path}", json=body, headers=_headers(token), timeout=60)

    with ThreadPoolExecutor(max_workers=len(requests)) as pool:
        responses = list(pool.map(post, requests))
    won = [r for r in responses if r.status_code in {200, 201}]
    assert len(won) == 1, [(r.status_code, r.text) for r in responses]
    refused = [r for r in responses if r.status_code not in {200, 201}]
    # a booking refused for the time; the block, when a booking came first, refused listing it (409)
    assert {r.status_code for r in refused} <= {400, 409}, [r.text for r in refused]
    assert all(r.json() == SLOT_TAKEN for r in refused if r.status_code == 400), {r.text for r in refused}
    with psycopg.connect(url) as connection:
        (overlapping,) = connection.execute(OVERLAPS).fetchone() or (None,)
        (in_closed_time,) = connection.execute(IN_CLOSED_TIME).fetchone() or (None,)
    assert (overlapping, in_closed_time) == (0, 0)
