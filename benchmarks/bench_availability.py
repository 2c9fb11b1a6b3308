"""Benchmark of ``available_ranges``: one resource, two windows a day, 31 days (and a year).

Run: ``python benchmarks/bench_availability.py``. Times the computation over 31 days with 1,000 and
with 10,000 blocking intervals and exits non-zero when the median with 1,000 reaches 5 ms or when
10,000 take more than 12 times as long as 1,000 (the computation must stay linear after sorting).
It also shows 365 days with 10,000 blocking intervals, which has no limit of its own.
"""

from __future__ import annotations

import datetime as dt
import random
import statistics
import sys
import time
from decimal import Decimal
from pathlib import Path

try:
    import booking_core  # noqa: F401
except ImportError:  # a checkout without `make install`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from booking_core.availability import available_ranges
from booking_core.catalog import Resource, Schedule, TimeSlot, Venue
from booking_core.timerange import TimeRange

START = dt.date(2026, 6, 1)
DAYS = 31
REPEATS = 50
LIMIT_MS = 5.0
LIMIT_RATIO = 12.0


def build_resource() -> Resource:
    slots = (
        TimeSlot(start_time=dt.time(8), end_time=dt.time(12), price_per_unit=Decimal("20.00")),
        TimeSlot(start_time=dt.time(14), end_time=dt.time(22), price_per_unit=Decimal("30.00"), label="Peak"),
    )
    venue = Venue(id=1, slug="bench", name="Bench Club", timezone="Europe/Berlin")
    schedules = tuple(Schedule(id=day, day_of_week=day, time_slots=slots) for day in range(1, 8))
    return Resource(id=1, venue=venue, name="Court 1", schedules=schedules)


def build_blocking(resource: Resource, count: int, days: int = DAYS, seed: int = 7) -> list[TimeRange]:
    """``count`` bookings of 30 minutes to 2 hours at random aligned times over ``days`` days."""
    rng = random.Random(seed)
    first = dt.datetime.combine(START, dt.time(), resource.tz).astimezone(dt.UTC)  # real minutes
    blocking = []
    for _ in range(count):
        start = first + dt.timedelta(minutes=30 * rng.randrange(days * 48))
        blocking.append(TimeRange(start, start + dt.timedelta(minutes=30 * rng.randint(1, 4))))
    rng.shuffle(blocking)
    return blocking


def measure(
    resource: Resource, blocking: list[TimeRange], days: int = DAYS, repeats: int = REPEATS
) -> list[float]:
    now = dt.datetime.combine(START - dt.timedelta(days=1), dt.time(9), resource.tz)
    end = START + dt.timedelta(days=days - 1)

    def run() -> None:
        available_ranges(resource, START, end, blocking=blocking, now=now, demand=Decimal(0))

    for _ in range(5):
        run()
    timings = []
    for _ in range(repeats):
        began = time.perf_counter()
        run()
        timings.append((time.perf_counter() - began) * 1000)
    return timings


def summary(label: str, timings: list[float]) -> float:
    median = statistics.median(timings)
    p95 = statistics.quantiles(timings, n=20)[-1]
    print(f"{label:>26}: median {median:7.3f} ms   p95 {p95:7.3f} ms   ({len(timings)} runs)")
    return median


def main() -> int:
    resource = build_resource()
    small = summary("31 days, 1,000 blocking", measure(resource, build_blocking(resource, 1_000)))
    large = summary("31 days, 10,000 blocking", measure(resource, build_blocking(resource, 10_000)))
    ratio = large / small
    print(f"{'ratio 10k/1k':>26}: {ratio:.2f} (limit {LIMIT_RATIO:g}); median 1k limit {LIMIT_MS:g} ms")
    year = build_blocking(resource, 10_000, days=365)
    summary("365 days, 10,000 blocking", measure(resource, year, days=365, repeats=REPEATS // 5))
    if small >= LIMIT_MS or ratio > LIMIT_RATIO:
        print("FAIL: availability is too slow or not linear", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
