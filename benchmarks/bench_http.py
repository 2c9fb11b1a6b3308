"""HTTP benchmark: the API on PostgreSQL with 2 workers, against a floor app on the same stack.

The floor (``floor_app.py``: Litestar under uvicorn with 2 workers and a plain psycopg 3 async pool,
no ORM) is the least work this stack can do, served beside the service on the same machine and
database, so that a ratio holds while the machine's speed drifts. Measured, in turns:
  * floor_json     the floor's trivial JSON
  * floor_select1  the floor's one ``SELECT 1`` (the floor)
  * floor_insert   the floor's one committed ``INSERT`` (the write floor)
  * service_json   GET /api/v1/
  * availability   GET /api/v1/resources/{id}/availability/, 31 days, 200 bookings on the resource
  * calculated     GET /api/v1/resources/availability/ (free ranges) for the same span
  * booking        POST /api/v1/bookings/, a fresh slot per request, all on one court
  * booking_floor  the floor's ``/floor/book``: the booking's own two statements on the bare pool,
                   the same court and requests, another stretch of time (not in the shared script)
with requests/s, p50/p99/max latency and resident memory per worker after the run, then each endpoint's
CPU per request by part (the server it drives, PostgreSQL, the load generator; ``CpuMeter``) and what
the booking goals would allow a booking's CPU, against PostgreSQL's part of it alone. The endpoints take
turns in short rounds; each figure is the median over the rounds, and each ratio the median of the
ratios within a round. The last line has the shape of the team's shared performance script's:
``perf: json J% of floor json, availability A% of floor, calculated C%, booking B% of floor,
booking W% of write floor, rss R MB``; the line before it gives booking against the booking floor,
which tells the statements' cost from the service's own. Goals (issue 15): json >= 80%,
availability >= 80%, booking >= 50% of the floor and >= 60% of the write floor, RSS < 200 MB per
worker. Exits 1 when one is missed or a request failed. ``BENCH_ROUNDS`` (default 5) and
``BENCH_SECONDS`` (3) set the length.

Run: ``make bench-http`` (needs PostgreSQL at BOOKING_TEST_POSTGRES_URL; ``wrk`` if installed).
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
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
from benchmarks._harness import (  # noqa: E402
    BOOKING,
    CpuMeter,
    all_day_resource,
    free_port,
    migrate_and_load,
    worker_rss_mb,
    wrk_figures,
)
from sqlalchemy import text  # noqa: E402

from adapters.sqla import make_engine  # noqa: E402
from tests.support.postgres import temporary_database  # noqa: E402

CONCURRENCY = int(os.environ.get("BENCH_CONNECTIONS", "32"))  # as the shared script's wrk -c32
DURATION_S = float(os.environ.get("BENCH_SECONDS", "3"))
# odd, so the median is one round's figure; enough that one slow round cannot move it
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
TZ = ZoneInfo("Europe/Berlin")
USER_TOKEN = "bench-user-token"
# Booking creation is measured on one court, as the shared script does (the court has no gap rule, so
# its bookings do not wait for each other: the overlap constraint decides between them); a fresh court
# each round, with 15-minute slots, so that a round's bookings always find free time within the advance
# limit.
SLOT_MINUTES = 15
# The booking floor books the same courts this much later than the service, so neither meets the other.
FLOOR_OFFSET_S = 80 * 86400


def catalog() -> dict[str, object]:
    resource = all_day_resource(max_advance_booking_days=365)
    quarter = {
        **resource,
        "booking_interval_minutes": SLOT_MINUTES,
        "min_booking_duration_minutes": SLOT_MINUTES,
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
                    *({"name": f"Court B{n}", **quarter} for n in range(ROUNDS + 1)),
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
-- each wrk thread books its own run of consecutive slots, so every request is a fresh, valid one
local next_thread = 0
function setup(thread)
  thread:set("tid", next_thread)
  next_thread = next_thread + 1
end
function init(args)
  step = tonumber(args[4])
  base = tonumber(args[1]) + tid * 16000 * step
  resources = {}
  for id in string.gmatch(args[2], "%d+") do table.insert(resources, id) end
  token = args[3]
  n = 0
end
function request()
  local court = resources[(n % #resources) + 1]
  local t = base + math.floor(n / #resources) * step
  n = n + 1
  local body = string.format(
    '{"resource": %s, "start_datetime": "%s", "end_datetime": "%s"}',
    court, os.date("!%Y-%m-%dT%H:%M:%S+00:00", t), os.date("!%Y-%m-%dT%H:%M:%S+00:00", t + step))
  return wrk.format("POST", wrk.path,
    {["Content-Type"] = "application/json", ["Authorization"] = "Token " .. token}, body)
end
"""


WRK_EMPTY_POST = 'wrk.method = "POST"\nwrk.body = ""\n'


def wrk_load(
    port: int, path: str, script_args: list[str] | None = None, *, script: str | None = None
) -> dict[str, float]:
    """Drive one endpoint with wrk (C, so the load generator is not what is measured)."""
    # An answer that comes late is a latency figure (the max column), not an error: wrk's own 2 s
    # limit would count it as a timeout and drop it from the latencies.
    command = ["wrk", "-t2", f"-c{CONCURRENCY}", f"-d{DURATION_S:.0f}s", "--timeout", "30s", "--latency"]
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as lua:
        lua.write(script if script is not None else WRK_POST_SCRIPT if script_args else "")
    command += ["-s", lua.name, f"http://127.0.0.1:{port}{path}"]
    if script_args:
        command += ["--", *script_args]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    Path(lua.name).unlink()
    # each error line on stderr with the time and the path: which kind of error, and when
    return wrk_figures(
        out, lambda line: print(f"  {time.strftime('%H:%M:%S')} {path}: {line.strip()}", file=sys.stderr)
    )


def analyze_bookings(url: str) -> None:
    """``ANALYZE bookings``, as autovacuum runs it on a production database."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            connection.execute(text("ANALYZE bookings"))
            connection.commit()
    finally:
        engine.dispose()


def main() -> int:
    with temporary_database() as url, tempfile.TemporaryDirectory() as tmp:
        port, floor_port = free_port(), free_port()
        env = {
            **os.environ,
            "BOOKING_DATABASE_URL": url,
            "BOOKING_PORT": str(port),
            "BOOKING_WORKERS": "2",
            "BOOKING_RATE_LIMIT_PER_MINUTE": "0",
            "BOOKING_PENDING_HOLD_MINUTES": "600",
            "BOOKING_MAX_UNPAID_PER_USER": "1000000",  # one user books for the whole load
            "BOOKING_MAIL_DIR": str(Path(tmp) / "mail"),
        }
        migrate_and_load(env, catalog(), Path(tmp) / "bench.json")
        create_floor_table(url)
        server = subprocess.Popen(
            [BOOKING, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        floor = subprocess.Popen(
            [
                *(UVICORN, "--app-dir", str(ROOT / "benchmarks"), "floor_app:app"),
                *(
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(floor_port),
                    "--workers",
                    "2",
                    "--log-level",
                    "warning",
                ),
            ],
            env={**os.environ, "FLOOR_DATABASE_URL": url},
            stdout=subprocess.DEVNULL,
        )
        meter = CpuMeter({"service": server.pid, "floor": floor.pid})
        try:
            return run_against(server, port, floor_port, url, meter)
        finally:
            for process in (server, floor):
                process.terminate()
            for process in (server, floor):
                process.wait(timeout=20)


UVICORN = str(ROOT / ".venv" / "bin" / "uvicorn")


def create_floor_table(url: str) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    os.environ.setdefault("FLOOR_DATABASE_URL", url)
    from floor_app import FLOOR_TABLE_SQL  # the floor's own module: one definition of its table

    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(text(FLOOR_TABLE_SQL))
    finally:
        engine.dispose()


def wait_healthy(client: Client, path: str) -> bool:
    for _ in range(150):
        try:
            if client.request("GET", path)[0] == 200:
                return True
        except OSError:
            pass
        time.sleep(0.2)
    return False


def run_against(
    server: subprocess.Popen[bytes], port: int, floor_port: int, url: str, meter: CpuMeter
) -> int:
    client, floor_client = Client(port), Client(floor_port)
    if not wait_healthy(client, "/health") or not wait_healthy(floor_client, "/floor/json"):
        print("the service or the floor did not become healthy", file=sys.stderr)
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
    availability = f"/api/v1/resources/{court_a}/availability/?{span}"
    calculated = f"/api/v1/resources/availability/?resource_id={court_a}&{span}"
    drivers = wrk_drivers(port, floor_port, availability, calculated, courts_b, first_day)
    if drivers is None:
        print("load generator: Python threads (install wrk for figures not bounded by the client)")
        drivers = thread_drivers(client, floor_client, availability, calculated, courts_b, first_day)
    else:
        print("load generator: wrk")
    drivers = {name: metered(drive, meter, name) for name, drive in drivers.items()}
    # Short rounds, each endpoint in turn: a shared machine's speed drifts over a run, and a ratio
    # of two figures taken a minute apart would measure the drift as much as the server.
    # Warm up (the server's prepared statements, caches and pool), then let PostgreSQL gather
    # statistics as autovacuum would within a minute of the load, rather than in the middle of a round.
    drivers["booking"](ROUNDS)  # the last court: the rounds book the others
    analyze_bookings(url)
    rounds: dict[str, list[dict[str, float]]] = {name: [] for name in drivers}
    for n in range(ROUNDS):
        for name, drive in drivers.items():
            rounds[name].append(drive(n))
    rss = list(worker_rss_mb(server).values())
    print(f"{ROUNDS} rounds of {DURATION_S:.0f} s per endpoint, {CONCURRENCY} connections; medians")
    print(f"{'endpoint':16} {'req':>7} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'errors':>6}")
    for name, runs in rounds.items():
        median = {key: statistics.median(r[key] for r in runs) for key in ("rps", "p50_ms", "p99_ms")}
        requests, errors = sum(r["requests"] for r in runs), sum(r["errors"] for r in runs)
        slowest = max(r["max_ms"] for r in runs)  # over all rounds, not a median: the outlier itself
        print(
            f"{name:16} {requests:7.0f} {median['rps']:9.1f} {median['p50_ms']:8.2f} "
            f"{median['p99_ms']:8.2f} {slowest:8.0f} {errors:6.0f}"
        )

    def share(name: str, floor: str) -> float:
        """The median over the rounds of ``name``'s throughput over ``floor``'s in the same round."""
        return statistics.median(
            r["rps"] / f["rps"] for r, f in zip(rounds[name], rounds[floor], strict=True)
        )

    ratios = {
        "json": share("service_json", "floor_json"),
        "availability": share("availability", "floor_select1"),
        "calculated": share("calculated", "floor_select1"),
        "booking": share("booking", "floor_select1"),
        "booking_write": share("booking", "floor_insert"),
    }
    goals = {"json": 0.8, "availability": 0.8, "booking": 0.5, "booking_write": 0.6}
    largest = max(rss, default=0.0)
    print("worker RSS after run: " + ", ".join(f"{mb:.0f} MB" for mb in rss) + " (goal < 200 MB each)")
    for name, goal in goals.items():
        verdict = "met" if ratios[name] >= goal else "MISSED"
        print(f"goal {name}: {ratios[name]:.0%} (>= {goal:.0%}) {verdict}")
    print(
        f"booking floor (the booking's statements on the floor's pool): "
        f"{statistics.median(r['rps'] for r in rounds['booking_floor']):.0f} req/s, "
        f"{share('booking_floor', 'floor_select1'):.0%} of floor, "
        f"{share('booking_floor', 'floor_insert'):.0%} of write floor; "
        f"booking at {share('booking', 'booking_floor'):.0%} of it"
    )
    print_cpu(rounds)
    print(
        f"perf: json {ratios['json']:.0%} of floor json, availability {ratios['availability']:.0%} of floor, "
        f"calculated {ratios['calculated']:.0%}, booking {ratios['booking']:.0%} of floor, "
        f"booking {ratios['booking_write']:.0%} of write floor, rss {largest:.0f} MB"
    )
    failed = any(ratios[name] < goal for name, goal in goals.items()) or largest >= 200 or not rss
    failed |= any(r["errors"] for runs in rounds.values() for r in runs)
    return 1 if failed else 0


DriverMap = dict[str, Callable[[int], dict[str, float]]]
#: The phases that drive the floor app; the others drive the service.
FLOOR_PHASES = frozenset({"floor_json", "floor_select1", "floor_insert", "booking_floor"})


def metered(
    drive: Callable[[int], dict[str, float]], meter: CpuMeter, phase: str
) -> Callable[[int], dict[str, float]]:
    """``drive`` with its round's CPU per request added to the figures, in ms, as ``<part>_cpu_ms``
    for each of :attr:`CpuMeter.PARTS` (the server being the one the phase drives)."""
    server = "floor" if phase in FLOOR_PHASES else "service"

    def round_n(n: int) -> dict[str, float]:
        before = meter.read(server)
        figures = drive(n)
        after = meter.read(server)
        per_request = 1000 / max(figures["requests"], 1)
        for part in CpuMeter.PARTS:
            figures[f"{part}_cpu_ms"] = (after[part] - before[part]) * per_request
        return figures

    return round_n


def print_cpu(rounds: dict[str, list[dict[str, float]]]) -> None:
    """CPU per request by part, and what the booking goal leaves the booking on this machine."""
    cpu = {
        name: {part: statistics.median(r[f"{part}_cpu_ms"] for r in runs) for part in CpuMeter.PARTS}
        for name, runs in rounds.items()
    }
    print("CPU per request in ms (medians): the server driven, PostgreSQL, the load generator")
    print(f"{'endpoint':16} {'server':>8} {'postgres':>9} {'load':>7} {'total':>7}")
    for name, parts in cpu.items():
        print(
            f"{name:16} {parts['server']:8.3f} {parts['postgres']:9.3f} {parts['load']:7.3f} "
            f"{sum(parts.values()):7.3f}"
        )
    # Where the cores are the limit, a rate that is a share of the floor's is a CPU per request that
    # is the floor's over that share: what the goals allow a booking, against what its statements
    # alone cost PostgreSQL.
    database = cpu["booking"]["postgres"]
    for floor, goal in (("floor_select1", 0.5), ("floor_insert", 0.6)):
        allowed = sum(cpu[floor].values()) / goal
        rest = cpu[floor]["server"] + cpu[floor]["load"]
        print(
            f"booking at {goal:.0%} of {floor}: at most {allowed:.3f} ms of CPU; PostgreSQL's part alone "
            f"is {database:.3f} ms, which leaves {allowed - database:.3f} ms for the server and the load "
            f"generator, whose part of {floor} is {rest:.3f} ms"
        )


def wrk_drivers(
    port: int, floor_port: int, availability: str, calculated: str, courts: list[int], first_day: date
) -> DriverMap | None:
    if not shutil.which("wrk"):
        return None
    base = int(datetime.combine(first_day + timedelta(days=1), datetime.min.time(), UTC).timestamp())

    def book(to_port: int, path: str, first: int) -> Callable[[int], dict[str, float]]:
        def round_n(n: int) -> dict[str, float]:  # round n books court n
            return wrk_load(to_port, path, [str(first), str(courts[n]), USER_TOKEN, str(SLOT_MINUTES * 60)])

        return round_n

    return {
        "floor_json": lambda _: wrk_load(floor_port, "/floor/json"),
        "floor_select1": lambda _: wrk_load(floor_port, "/floor/select1"),
        "floor_insert": lambda _: wrk_load(floor_port, "/floor/insert", script=WRK_EMPTY_POST),
        "service_json": lambda _: wrk_load(port, "/api/v1/"),
        "availability": lambda _: wrk_load(port, availability),
        "calculated": lambda _: wrk_load(port, calculated),
        "booking": book(port, "/api/v1/bookings/", base),
        "booking_floor": book(floor_port, "/floor/book", base + FLOOR_OFFSET_S),
    }


def quarter_hours(first_day: date) -> Iterator[tuple[str, str]]:
    start = datetime.combine(first_day, datetime.min.time(), UTC)
    while True:
        end = start + timedelta(minutes=SLOT_MINUTES)
        yield start.isoformat(), end.isoformat()
        start = end


def thread_drivers(
    client: Client, floor: Client, availability: str, calculated: str, courts: list[int], first_day: date
) -> DriverMap:
    def book(to: Client, path: str, first: date) -> Callable[[int], dict[str, float]]:
        def round_n(n: int) -> dict[str, float]:  # round n books court n
            slots = quarter_hours(first)
            slot_lock = threading.Lock()

            def next_booking() -> tuple[str, str, object | None]:
                with slot_lock:
                    start, end = next(slots)
                return ("POST", path, {"resource": courts[n], "start_datetime": start, "end_datetime": end})

            return load(to, next_booking, 201)

        return round_n

    return {
        "floor_json": lambda _: load(floor, lambda: ("GET", "/floor/json", None), 200),
        "floor_select1": lambda _: load(floor, lambda: ("GET", "/floor/select1", None), 200),
        "floor_insert": lambda _: load(floor, lambda: ("POST", "/floor/insert", None), 201),
        "service_json": lambda _: load(client, lambda: ("GET", "/api/v1/", None), 200),
        "availability": lambda _: load(client, lambda: ("GET", availability, None), 200),
        "calculated": lambda _: load(client, lambda: ("GET", calculated, None), 200),
        "booking": book(client, "/api/v1/bookings/", first_day + timedelta(days=1)),
        "booking_floor": book(floor, "/floor/book", first_day + timedelta(days=1, seconds=FLOOR_OFFSET_S)),
    }


if __name__ == "__main__":
    started = datetime.now(UTC)
    code = main()
    print(f"finished in {(datetime.now(UTC) - started).total_seconds():.0f} s")
    sys.exit(code)
