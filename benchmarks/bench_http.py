"""HTTP benchmark: the API on PostgreSQL with 2 workers, against two floors from the same server.

Measures requests/s and p50/p99/max latency for
  * GET /api/v1/                              trivial JSON (floor 1)
  * GET /health                               one SELECT 1 through the same pool (floor 2)
  * GET /api/v1/resources/{id}/availability/  31 days, 200 bookings on the resource
  * POST /api/v1/bookings/                    each request a fresh, valid slot
and resident memory per worker after the run. The endpoints take turns in seven short rounds; each
figure is the median over the rounds, and each ratio the median of the ratios within a round.
Targets (issue 3): availability >= 50% of the SELECT-1 floor, booking creation >= 30%, RSS < 200 MB
per worker. Exits 1 when one is missed.

Run: ``make bench-http`` (needs PostgreSQL at BOOKING_TEST_POSTGRES_URL).
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from sqlalchemy import text  # noqa: E402

from adapters.sqla import make_engine  # noqa: E402
from tests.support.postgres import temporary_database  # noqa: E402

BOOKING = str(ROOT / ".venv" / "bin" / "booking")
CONCURRENCY = 16
DURATION_S = 3.0
ROUNDS = 7  # odd, so the median is one round's figure; enough that one slow round cannot move it
TZ = ZoneInfo("Europe/Berlin")
USER_TOKEN = "bench-user-token"
# Booking creation is measured over several courts, as real traffic is: requests for one court
# queue on that court's lock by design (the no-double-booking guarantee), whatever the hardware.
BOOKED_COURTS = 8


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def catalog() -> dict[str, object]:
    all_day = [{"start_time": "00:00:00", "end_time": "00:00:00", "price_per_unit": "20.00"}]
    resource = {
        "capacity": 4,
        "base_price": "20.00",
        "currency": "EUR",
        "price_unit": "hour",
        "booking_interval_minutes": 60,
        "min_booking_duration_minutes": 60,
        "max_booking_duration_minutes": 120,
        "prevent_unbookable_gaps": False,
        "max_advance_booking_days": 365,
        "schedules": [{"day_of_week": d, "time_slots": all_day} for d in range(1, 8)],
    }
    return {
        "venues": [
            {
                "slug": "bench",
                "name": "Bench Arena",
                "venue_type": "sports_hall",
                "street_address": "Benchstrasse 1",
                "city": "Berlin",
                "postal_code": "10115",
                "country": "DE",
                "latitude": "52.52",
                "longitude": "13.40",
                "timezone": "Europe/Berlin",
                "operator_email": "ops@bench.example",
                "resources": [
                    {"name": "Court A", **resource},
                    *({"name": f"Court B{n}", **resource} for n in range(1, BOOKED_COURTS + 1)),
                ],
            }
        ],
        "users": [
            {"email": "bench@example.com", "first_name": "Ben", "last_name": "Ch", "token": USER_TOKEN}
        ],
        "clients": [],
    }


def hourly_slots(first_day: date, days: int) -> Iterator[tuple[str, str]]:
    for d in range(days):
        for hour in range(24):
            start = datetime.combine(first_day + timedelta(days=d), datetime.min.time(), TZ).replace(
                hour=hour
            )
            yield start.isoformat(), (start + timedelta(hours=1)).isoformat()


class Client:
    """One keep-alive connection per thread."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.local = threading.local()

    def request(self, method: str, path: str, body: object | None = None) -> tuple[int, bytes]:
        conn = getattr(self.local, "conn", None)
        if conn is None:
            conn = self.local.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"Authorization": f"Token {USER_TOKEN}", "Content-Type": "application/json"}
        payload = json.dumps(body).encode() if body is not None else None
        try:
            conn.request(method, path, body=payload, headers=headers)
            response = conn.getresponse()
            return response.status, response.read()
        except (http.client.HTTPException, OSError):
            self.local.conn = None
            raise


def load(
    client: Client, make_request: Callable[[], tuple[str, str, object | None]], expect: int
) -> dict[str, float]:
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    deadline = time.perf_counter() + DURATION_S

    def worker() -> None:
        nonlocal errors
        mine: list[float] = []
        bad = 0
        while time.perf_counter() < deadline:
            method, path, body = make_request()
            t0 = time.perf_counter()
            status, _ = client.request(method, path, body)
            mine.append(time.perf_counter() - t0)
            bad += status != expect
        with lock:
            latencies.extend(mine)
            errors += bad

    threads = [threading.Thread(target=worker) for _ in range(CONCURRENCY)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    latencies.sort()
    return {
        "requests": len(latencies),
        "rps": len(latencies) / elapsed,
        "p50_ms": statistics.median(latencies) * 1000,
        "p99_ms": latencies[int(len(latencies) * 0.99) - 1] * 1000,
        "max_ms": latencies[-1] * 1000,
        "errors": errors,
    }


WRK_POST_SCRIPT = """
-- each wrk thread books its own run of consecutive hours, so every request is a fresh, valid slot
local next_thread = 0
function setup(thread)
  thread:set("tid", next_thread)
  next_thread = next_thread + 1
end
function init(args)
  base = tonumber(args[1]) + tid * 4000 * 3600
  resources = {}
  for id in string.gmatch(args[2], "%d+") do table.insert(resources, id) end
  token = args[3]
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
    {["Content-Type"] = "application/json", ["Authorization"] = "Token " .. token}, body)
end
"""


def wrk_load(port: int, path: str, script_args: list[str] | None = None) -> dict[str, float]:
    """Drive one endpoint with wrk (C, so the load generator is not what is measured)."""
    # An answer that comes late is a latency figure (the max column), not an error: wrk's own 2 s
    # limit would count it as a timeout and drop it from the latencies.
    command = ["wrk", "-t2", f"-c{CONCURRENCY}", f"-d{DURATION_S:.0f}s", "--timeout", "30s", "--latency"]
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_POST_SCRIPT if script_args else "")
    command += ["-s", script.name, f"http://127.0.0.1:{port}{path}"]
    if script_args:
        command += ["--", *script_args]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    Path(script.name).unlink()
    figures = {"requests": 0.0, "rps": 0.0, "p50_ms": 0.0, "p99_ms": 0.0, "max_ms": 0.0, "errors": 0.0}
    for line in out.splitlines():
        words = line.split()
        if line.strip().startswith("Latency") and len(words) >= 4:
            figures["max_ms"] = _ms(words[3])
        elif line.strip().startswith("50%"):
            figures["p50_ms"] = _ms(words[1])
        elif line.strip().startswith("99%"):
            figures["p99_ms"] = _ms(words[1])
        elif "requests in" in line:
            figures["requests"] = float(words[0])
        elif line.startswith("Requests/sec:"):
            figures["rps"] = float(words[1])
        elif line.strip().startswith("Non-2xx") or line.strip().startswith("Socket errors"):
            figures["errors"] += sum(float(w.strip(",")) for w in words if w.strip(",").isdigit())
            print(f"  {time.strftime('%H:%M:%S')} {path}: {line.strip()}", file=sys.stderr)  # which kind
    return figures


def _ms(value: str) -> float:
    for unit, factor in (("us", 0.001), ("ms", 1.0), ("s", 1000.0)):
        if value.endswith(unit):
            return float(value[: -len(unit)]) * factor
    return float(value)


def analyze_bookings(url: str) -> None:
    """``ANALYZE bookings``, as autovacuum runs it on a production database."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            connection.execute(text("ANALYZE bookings"))
            connection.commit()
    finally:
        engine.dispose()


def worker_rss_mb(server: subprocess.Popen[bytes]) -> list[float]:
    children = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
    sizes = []
    for pid in children:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                sizes.append(int(line.split()[1]) / 1024)
    return sizes


def main() -> int:
    with temporary_database() as url, tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        env = {
            **os.environ,
            "BOOKING_DATABASE_URL": url,
            "BOOKING_PORT": str(port),
            "BOOKING_WORKERS": "2",
            "BOOKING_RATE_LIMIT_PER_MINUTE": "0",
            "BOOKING_INPROCESS_WORKER": "false",
            "BOOKING_PENDING_HOLD_MINUTES": "600",
            "BOOKING_MAIL_DIR": str(Path(tmp) / "mail"),
        }
        catalog_file = Path(tmp) / "bench.json"
        catalog_file.write_text(json.dumps(catalog()))
        subprocess.run([BOOKING, "db", "upgrade"], env=env, check=True, capture_output=True)
        subprocess.run(
            [BOOKING, "catalog", "load", str(catalog_file)], env=env, check=True, capture_output=True
        )
        server = subprocess.Popen(
            [BOOKING, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            return run_against(server, port, url)
        finally:
            server.terminate()
            server.wait(timeout=20)


def run_against(server: subprocess.Popen[bytes], port: int, url: str) -> int:
    client = Client(port)
    for _ in range(100):
        try:
            if client.request("GET", "/health")[0] == 200:
                break
        except OSError:
            pass
        time.sleep(0.2)
    else:
        print("server did not become healthy", file=sys.stderr)
        return 1
    resources = json.loads(client.request("GET", "/api/v1/resources/")[1])
    court_a = resources[0]["id"]
    courts_b = [r["id"] for r in resources if r["name"].startswith("Court B")]
    first_day = datetime.now(TZ).date() + timedelta(days=2)
    seeded = 0
    for index, (start, end) in enumerate(hourly_slots(first_day, 31)):
        if seeded == 200:
            break
        if index % 3 == 0:  # leave free hours between bookings, so availability has many ranges
            continue
        status, body = client.request(
            "POST", "/api/v1/bookings/", {"resource": court_a, "start_datetime": start, "end_datetime": end}
        )
        if status != 201:
            print(f"seeding failed: {status} {body[:200]!r}", file=sys.stderr)
            return 1
        seeded += 1
    span = f"start_date={first_day}&end_date={first_day + timedelta(days=30)}"
    slots = hourly_slots(first_day, 300)
    slot_lock = threading.Lock()
    current: list[str] = []

    turn = iter(range(10**9))

    def next_booking() -> tuple[str, str, object | None]:
        with slot_lock:
            n = next(turn)
            if n % len(courts_b) == 0:
                current[:] = next(slots)
            start, end = current
        body = {"resource": courts_b[n % len(courts_b)], "start_datetime": start, "end_datetime": end}
        return "POST", "/api/v1/bookings/", body

    availability = f"/api/v1/resources/{court_a}/availability/?{span}"
    trivial, floor_name = "trivial JSON (GET /api/v1/)", "SELECT 1 (GET /health)"
    avail_name, post_name = "availability 31 days, 200 bookings", f"POST /bookings/ ({len(courts_b)} courts)"
    drivers: dict[str, Callable[[int], dict[str, float]]]
    if shutil.which("wrk"):
        print("load generator: wrk")
        post_start = datetime.combine(first_day + timedelta(days=1), datetime.min.time(), UTC)

        def post_round(n: int) -> dict[str, float]:
            # each round books its own fortnight, so every request is a fresh, valid slot
            base = int((post_start + timedelta(days=14 * n)).timestamp())
            return wrk_load(port, "/api/v1/bookings/", [str(base), ",".join(map(str, courts_b)), USER_TOKEN])

        drivers = {
            trivial: lambda _: wrk_load(port, "/api/v1/"),
            floor_name: lambda _: wrk_load(port, "/health"),
            avail_name: lambda _: wrk_load(port, availability),
            post_name: post_round,
        }
    else:
        print("load generator: Python threads (install wrk for figures not bounded by the client)")
        drivers = {
            trivial: lambda _: load(client, lambda: ("GET", "/api/v1/", None), 200),
            floor_name: lambda _: load(client, lambda: ("GET", "/health", None), 200),
            avail_name: lambda _: load(client, lambda: ("GET", availability, None), 200),
            post_name: lambda _: load(client, next_booking, 201),
        }
    # Short rounds, each endpoint in turn: a shared machine's speed drifts over a run, and a ratio
    # of two figures taken a minute apart would measure the drift as much as the server.
    # Warm up (the server's prepared statements, caches and pool), then let PostgreSQL gather
    # statistics as autovacuum would within a minute of the load, rather than in the middle of a round.
    drivers[post_name](ROUNDS)
    analyze_bookings(url)
    rounds: dict[str, list[dict[str, float]]] = {name: [] for name in drivers}
    for n in range(ROUNDS):
        for name, drive in drivers.items():
            rounds[name].append(drive(n))
    rss = worker_rss_mb(server)
    print(f"{ROUNDS} rounds of {DURATION_S:.0f} s per endpoint; medians over the rounds")
    print(f"{'endpoint':40} {'req':>7} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'errors':>6}")
    for name, runs in rounds.items():
        median = {key: statistics.median(r[key] for r in runs) for key in ("rps", "p50_ms", "p99_ms")}
        requests, errors = sum(r["requests"] for r in runs), sum(r["errors"] for r in runs)
        slowest = max(r["max_ms"] for r in runs)  # over all rounds, not a median: the outlier itself
        print(
            f"{name:40} {requests:7.0f} {median['rps']:9.1f} {median['p50_ms']:8.2f} "
            f"{median['p99_ms']:8.2f} {slowest:8.0f} {errors:6.0f}"
        )

    def share(name: str) -> float:
        """The median over the rounds of ``name``'s throughput over the floor's in the same round."""
        return statistics.median(
            r["rps"] / f["rps"] for r, f in zip(rounds[name], rounds[floor_name], strict=True)
        )

    avail, create = share(avail_name), share(post_name)
    per_round = ", ".join(
        f"{r['rps'] / f['rps']:.0%}" for r, f in zip(rounds[post_name], rounds[floor_name], strict=True)
    )
    print(f"availability / SELECT-1 floor: {avail:.0%} (target >= 50%)")
    print(f"booking creation / SELECT-1 floor: {create:.0%} (target >= 30%; rounds: {per_round})")
    print("worker RSS after run: " + ", ".join(f"{mb:.0f} MB" for mb in rss) + " (target < 200 MB each)")
    failed = avail < 0.5 or create < 0.3 or any(mb >= 200 for mb in rss) or not rss
    failed |= any(r["errors"] for runs in rounds.values() for r in runs)
    return 1 if failed else 0


if __name__ == "__main__":
    started = datetime.now(UTC)
    code = main()
    print(f"finished in {(datetime.now(UTC) - started).total_seconds():.0f} s")
    sys.exit(code)
