"""``booking serve`` in a child process with several workers, for races across processes and for faults.

:func:`serving` migrates, loads a catalog and serves for the length of a block. For tests that kill
the server and start it again on the same database, :func:`prepared` does the first part once and
:func:`running` starts (and stops) a server on what it returned, handing out the process itself.
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
from typing import IO, Any

import httpx

BOOKING = str(Path(sys.executable).with_name("booking"))


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
def running(environment: Mapping[str, str]) -> Iterator[Running]:
    """``booking serve`` with ``environment`` until the block ends (or the test kills it)."""
    # the log goes to a file: a pipe nobody reads would stall a server that logs a lot (faults do)
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            [BOOKING, "serve"], env=dict(environment), stdout=subprocess.DEVNULL, stderr=log
        )
        base = f"http://127.0.0.1:{environment['BOOKING_PORT']}"
        try:
            _wait_healthy(base, proc, log)
            yield Running(base, proc)
        finally:
            if proc.poll() is None:
                proc.terminate()
            proc.wait(timeout=30)


@contextmanager
def serving(
    url: str, catalog: Mapping[str, Any], tmp: Path, *, workers: int, env: Mapping[str, str] | None = None
) -> Iterator[str]:
    """Migrate ``url``, load ``catalog``, run ``booking serve`` with ``workers`` processes; yield its URL.

    The rate limit is off, holds last 600 minutes and one user may hold any number of unpaid
    bookings, unless ``env`` says otherwise.
    """
    with running(prepared(url, catalog, tmp, workers=workers, env=env)) as server:
        yield server.base


def _wait_healthy(base: str, proc: subprocess.Popen[bytes], log: IO[bytes]) -> None:
    for _ in range(150):
        if proc.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"server exited: {log.read().decode(errors='replace')}")
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError("server did not become healthy")
