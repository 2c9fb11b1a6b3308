"""Every statement the hot paths run reads bookings, their revision counters, mappings and commissions
through an index.

The app runs against PostgreSQL holding enough rows (the bulk seeder: 200,000 bookings, 20,000
user mappings, 4,000 resource and 2,200 venue mappings, some 50,000 commissions, then ANALYZE)
that the planner picks a sequential scan wherever no index fits. Each statement the requests
below send is recorded as sent, with its parameters, and EXPLAINed with them; a ``Seq Scan`` on a
guarded table fails the test, naming the statement. No planner setting is changed: the plans
are the ones production would get.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from litestar.testing import TestClient
from sqlalchemy import event

from adapters.sqla import driver
from adapters.sqla.data_version import DATA_VERSION
from adapters.sqla.repositories.accounts import PRINCIPAL
from adapters.sqla.repositories.bookings.postgres import CLAIM, LOCK_USER
from entrypoints.bootstrap import Services, bootstrap
from entrypoints.config import Settings
from entrypoints.http.app import create_app
from entrypoints.worker import run_once
from tests.support.bulk_seed import CLIENT_TOKEN, USER_TOKEN, Sizes, catalog, seed
from tests.support.postgres import require_postgres, temporary_database
from tests.support.server import BOOKING

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

GUARDED = {
    "bookings",
    "booking_revisions",
    "user_mappings",
    "resource_mappings",
    "venue_mappings",
    "commissions",
}
SIZES = Sizes(venues=200, resources=2_000, bookings=200_000, users=5_000, clients=10, mappings=20_000)
TZ = ZoneInfo("Europe/Berlin")


@pytest.fixture(scope="module")
def seeded() -> Iterator[str]:
    require_postgres()
    with temporary_database() as url, tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "BOOKING_DATABASE_URL": url}
        path = Path(tmp) / "catalog.json"
        path.write_text(json.dumps(catalog()))
        subprocess.run([BOOKING, "db", "upgrade"], env=env, check=True, capture_output=True)
        subprocess.run([BOOKING, "catalog", "load", str(path)], env=env, check=True, capture_output=True)
        seed(url, SIZES)
        yield url


def _recording(services: Services, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    """Every statement sent: through SQLAlchemy, and the hot ones it sends past (``driver.run`` and
    ``driver.run_in_turn``, which the first calls)."""
    statements: list[tuple[str, Any]] = []

    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, many: bool) -> None:
        if not many and statement.lstrip().upper().startswith(("SELECT", "UPDATE", "DELETE", "WITH")):
            statements.append((statement, parameters))

    def run_recorded(session: Any, steps: Any) -> list[list[tuple[Any, ...]]]:
        for statement, params in steps:
            record(None, None, statement.sql, statement.params(params), None, False)
        return sent_past(session, steps)

    sent_past = driver.run_in_turn
    monkeypatch.setattr(driver, "run_in_turn", run_recorded)
    event.listen(services.engine, "before_cursor_execute", record)
    return statements


def _hot_requests(client: TestClient[Any], services: Services) -> None:
    user, partner = {"Authorization": f"Token {USER_TOKEN}"}, {"Authorization": f"Token {CLIENT_TOKEN}"}
    with services.engine.connect() as connection:
        court = connection.exec_driver_sql("SELECT id FROM resources WHERE name = 'Court A'").scalar_one()
    day = datetime.now(TZ).date() + timedelta(days=3)
    span = {"start_date": str(day), "end_date": str(day + timedelta(days=30))}
    start = datetime.combine(day, datetime.min.time(), TZ).replace(hour=10)
    answers = [
        client.get(f"/api/v1/resources/{court}/"),
        client.get(f"/api/v1/resources/{court}/availability/", params=span),
        client.get("/api/v1/resources/availability/", params={"resource_id": court, **span}),
        client.get("/api/v1/bookings/", headers=user),
        client.get("/api/v1/bookings/upcoming/", headers=user),
        client.get("/api/v1/bookings/", headers=partner),
        client.get("/api/v1/bookings/", headers={**partner, "X-User-External-ID": "ext-7"}),
        client.get("/api/v1/client/users/lookup/", params={"external_id": "ext-7"}, headers=partner),
        client.get("/api/v1/client/users/mappings/", headers=partner),
        client.get("/api/v1/client/resources/mappings/", headers=partner),
        client.get("/api/v1/client/venues/mappings/", headers=partner),
        client.get("/api/v1/client/commissions/", params={"month": f"{day:%Y-%m}"}, headers=partner),
    ]
    body = {
        "resource": court,
        "start_datetime": start.isoformat(),
        "end_datetime": (start + timedelta(hours=1)).isoformat(),
    }
    made = client.post("/api/v1/bookings/", json=body, headers=user)
    answers += [made, client.get(f"/api/v1/bookings/{made.json()['id']}/", headers=user)]
    answers.append(client.post(f"/api/v1/bookings/{made.json()['id']}/cancel/", json={}, headers=user))
    for answer in answers:
        assert answer.status_code < 300, (answer.request.url, answer.status_code, answer.text)
    run_once(services)  # the worker's sweeps: lapsed holds, past bookings, the outbox


def _seq_scans(plan: dict[str, Any]) -> Iterator[str]:
    if plan.get("Node Type") == "Seq Scan" and plan.get("Relation Name") in GUARDED:
        yield plan["Relation Name"]
    for child in plan.get("Plans", []):
        yield from _seq_scans(child)


def test_hot_statements_never_scan_a_large_table_whole(seeded: str, monkeypatch: pytest.MonkeyPatch) -> None:
    services = bootstrap(
        Settings(database_url=seeded, rate_limit_per_minute=0, login_rate_limit_per_minute=0)
    )
    statements = _recording(services, monkeypatch)
    try:
        with TestClient(create_app(services), raise_server_exceptions=False) as client:
            _hot_requests(client, services)
        assert {s for s, _ in statements if "bookings" in s}, "no statement on bookings was recorded"
        sent = {s for s, _ in statements}
        for hot in (PRINCIPAL, LOCK_USER, CLAIM, DATA_VERSION):  # sent past SQLAlchemy's events
            assert hot.sql in sent, hot.sql
        offenders = []
        raw = services.engine.raw_connection()
        try:
            cursor = raw.cursor()
            for statement, parameters in statements:
                cursor.execute(f"EXPLAIN (FORMAT JSON) {statement}", parameters)
                (plan,) = cursor.fetchone()[0]  # type: ignore[index]
                if scanned := sorted(set(_seq_scans(plan["Plan"]))):
                    offenders.append(f"{scanned}: {' '.join(statement.split())}")
            raw.rollback()
        finally:
            raw.close()
        assert not offenders, "sequential scans:\n" + "\n".join(offenders)
    finally:
        services.close()


def test_the_tables_are_large_enough_to_tempt_the_planner(seeded: str) -> None:
    """Without the index, the client's commission page would be read by a sequential scan."""
    import psycopg

    with psycopg.connect(seeded) as conn:
        conn.execute("DROP INDEX ix_commissions_client_id_month_created_at_id")
        conn.execute("DROP INDEX ix_commissions_month_client_id")
        rows = conn.execute(
            "EXPLAIN (FORMAT JSON) SELECT * FROM commissions WHERE client_id = 1 AND month = '2026-01' "
            "ORDER BY created_at, id LIMIT 101"
        ).fetchone()
        assert rows is not None
        assert list(_seq_scans(rows[0][0]["Plan"])) == ["commissions"]
        conn.rollback()
