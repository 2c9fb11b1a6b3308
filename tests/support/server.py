"""``booking serve`` in a child process with several workers, for races across processes and for faults.

:func:`serving` migrates, loads a catalog and serves for the length of a block. For tests that kill
the server and start it again on the same database, :func:`prepared` does the first part once and
:func:`running` starts (and stops) a server on what it returned, handing out the process itself.

Each server writes its log to a file that outlives it (``serve-<port>.log`` in the test's directory,
which pytest keeps): when a test fails, ``tests/conftest.py`` adds the tail of the log of every
server that ran during it to the failure report (:func:`logs_of_test`).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

BOOKING = str(Path(sys.executable).with_name("booking"))
#: The log of every server started in this test session, in order; and of those still running.
_STARTED: list[Path] = []
_RUNNING: set[Path] = set()


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Running:
    """A started ``booking serve``: its base URL and its process."""

    base: str
    process: subprocess.Popen[bytes]
    log: Path


def prepared(
    url: str, catalog: Mapping[str, Any], tmp: Path, *, workers: int, env: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Migrate ``url`` and load ``catalog``; the environment for ``booking serve`` on a free port.

    The rate limit is off, holds last 600 minutes and one user may hold any number of unpaid
    bookings, unless ``env`` says otherwise.
    """
    environment = {
        **os.environ,
        "BOOKING_DATABASE_URL": url,
        "BOOKING_PORT": str(free_port()),
        "BOOKING_WORKERS": str(workers),
        "BOOKING_RATE_LIMIT_PER_MINUTE": "0",
        "BOOKING_PENDING_HOLD_MINUTES": "600",
        # the cases hold many unpaid bookings of one user at once, as a crowd of users would
        "BOOKING_MAX_UNPAID_PER_USER": "1000000",
        "BOOKING_MAIL_DIR": str(tmp / "mail"),
        **(env or {}),
    }
    path = tmp / "catalog.json"
    path.write_text(json.dumps(catalog))
    subprocess.run([BOOKING, "db", "upgrade"], env=environment, check=True, capture_output=True)
    subprocess.run([BOOKING, "catalog", "load", str(path)], env=environment, check=True, capture_output=True)
    return environment


@contextmanager
def running(environment: Mapping[str, str], log_dir: Path | None = None) -> Iterator[Running]:
    """``booking serve`` with ``environment`` until the block ends (or the test kills it).

    Its log goes to ``serve-<port>.log`` in ``log_dir`` (the test's ``tmp_path``, say; the system's
    temporary directory when None) and stays there after the server stopped.
    """
    port = environment["BOOKING_PORT"]
    log_path = Path(log_dir or tempfile.gettempdir()) / f"serve-{port}.log"
    # a file, not a pipe: a pipe nobody reads would stall a server that logs a lot (faults do)
    with log_path.open("ab") as log:
        proc = subprocess.Popen(
            [BOOKING, "serve"], env=dict(environment), stdout=subprocess.DEVNULL, stderr=log
        )
        _STARTED.append(log_path)
        _RUNNING.add(log_path)
        base = f"http://127.0.0.1:{port}"
        try:
            _wait_healthy(base, proc, log_path)
            yield Running(base, proc, log_path)
        finally:
            if proc.poll() is None:
                proc.terminate()
            proc.wait(timeout=30)
            _RUNNING.discard(log_path)


def logs_of_test(started_before: int) -> list[Path]:
    """The logs of the servers still running and of those started since ``len(started())`` was
    ``started_before`` (the servers a test that began then may have talked to)."""
    return sorted(_RUNNING | set(_STARTED[started_before:]), key=_STARTED.index)


def started() -> list[Path]:
    """The logs of every server started so far in this session, in order."""
    return list(_STARTED)


def tail(log: Path, lines: int = 60) -> str:
    """The last ``lines`` lines of a server's log."""
    try:
        text = log.read_text(errors="replace")
    except OSError as error:
        return f"(cannot read {log}: {error})"
    return "\n".join(text.splitlines()[-lines:])


@contextmanager
def serving(
    url: str, catalog: Mapping[str, Any], tmp: Path, *, workers: int, env: Mapping[str, str] | None = None
) -> Iterator[str]:
    """Migrate ``url``, load ``catalog``, run ``booking serve`` with ``workers`` processes; yield its URL.

    The rate limit is off, holds last 600 minutes and one user may hold any number of unpaid
    bookings, unless ``env`` says otherwise.
    """
    with running(prepared(url, catalog, tmp, workers=workers, env=env), tmp) as server:
        yield server.base


def _wait_healthy(base: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    for _ in range(150):
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {log.read_text(errors='replace')}")
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"server did not become healthy; its log ends:\n{tail(log)}")
