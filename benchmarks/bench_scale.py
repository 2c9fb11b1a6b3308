"""Scale benchmark: the endpoints of `make bench-http` and the growing lists, on a small and a large database.

Both databases get the same catalog (bench-http's courts, its user, a client with a token) and the
same seeding code (``tests/support/bulk_seed.py``): the small one at a few hundred rows, the large one at the
issue's platform size (2,000 venues, 20,000 resources, 10 million bookings over three years, 200,000
users, 50 clients with a million user mappings, and the commissions), unless SCALE_* variables say
otherwise. Then, on each, `booking serve` with 2 workers, and each endpoint in turn for ROUNDS
short rounds (wrk, 16 connections); per endpoint the medians of req/s, p50 and p99 over the rounds
and the largest answer time, side by side, with the large database's p50 and p99 over the small's.
Goal: each ratio <= 1.5.

Run: ``make bench-scale`` (PostgreSQL at BOOKING_TEST_POSTGRES_URL; for a smaller run e.g.
``SCALE_BOOKINGS=1000000 make bench-scale``). ``BENCH_SCALE_KEEP=name`` keeps the large database
under that name and reuses it on the next run (seeding skipped when it holds bookings already).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from urllib.request import Request, urlopen
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import psycopg  # noqa: E402
from benchmarks._harness import BOOKING, free_port, migrate_and_load, wrk_figures  # noqa: E402

from tests.support.bulk_seed import (  # noqa: E402
    BOOKED_COURTS,
    CLIENT_NAME,
    CLIENT_TOKEN,
    USER_EMAIL,
    USER_TOKEN,
    Sizes,
    catalog,
    seed,
)
from tests.support.postgres import postgres_admin_url, temporary_database  # noqa: E402

CONCURRENCY = 16
DURATION_S = float(os.environ.get("BENCH_DURATION_S", "3"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
TZ = ZoneInfo("Europe/Berlin")
GOAL = 1.5
#: The commission list's page size in both runs: as many records as the small database has in the month.
COMMISSION_PAGE = 100
SMALL = Sizes(venues=1, resources=10, bookings=1_000, users=100, clients=2, mappings=500)


WRK_POST_SCRIPT = """
local next_thread = 0
function setup(thread)
  thread:set("tid", next_thread)
  next_thread = next_thread + 1
end
function init(args)
  base = tonumber(args[1]) + tid * THREAD_DAYS * 86400
  resources = {}
  for id in string.gmatch(args[2], "%d+") do table.insert(resources, id) end
  n = 0
end
function request()
  local court = resources[(n % #resources) + 1]
  local t = base + math.floor(n / #resources) * 3600
  n = n + 1
  local body = string.format(
    '{"resource": %s, "start_datetime": "%s", "end_datetime": "%s"}',
    court, os.date("!%Y-%m-%dT%H:%M:%S+00:00", t), os.date("!%Y-%m-%dT%H:%M:%S+00:00", t + 3600))
  return wrk.format("POST", "/api/v1/bookings/",
    {["Content-Type"] = "application/json", ["Authorization"] = "Token USER_TOKEN"}, body)
end
""".replace("USER_TOKEN", USER_TOKEN)
# Each round books from its own day (ROUND_DAYS apart) and each of wrk's two threads from its own day
# within it (THREAD_DAYS apart), so that no request meets another's booking: a band of 30 days holds
# 720 hourly slots per court, 3 s of a thread booking up to 1,900/s over 8 courts. The last band of
# the warm-up round ends 282 days ahead, within the courts' 365.
ROUND_DAYS, THREAD_DAYS = 60, 30
DAY = timedelta(days=1)
WRK_POST_SCRIPT = WRK_POST_SCRIPT.replace("THREAD_DAYS", str(THREAD_DAYS))


def wrk(
    port: int, path: str, token: str | None = None, post_args: list[str] | None = None
) -> dict[str, float]:
    """One endpoint driven by wrk for DURATION_S; its figures (non-2xx answers count as errors)."""
    command = ["wrk", "-t2", f"-c{CONCURRENCY}", f"-d{DURATION_S:.0f}s", "--timeout", "30s", "--latency"]
    if token:
        command += ["-H", f"Authorization: Token {token}"]
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_POST_SCRIPT if post_args else "")
    command += ["-s", script.name, f"http://127.0.0.1:{port}{path}"]
    if post_args:
        command += ["--", *post_args]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    Path(script.name).unlink()
    return wrk_figures(out)


def _call(
    port: int, method: str, path: str, body: object | None = None, token: str = USER_TOKEN
) -> tuple[int, bytes]:
    data = json.dumps(body).encode() if body is not None else None
    request = Request(
        f"http://127.0.0.1:{port}{path}",
        data=data,
        method=method,
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    try:
        with urlopen(request, timeout=60) as answer:  # noqa: S310
            return answer.status, answer.read()
    except OSError as error:
        status = getattr(error, "code", 0)
        return status, getattr(error, "read", lambda: b"")()


@contextmanager
def database(keep: str | None) -> Iterator[str]:
    if not keep:
        with temporary_database() as url:
            yield url
        return
    admin = postgres_admin_url()
    with psycopg.connect(admin, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [keep]).fetchone() is None:
            conn.execute(f'CREATE DATABASE "{keep}"')
    yield admin.rsplit("/", 1)[0] + f"/{keep}"


def prepare(url: str, sizes: Sizes, tmp: Path, label: str) -> dict[str, object]:
    """Migrate, load the catalog, seed ``sizes`` (unless seeded already); what was made and how long."""
    env = {**os.environ, "BOOKING_DATABASE_URL": url}
    migrate_and_load(env, catalog(), tmp / "catalog.json")
    with psycopg.connect(url) as conn:
        seeded = conn.execute("SELECT count(*) FROM bookings").fetchone()[0]  # type: ignore[index]
    took = None
    if seeded < sizes.bookings:
        print(f"seeding the {label} database: {sizes}", file=sys.stderr)
        took = seed(url, sizes, heavy_user_email=USER_EMAIL, heavy_client_name=CLIENT_NAME)
    with psycopg.connect(url) as conn:
        counts = {
            table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # type: ignore[index]  # noqa: S608
            for table in (
                "venues",
                "resources",
                "bookings",
                "users",
                "clients",
                "user_mappings",
                "commissions",
            )
        }
        size = conn.execute("SELECT pg_size_pretty(pg_database_size(current_database()))").fetchone()[0]  # type: ignore[index]
    return {"counts": counts, "size": size, "seconds": took}


def measure(url: str, tmp: Path) -> dict[str, list[dict[str, float]]]:
    port = free_port()
    env = {
        **os.environ, "BOOKING_DATABASE_URL": url, "BOOKING_PORT": str(port), "BOOKING_WORKERS": "2",
        "BOOKING_RATE_LIMIT_PER_MINUTE": "0", "BOOKING_INPROCESS_WORKER": "false",
        "BOOKING_PENDING_HOLD_MINUTES": "600", "BOOKING_MAIL_DIR": str(tmp / "mail"),
        "BOOKING_MAX_UNPAID_PER_USER": "1000000",  # one user books for the whole load
    }  # fmt: skip
    server = subprocess.Popen([BOOKING, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for _ in range(300):
            if _call(port, "GET", "/health")[0] == 200:
                break
            time.sleep(0.2)
        else:
            raise RuntimeError("server did not become healthy")
        return _rounds(port, url)
    finally:
        server.terminate()
        server.wait(timeout=30)


def _rounds(port: int, url: str) -> dict[str, list[dict[str, float]]]:
    with psycopg.connect(url) as conn:
        courts = dict(conn.execute(
            "SELECT r.name, r.id FROM resources r JOIN venues v ON v.id = r.venue_id WHERE v.slug = 'bench'"
        ).fetchall())  # fmt: skip
    court_a, courts_b = courts["Court A"], [courts[f"Court B{n}"] for n in range(1, BOOKED_COURTS + 1)]
    with psycopg.connect(url, autocommit=True) as conn:  # a kept database: the last run's bench bookings go
        conn.execute("DELETE FROM bookings WHERE resource_id = ANY(%s)", [[court_a, *courts_b]])
    first_day = datetime.now(TZ).date() + timedelta(days=2)
    _seed_court_a(port, court_a, first_day)
    last_month = (datetime.now(TZ).replace(day=1) - timedelta(days=1)).strftime("%Y-%m")
    span = f"start_date={first_day}&end_date={first_day + timedelta(days=30)}"
    availability = f"/api/v1/resources/{court_a}/availability/?{span}"
    courts_arg = ",".join(map(str, courts_b))
    post_start = datetime.combine(first_day + timedelta(days=40), datetime.min.time(), UTC)
    endpoints: dict[str, Callable[[int], dict[str, float]]] = {
        "GET /api/v1/ (trivial)": lambda _: wrk(port, "/api/v1/"),
        "GET /health (SELECT 1)": lambda _: wrk(port, "/health"),
        "availability 31 days": lambda _: wrk(port, availability),
        "GET /resources/?venue_slug= (9 courts)": lambda _: wrk(port, "/api/v1/resources/?venue_slug=bench"),
        "GET /resources/ (page of 19)": lambda _: wrk(port, "/api/v1/resources/?limit=19"),
        f"POST /bookings/ ({BOOKED_COURTS} courts)": lambda n: wrk(
            port, "/", post_args=[str(int((post_start + ROUND_DAYS * n * DAY).timestamp())), courts_arg]
        ),
        "heavy user GET /bookings/": lambda _: wrk(port, "/api/v1/bookings/", USER_TOKEN),
        "heavy user GET /bookings/upcoming/": lambda _: wrk(port, "/api/v1/bookings/upcoming/", USER_TOKEN),
        "heavy client GET /bookings/": lambda _: wrk(port, "/api/v1/bookings/", CLIENT_TOKEN),
        "client users/lookup/": lambda _: wrk(
            port, "/api/v1/client/users/lookup/?external_id=ext-7", CLIENT_TOKEN
        ),
        "client users/mappings/ (page 1)": lambda _: wrk(
            port, "/api/v1/client/users/mappings/", CLIENT_TOKEN
        ),
        f"client commissions/ (page of {COMMISSION_PAGE})": lambda _: wrk(
            port, f"/api/v1/client/commissions/?month={last_month}&limit={COMMISSION_PAGE}", CLIENT_TOKEN
        ),
    }
    # warm-up, not counted: prepared statements, the per-process caches, the pool, the heavy pages' resources
    for name, drive in endpoints.items():
        drive(ROUNDS if name.startswith("POST") else 0)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("ANALYZE bookings")
    results: dict[str, list[dict[str, float]]] = {name: [] for name in endpoints}
    for n in range(ROUNDS):
        for name, drive in endpoints.items():
            started = datetime.now(UTC)
            figures = drive(n)
            results[name].append(figures)
            # when each round ran and its slowest answer: a slow answer can be laid against the
            # database's log (checkpoints, autovacuum) and anything else that kept the machine busy
            logging.info(
                "%s-%s round %d %s: max %.0f ms",
                f"{started:%H:%M:%S}",
                f"{datetime.now(UTC):%H:%M:%S}",
                n + 1,
                name,
                figures["max_ms"],
            )
    return results


def _seed_court_a(port: int, court: int, first_day: date) -> None:
    """200 bookings on Court A through the API, every third hour left free (as bench-http does)."""
    made = 0
    for index in range(31 * 24):
        if made == 200:
            return
        if index % 3 == 0:
            continue
        start = datetime.combine(first_day, datetime.min.time(), TZ) + timedelta(hours=index)
        body = {
            "resource": court,
            "start_datetime": start.isoformat(),
            "end_datetime": (start + timedelta(hours=1)).isoformat(),
        }
        status, answer = _call(port, "POST", "/api/v1/bookings/", body)
        if status not in (201, 400):  # 400: taken already (a kept database seeded before)
            raise RuntimeError(f"seeding Court A failed: {status} {answer[:200]!r}")
        made += 1


def _commissions_last_month(url: str) -> int:
    """How many commission records the heavy client has last month (the small database's page)."""
    month = (datetime.now(TZ).replace(day=1) - timedelta(days=1)).strftime("%Y-%m")
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM commissions c JOIN clients k ON k.id = c.client_id "
            "WHERE k.name = %s AND month = %s",
            [CLIENT_NAME, month],
        ).fetchone()
    return max(1, min(100, int(row[0]) if row else 1))


def _summary(runs: list[dict[str, float]]) -> dict[str, float]:
    figures = {key: statistics.median(r[key] for r in runs) for key in ("rps", "p50_ms", "p99_ms")}
    figures["max_ms"] = max(r["max_ms"] for r in runs)
    figures["errors"] = sum(r["errors"] for r in runs)
    return figures


def report(small: dict[str, list[dict[str, float]]], large: dict[str, list[dict[str, float]]]) -> bool:
    print(f"{ROUNDS} rounds of {DURATION_S:.0f} s per endpoint, {CONCURRENCY} connections; medians of rounds")
    print(
        f"{'endpoint':38} | {'small: req/s':>12} {'p50':>7} {'p99':>7} {'max':>6} | "
        f"{'large: req/s':>12} {'p50':>7} {'p99':>7} {'max':>6} | {'p50 x':>6} {'p99 x':>6} err"
    )
    ok = True
    for name in small:
        s, g = _summary(small[name]), _summary(large[name])
        r50, r99 = g["p50_ms"] / max(s["p50_ms"], 1e-3), g["p99_ms"] / max(s["p99_ms"], 1e-3)
        mark = "" if r50 <= GOAL and r99 <= GOAL else "  <-- over 1.5x"
        ok &= not mark and not s["errors"] and not g["errors"]
        print(
            f"{name:38} | {s['rps']:12.1f} {s['p50_ms']:7.2f} {s['p99_ms']:7.2f} {s['max_ms']:6.0f} | "
            f"{g['rps']:12.1f} {g['p50_ms']:7.2f} {g['p99_ms']:7.2f} {g['max_ms']:6.0f} | "
            f"{r50:6.2f} {r99:6.2f} {s['errors'] + g['errors']:.0f}{mark}"
        )
    print("(latencies in ms)")
    return ok


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="  %(message)s", stream=sys.stderr)
    if not shutil.which("wrk"):
        print("bench-scale needs wrk (apt-get install wrk)", file=sys.stderr)
        return 2
    large_sizes = Sizes.from_env()
    with tempfile.TemporaryDirectory() as tmp:
        with temporary_database() as url:
            info = prepare(url, SMALL, Path(tmp), "small")
            print(f"small database: {info['counts']}, {info['size']}")
            global COMMISSION_PAGE  # both databases answer the same page size
            COMMISSION_PAGE = _commissions_last_month(url)
            small = measure(url, Path(tmp))
        with database(os.environ.get("BENCH_SCALE_KEEP")) as url:
            info = prepare(url, large_sizes, Path(tmp), "large")
            seconds = info["seconds"]
            took = f"seeded in {seconds:.0f} s" if isinstance(seconds, float) else "seeded earlier"
            print(f"large database: {info['counts']}, {info['size']}, {took}")
            large = measure(url, Path(tmp))
    return 0 if report(small, large) else 1


if __name__ == "__main__":
    started = datetime.now(UTC)
    code = main()
    print(f"finished in {(datetime.now(UTC) - started).total_seconds():.0f} s")
    sys.exit(code)
