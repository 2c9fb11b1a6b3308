"""What the benchmark scripts (bench_http, bench_scale, soak) share: a free port, a migrated database with
a catalog loaded through the ``booking`` CLI, an all-day court, wrk's output read as figures, the
resident memory of the server's workers, and the CPU time each part of a run spends. Imported as
``benchmarks._harness`` (the scripts put the repository root on ``sys.path``)."""

from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOOKING = str(ROOT / ".venv" / "bin" / "booking")

WRK_FIGURES = ("requests", "rps", "p50_ms", "p99_ms", "max_ms", "errors")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def all_day_resource(max_advance_booking_days: int) -> dict[str, object]:
    """A court open round the clock at 20.00 EUR an hour, booked by the hour (60 to 120 minutes)."""
    all_day = [{"start_time": "00:00:00", "end_time": "00:00:00", "price_per_unit": "20.00"}]
    return {
        "capacity": 4,
        "base_price": "20.00",
        "currency": "EUR",
        "price_unit": "hour",
        "booking_interval_minutes": 60,
        "min_booking_duration_minutes": 60,
        "max_booking_duration_minutes": 120,
        "prevent_unbookable_gaps": False,
        "max_advance_booking_days": max_advance_booking_days,
        "schedules": [{"day_of_week": d, "time_slots": all_day} for d in range(1, 8)],
    }


def migrate_and_load(env: Mapping[str, str], catalog: object, catalog_file: Path) -> None:
    """``booking db upgrade``, then ``booking catalog load`` of ``catalog`` (written to ``catalog_file``)."""
    catalog_file.write_text(json.dumps(catalog))
    subprocess.run([BOOKING, "db", "upgrade"], env=env, check=True, capture_output=True)
    subprocess.run([BOOKING, "catalog", "load", str(catalog_file)], env=env, check=True, capture_output=True)


def wrk_figures(out: str, on_error_line: Callable[[str], None] | None = None) -> dict[str, float]:
    """wrk's ``--latency`` output as requests, req/s, p50/p99/max (ms) and errors (non-2xx answers and
    socket errors); ``on_error_line`` sees each line that reports errors."""
    figures = dict.fromkeys(WRK_FIGURES, 0.0)
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
        elif line.strip().startswith(("Non-2xx", "Socket errors")):
            figures["errors"] += sum(float(w.strip(",")) for w in words if w.strip(",").isdigit())
            if on_error_line is not None:
                on_error_line(line)
    return figures


def _ms(value: str) -> float:
    for unit, factor in (("us", 0.001), ("ms", 1.0), ("s", 1000.0)):
        if value.endswith(unit):
            return float(value[: -len(unit)]) * factor
    return float(value)


def worker_rss_mb(server: subprocess.Popen[bytes]) -> dict[int, float]:
    """Resident memory (MB) per worker process of ``booking serve``, by pid."""
    children = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
    sizes: dict[int, float] = {}
    for pid in children:
        if b"spawn_main" not in Path(f"/proc/{pid}/cmdline").read_bytes():
            continue  # multiprocessing's resource tracker, not a server worker
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    sizes[int(pid)] = int(line.split()[1]) / 1024
        except OSError:
            continue  # the worker ended between the listing and the read
    return sizes


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_of(pid: str) -> tuple[str, float]:
    """``pid``'s command name and CPU seconds (user and system) from ``/proc``."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    name = stat[stat.index("(") + 1 : stat.rindex(")")]
    fields = stat[stat.rindex(")") + 2 :].split()  # from the state on: utime and stime are 12 and 13
    return name, (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def _tree(root: int) -> set[str]:
    """``root`` and its descendants, as pids."""
    found, todo = set(), [str(root)]
    while todo:
        pid = todo.pop()
        found.add(pid)
        try:
            todo += Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            continue  # ended meanwhile
    return found


class CpuMeter:
    """CPU seconds spent so far by a server under test (its process tree), by PostgreSQL (every
    process named ``postgres``: its backends, WAL writer and checkpointer) and by the load generator
    (this process and the children it has waited for, wrk among them).

    Where the cores are the limit, as with the benchmarks' 32 connections on a small machine, a route's
    throughput is the cores over its CPU per request, so these figures tell whose work a ratio of two
    routes comes from. A process that ends between two readings takes its time with it; the servers'
    workers and their pools' database connections live through a run.
    """

    PARTS = ("server", "postgres", "load")

    def __init__(self, servers: Mapping[str, int]) -> None:
        self.servers = dict(servers)  # a name -> the pid of its parent process

    def read(self, server: str) -> dict[str, float]:
        """The seconds of each of :attr:`PARTS`, ``server`` being the one of that name."""
        tree = _tree(self.servers[server])
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        seconds = {
            "server": 0.0,
            "postgres": 0.0,
            "load": own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime,
        }
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                name, cpu = _cpu_of(pid)
            except (OSError, ValueError, IndexError):
                continue  # ended between the listing and the read
            if pid in tree:
                seconds["server"] += cpu
            elif name == "postgres":
                seconds["postgres"] += cpu
        return seconds
