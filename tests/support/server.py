"""``booking serve`` in a child process with several workers, for races across processes."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

BOOKING = str(Path(sys.executable).with_name("booking"))


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(
    url: str, catalog: Mapping[str, Any], tmp: Path, *, workers: int, env: Mapping[str, str] | None = None
) -> Iterator[str]:
    """Migrate ``url``, load ``catalog``, run ``booking serve`` with ``workers`` processes; yield its URL.

    The rate limit is off and holds last 600 minutes unless ``env`` says otherwise.
    """
    port = free_port()
    environment = {
        **os.environ,
        "BOOKING_DATABASE_URL": url,
        "BOOKING_PORT": str(port),
        "BOOKING_WORKERS": str(workers),
        "BOOKING_RATE_LIMIT_PER_MINUTE": "0",
        "BOOKING_PENDING_HOLD_MINUTES": "600",
        "BOOKING_MAIL_DIR": str(tmp / "mail"),
        **(env or {}),
    }
    path = tmp / "catalog.json"
    path.write_text(json.dumps(catalog))
    subprocess.run([BOOKING, "db", "upgrade"], env=environment, check=True, capture_output=True)
    subprocess.run([BOOKING, "catalog", "load", str(path)], env=environment, check=True, capture_output=True)
    proc = subprocess.Popen(
        [BOOKING, "serve"], env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(base, proc)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _wait_healthy(base: str, proc: subprocess.Popen[bytes]) -> None:
    for _ in range(150):
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {proc.stderr.read().decode() if proc.stderr else ''}")
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError("server did not become healthy")
