"""`booking serve` with several worker processes: one per SO_REUSEPORT socket."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.slow
BOOKING = str(Path(sys.executable).with_name("booking"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _children(pid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True, check=False)
    return [int(p) for p in found.stdout.split()]


def test_workers_serve_refuse_a_second_server_and_stop_on_sigterm(tmp_path: Path) -> None:
    port = _free_port()
    env = {
        **os.environ,
        "BOOKING_DATABASE_URL": f"sqlite:///{tmp_path / 'b.sqlite3'}",
        "BOOKING_PORT": str(port),
        "BOOKING_WORKERS": "2",
        "BOOKING_INPROCESS_WORKER": "false",
    }
    subprocess.run([BOOKING, "db", "upgrade"], env=env, check=True, capture_output=True)
    server = subprocess.Popen(
        [BOOKING, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        for _ in range(100):
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        spawned = [c for c in _children(server.pid) if "spawn" in Path(f"/proc/{c}/cmdline").read_text()]
        assert len(spawned) == 2

        second = subprocess.run([BOOKING, "serve"], env=env, capture_output=True, text=True, timeout=30)
        assert second.returncode == 1
        assert second.stderr.strip().splitlines() == [
            f"cannot listen on 127.0.0.1:{port}: another server is already listening there"
        ]
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    assert server.returncode == 0
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)
