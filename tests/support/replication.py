"""A throw-away PostgreSQL primary with a streaming hot standby, on ports of their own.

Built with the server binaries of ``pg_config --bindir`` (initdb, pg_ctl, pg_basebackup -R) in a
temporary directory. initdb refuses to run as root, so as root every binary runs as the
``postgres`` system user (through ``runuser``) in a directory that user owns. Without the
binaries the caller is skipped, except under ``CI=true``, where that fails.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import pytest

_SETTINGS = (
    # a test cluster: speed over durability (fsync off; commits still flush, so WAL streams at once)
    "-c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off "
    "-c max_connections=40 -c shared_buffers=32MB -c wal_level=replica -c max_wal_senders=4 "
    "-c hot_standby=on -c hot_standby_feedback=on"
)


@dataclass(frozen=True)
class Pair:
    """The URLs of both servers; :meth:`stop_standby` takes the standby down (an outage)."""

    primary_url: str
    standby_url: str
    bindir: Path
    standby_dir: Path

    def stop_standby(self) -> None:
        """Stop the standby at once, as a crash would."""
        _run([self.bindir / "pg_ctl", "-D", self.standby_dir, "-m", "immediate", "-w", "stop"])


def _bindir() -> Path | None:
    pg_config = shutil.which("pg_config")
    if pg_config is None:
        return None
    found = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, check=False)
    bindir = Path(found.stdout.strip())
    return bindir if (bindir / "initdb").exists() and (bindir / "pg_basebackup").exists() else None


def require_binaries() -> Path:
    """The server binaries' directory; skip (or under ``CI=true`` fail) when they are missing."""
    bindir = _bindir()
    if bindir is None:
        message = "PostgreSQL server binaries (pg_config --bindir: initdb, pg_basebackup) are missing"
        if os.environ.get("CI") == "true":
            pytest.fail(message + " (mandatory under CI=true)")
        pytest.skip(message)
    return bindir


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run(command: list[str | Path]) -> None:
    argv = [str(part) for part in command]
    if os.geteuid() == 0:
        argv = ["runuser", "-u", "postgres", "--", *argv]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr or done.stdout}")


@contextmanager
def streaming_pair() -> Iterator[Pair]:
    """Start a primary and a standby replicating from it; stop both and delete them afterwards."""
    bindir = require_binaries()
    root = Path(tempfile.mkdtemp(prefix="booking-replication-"))
    if os.geteuid() == 0:
        owner = pwd.getpwnam("postgres")
        os.chown(root, owner.pw_uid, owner.pw_gid)
    primary, standby = root / "primary", root / "standby"
    ports = _free_port(), _free_port()
    started: list[Path] = []
    try:
        _run([bindir / "initdb", "-D", primary, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"])
        _start(bindir, primary, ports[0], root, started)
        _run([
            bindir / "pg_basebackup", "-h", "127.0.0.1", "-p", str(ports[0]), "-U", "postgres",
            "-D", standby, "-R", "-X", "stream", "--no-sync",
        ])  # fmt: skip
        _start(bindir, standby, ports[1], root, started)
        yield Pair(
            primary_url=f"postgresql://postgres@127.0.0.1:{ports[0]}/postgres",
            standby_url=f"postgresql://postgres@127.0.0.1:{ports[1]}/postgres",
            bindir=bindir,
            standby_dir=standby,
        )
    finally:
        for data in reversed(started):
            with suppress(RuntimeError, subprocess.TimeoutExpired):
                _run([bindir / "pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"])
        shutil.rmtree(root, ignore_errors=True)


def _start(bindir: Path, data: Path, port: int, root: Path, started: list[Path]) -> None:
    options = f"{_SETTINGS} -p {port} -k {root}"
    _run([bindir / "pg_ctl", "-D", data, "-o", options, "-l", root / f"{data.name}.log", "-w", "start"])
    started.append(data)
    time.sleep(0.1)
