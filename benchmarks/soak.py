"""Soak test: mixed traffic against the service on PostgreSQL with 2 workers for minutes on end.

Each client lane (a thread in one of two client processes, each lane with a court of its own) repeats
a visit: browse the venue's resources, read a court's raw availability and its free ranges for a
week, book a fresh hour, list the caller's bookings; every other visit pays (payment intent, then
the provider's signed ``payment_intent.succeeded`` webhook) and every fourth cancels that paid booking
(a refund); the other visits cancel the pending booking. First the peak rate of this mix is measured
with the lanes going flat out (``SOAK_PEAK_SECONDS``, default 15), then the soak runs at
``SOAK_RATE_SHARE`` (0.7) of it for ``SOAK_SECONDS`` (300), each lane sending on a fixed schedule.

Printed: per endpoint the requests, p50, p99 and max, the 5xx count, and the resident memory of each
server worker in the first and the last minute. Goals (issue 15): no 5xx, no answer above 250 ms,
memory growth under 10% from the first minute to the last. Exits 1 when one is missed.

Run: ``make soak`` (needs PostgreSQL at BOOKING_TEST_POSTGRES_URL); not part of ``make test``.
"""

from __future__ import annotations

import http.client
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))
from benchmarks._harness import BOOKING, all_day_resource, free_port, migrate_and_load, worker_rss_mb  # noqa: E402

from adapters.payments.sandbox import sign  # noqa: E402
from adapters.payments.stripe import SIGNATURE_HEADER  # noqa: E402
from tests.support.postgres import temporary_database  # noqa: E402

SOAK_SECONDS = float(os.environ.get("SOAK_SECONDS", "300"))
PEAK_SECONDS = float(os.environ.get("SOAK_PEAK_SECONDS", "15"))
RATE_SHARE = float(os.environ.get("SOAK_RATE_SHARE", "0.7"))
PROCESSES, LANES = 2, 8  # lanes per client process
WEBHOOK_SECRET = "whsec_soak"
TOKEN = "soak-user-token"
MAX_ANSWER_MS = 250.0
MAX_RSS_GROWTH = 0.10
RSS_EVERY_S = 5.0


def catalog(courts: int) -> dict[str, object]:
    resource = all_day_resource(max_advance_booking_days=3650)
    venue = {
        "slug": "soak",
        "name": "Soak Arena",
        "venue_type": "sports_hall",
        "street_address": "Soakstrasse 1",
        "city": "Berlin",
        "postal_code": "10115",
        "country": "DE",
        "latitude": "52.52",
        "longitude": "13.40",
        "timezone": "Etc/UTC",
        "operator_email": "ops@soak.example",
        "resources": [{"name": f"Court {n:02d}", **resource} for n in range(courts)],
    }
    user = {
        "email": "soak@example.com",
        "first_name": "So",
        "last_name": "Ak",
        "language": "en",
        "token": TOKEN,
    }
    return {"venues": [venue], "users": [user], "clients": []}


class Lane:
    """One client lane: its own keep-alive connection, court and run of hours."""

    def __init__(self, port: int, court: int, first_day: date) -> None:
        self.port, self.court = port, court
        self.next_start = datetime.combine(first_day, datetime.min.time(), UTC)
        self.conn: http.client.HTTPConnection | None = None
        self.visits = 0

    def call(
        self, label: str, method: str, path: str, body: bytes | None, headers: dict[str, str], out: Results
    ) -> tuple[int, bytes]:
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        started = time.perf_counter()
        try:
            self.conn.request(method, path, body=body, headers=headers)
            answer = self.conn.getresponse()
            status, payload = answer.status, answer.read()
        except (http.client.HTTPException, OSError) as error:
            # no answer at all (the connection failed): counted apart from the server's 5xx
            self.conn = None
            out.failed(label, type(error).__name__)
            return 0, b""
        out.add(label, status, (time.perf_counter() - started) * 1000)
        return status, payload

    def api(self, label: str, method: str, path: str, out: Results, data: object | None = None) -> object:
        headers = {"Authorization": f"Token {TOKEN}", "Content-Type": "application/json"}
        body = json.dumps(data).encode() if data is not None else None
        status, payload = self.call(label, method, path, body, headers, out)
        return json.loads(payload) if 200 <= status < 300 and payload else None

    def visit(self, out: Results, pace: Pacer) -> None:
        """One visitor's path through the service; ``pace`` spaces the requests."""
        self.visits += 1
        day = self.next_start.date()
        week = f"start_date={day}&end_date={day + timedelta(days=6)}"
        steps = [
            ("GET resources", "GET", "/api/v1/resources/?venue_slug=soak"),
            ("GET availability", "GET", f"/api/v1/resources/{self.court}/availability/?{week}"),
            ("GET free ranges", "GET", f"/api/v1/resources/availability/?resource_id={self.court}&{week}"),
        ]
        for label, method, path in steps:
            pace.wait()
            self.api(label, method, path, out)
        start, self.next_start = self.next_start, self.next_start + timedelta(hours=1)
        pace.wait()
        booked = self.api(
            "POST booking",
            "POST",
            "/api/v1/bookings/",
            out,
            {
                "resource": self.court,
                "start_datetime": start.isoformat(),
                "end_datetime": self.next_start.isoformat(),
            },
        )
        pace.wait()
        self.api("GET my bookings", "GET", "/api/v1/bookings/?limit=10", out)
        if not isinstance(booked, dict):
            return
        booking_id = booked["id"]
        if self.visits % 2 == 0:
            pace.wait()
            intent = self.api(
                "POST payment intent", "POST", f"/api/v1/bookings/{booking_id}/create-payment-intent/", out
            )
            if not isinstance(intent, dict):
                return
            pace.wait()
            self.webhook(booked, intent, out)
            if self.visits % 4 != 0:
                return
        pace.wait()
        self.api(
            "POST cancel", "POST", f"/api/v1/bookings/{booking_id}/cancel/", out, {"reason": "user_request"}
        )

    def webhook(self, booked: dict[str, object], intent: dict[str, object], out: Results) -> None:
        """The provider's signed event that the intent was paid in full."""
        amount = round(float(str(intent["amount"])) * 100)
        now = int(time.time())
        event = {
            "id": f"evt_soak_{booked['id']}",
            "object": "event",
            "type": "payment_intent.succeeded",
            "created": now,
            "livemode": False,
            "data": {
                "object": {
                    "id": intent["payment_intent_id"],
                    "object": "payment_intent",
                    "amount": amount,
                    "amount_received": amount,
                    "currency": str(intent["currency"]).lower(),
                    "status": "succeeded",
                    "metadata": {"booking_id": booked["id"], "reference_code": booked["reference_code"]},
                }
            },
        }
        body = json.dumps(event).encode()
        headers = {"Content-Type": "application/json", SIGNATURE_HEADER: sign(body, WEBHOOK_SECRET, now)}
        self.call("POST webhook", "POST", "/webhooks/provider/", body, headers, out)


class Results:
    """Latencies (ms) and status counts per endpoint label, for one client process."""

    def __init__(self) -> None:
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.statuses: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
        self.connection_errors: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()

    def failed(self, label: str, kind: str) -> None:
        with self._lock:
            self.connection_errors[f"{label}: {kind}"] += 1

    def add(self, label: str, status: int, ms: float) -> None:
        with self._lock:
            self.latencies[label].append(ms)
            self.statuses[label][status] += 1

    def plain(self) -> dict[str, object]:
        return {
            "latencies": dict(self.latencies),
            "statuses": {label: dict(counts) for label, counts in self.statuses.items()},
            "connection_errors": dict(self.connection_errors),
        }


class Pacer:
    """Spaces a lane's requests ``interval`` seconds apart on a fixed schedule (none: flat out).

    A lane that fell behind sends at once but does not burst to catch up: the schedule restarts.
    """

    def __init__(self, interval: float | None) -> None:
        self.interval = interval
        self.due = time.perf_counter()

    def wait(self) -> None:
        if self.interval is None:
            return
        self.due += self.interval
        delay = self.due - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        else:
            self.due = time.perf_counter()


def client_process(
    port: int, courts: list[int], first_day: date, seconds: float, interval: float | None
) -> dict[str, object]:
    """Run ``len(courts)`` lanes for ``seconds``; their results."""
    out = Results()
    deadline = time.perf_counter() + seconds

    def lane_loop(lane: Lane) -> None:
        pace = Pacer(interval)
        while time.perf_counter() < deadline:
            lane.visit(out, pace)

    lanes = [Lane(port, court, first_day) for court in courts]
    threads = [threading.Thread(target=lane_loop, args=(lane,)) for lane in lanes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return out.plain()


def drive(
    port: int, courts: list[int], first_day: date, seconds: float, interval: float | None
) -> dict[str, object]:
    """All lanes, in ``PROCESSES`` client processes (one Python process would be the bottleneck)."""
    context = multiprocessing.get_context("spawn")
    share = len(courts) // PROCESSES
    with context.Pool(PROCESSES) as pool:
        jobs = [
            pool.apply_async(
                client_process, (port, courts[i * share : (i + 1) * share], first_day, seconds, interval)
            )
            for i in range(PROCESSES)
        ]
        parts = [job.get(timeout=seconds + 120) for job in jobs]
    merged = Results()
    for part in parts:
        for label, values in part["latencies"].items():  # type: ignore[attr-defined]
            merged.latencies[label].extend(values)
        for label, counts in part["statuses"].items():  # type: ignore[attr-defined]
            for status, count in counts.items():
                merged.statuses[label][status] += count
        for kind, count in part["connection_errors"].items():  # type: ignore[attr-defined]
            merged.connection_errors[kind] += count
    return merged.plain()


def sample_rss(
    server: subprocess.Popen[bytes], stop: threading.Event, samples: list[tuple[float, dict[int, float]]]
) -> None:
    started = time.perf_counter()
    while not stop.wait(RSS_EVERY_S):
        samples.append((time.perf_counter() - started, worker_rss_mb(server)))


def wait_healthy(port: int) -> bool:
    for _ in range(150):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/health")
            if conn.getresponse().status == 200:
                return True
        except OSError:
            pass
        time.sleep(0.2)
    return False


def report(results: dict[str, object], seconds: float, samples: list[tuple[float, dict[int, float]]]) -> bool:
    latencies: dict[str, list[float]] = results["latencies"]  # type: ignore[assignment]
    statuses: dict[str, dict[int, int]] = results["statuses"]  # type: ignore[assignment]
    total = sum(len(v) for v in latencies.values())
    print(f"soak: {total} requests in {seconds:.0f} s ({total / seconds:.0f} req/s)")
    print(f"{'endpoint':22} {'req':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'5xx':>5}  statuses")
    server_errors, slowest = 0, 0.0
    for label in sorted(latencies):
        values = sorted(latencies[label])
        errors = sum(count for status, count in statuses[label].items() if status >= 500)
        server_errors += errors
        slowest = max(slowest, values[-1])
        p99 = values[max(0, int(len(values) * 0.99) - 1)]
        codes = " ".join(f"{status}:{count}" for status, count in sorted(statuses[label].items()))
        print(
            f"{label:22} {len(values):7} {statistics.median(values):8.1f} {p99:8.1f} {values[-1]:8.1f} "
            f"{errors:5}  {codes}"
        )
    failures: dict[str, int] = results["connection_errors"]  # type: ignore[assignment]
    for kind, count in sorted(failures.items()):
        print(f"no answer ({kind}): {count}")
    window = min(60.0, seconds / 3)
    first = [s for t, s in samples if t <= window]
    last = [s for t, s in samples if t >= seconds - window]
    growth = 0.0
    for pid in sorted(first[0] if first else {}):
        before = statistics.mean(s[pid] for s in first if pid in s)
        after_values = [s[pid] for s in last if pid in s]
        if not after_values:
            continue
        after = statistics.mean(after_values)
        growth = max(growth, after / before - 1)
        print(
            f"worker {pid}: RSS {before:.0f} MB in the first {window:.0f} s, "
            f"{after:.0f} MB in the last ({after / before - 1:+.1%})"
        )
    checks = [
        (f"5xx answers: {server_errors} (goal 0)", server_errors == 0),
        (f"requests without an answer: {sum(failures.values())} (goal 0)", not failures),
        (f"slowest answer: {slowest:.0f} ms (goal <= {MAX_ANSWER_MS:.0f} ms)", slowest <= MAX_ANSWER_MS),
        (f"RSS growth: {growth:.1%} (goal < {MAX_RSS_GROWTH:.0%})", growth < MAX_RSS_GROWTH and bool(first)),
    ]
    for text, met in checks:
        print(f"{text} {'met' if met else 'MISSED'}")
    return all(met for _, met in checks)


def main() -> int:
    courts_wanted = PROCESSES * LANES
    with temporary_database() as url, tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        env = {
            **os.environ,
            "BOOKING_DATABASE_URL": url,
            "BOOKING_PORT": str(port),
            "BOOKING_WORKERS": "2",
            "BOOKING_RATE_LIMIT_PER_MINUTE": "0",
            "BOOKING_MAX_UNPAID_PER_USER": "1000000",  # one user books in every lane at once
            "BOOKING_PAYMENT_PROVIDER": "sandbox",
            "BOOKING_STRIPE_WEBHOOK_SECRET": WEBHOOK_SECRET,
            "BOOKING_MAIL_BACKEND": "file",
            "BOOKING_MAIL_DIR": str(Path(tmp) / "mail"),
        }
        migrate_and_load(env, catalog(courts_wanted), Path(tmp) / "soak.json")
        server = subprocess.Popen(
            [BOOKING, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            if not wait_healthy(port):
                print("the service did not become healthy", file=sys.stderr)
                return 1
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", "/api/v1/resources/?venue_slug=soak")
            courts = [r["id"] for r in json.loads(conn.getresponse().read())]
            first_day = datetime.now(UTC).date() + timedelta(days=2)
            peak = drive(port, courts, first_day, PEAK_SECONDS, None)
            peak_rate = sum(len(v) for v in peak["latencies"].values()) / PEAK_SECONDS  # type: ignore[attr-defined]
            rate = peak_rate * RATE_SHARE
            print(
                f"peak of the mix: {peak_rate:.0f} req/s with {len(courts)} lanes flat out; "
                f"soak at {rate:.0f} req/s"
            )
            samples: list[tuple[float, dict[int, float]]] = []
            stop = threading.Event()
            sampler = threading.Thread(target=sample_rss, args=(server, stop, samples), daemon=True)
            sampler.start()
            # the peak run booked its lanes' first hours; the soak starts a year later on the same courts
            results = drive(port, courts, first_day + timedelta(days=365), SOAK_SECONDS, len(courts) / rate)
            stop.set()
            return 0 if report(results, SOAK_SECONDS, samples) else 1
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
