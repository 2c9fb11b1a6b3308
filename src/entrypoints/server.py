"""`booking serve`: uvicorn in one process, or in several that each listen with SO_REUSEPORT.

uvicorn's own multi-worker mode shares one listening socket, and whichever process wakes first
accepts a whole burst of connections: with keep-alive clients one worker ends up with nearly all
of them. With a socket per worker and SO_REUSEPORT the kernel spreads connections evenly.
"""

from __future__ import annotations

import multiprocessing
import signal
import socket
import time
from collections.abc import Sequence
from types import FrameType
from typing import Any

import uvicorn

_UVICORN: dict[str, Any] = {
    "app": "entrypoints.http.asgi:create",
    "factory": True,
    # the C parser and event loop uvicorn's "standard" install uses (see entrypoints.http.protocol)
    "http": "entrypoints.http.protocol:NoDelayHttpToolsProtocol",
    "loop": "uvloop",
    # a log line per request cost a seventh of a cheap request's time; /metrics counts and times every
    # request by route and status, and errors are logged where they are handled
    "access_log": False,
}


class ServeError(Exception):
    """The server cannot start (for example, the port is taken)."""


def proxy_options(forwarded_allow_ips: Sequence[str]) -> dict[str, Any]:
    """uvicorn's options to take the client address from ``X-Forwarded-For`` of these peers only.

    uvicorn trusts the header from 127.0.0.1 unless told otherwise; so any local caller could pick
    the address it is rate limited under. With no peers listed the header is ignored altogether.
    """
    if not forwarded_allow_ips:
        return {"proxy_headers": False}
    return {"proxy_headers": True, "forwarded_allow_ips": list(forwarded_allow_ips)}


def serve(host: str, port: int, workers: int, forwarded_allow_ips: Sequence[str] = ()) -> None:
    """Serve until SIGINT or SIGTERM; a worker that dies is replaced. Call ensure_port_free first."""
    options = {**_UVICORN, **proxy_options(forwarded_allow_ips)}
    if workers == 1:
        uvicorn.run(host=host, port=port, **options)
        return
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=_worker, args=(host, port, options)) for _ in range(workers)]
    stopping = False

    def stop(_signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True
        for process in processes:
            if process.is_alive():
                process.terminate()  # SIGTERM: uvicorn finishes the requests in flight

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for process in processes:
        process.start()
    while not stopping:
        time.sleep(0.5)
        for index, process in enumerate(processes):
            if not process.is_alive() and not stopping:
                processes[index] = context.Process(target=_worker, args=(host, port, options))
                processes[index].start()
    for process in processes:
        process.join(timeout=30)


def ensure_port_free(host: str, port: int) -> None:
    """Raise ServeError, in one line, when the address is taken or served already."""
    # SO_REUSEPORT would let a second `booking serve` share the port with a running one
    target = "127.0.0.1" if host in {"0.0.0.0", ""} else "::1" if host == "::" else host  # noqa: S104
    try:
        socket.create_connection((target, port), timeout=0.5).close()
    except OSError:
        _listening_socket(host, port).close()
        return
    raise ServeError(f"cannot listen on {host}:{port}: another server is already listening there")


def _listening_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise ServeError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    sock.listen(2048)
    return sock


def _worker(host: str, port: int, options: dict[str, Any]) -> None:
    sock = _listening_socket(host, port)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent turns Ctrl-C into SIGTERM for us
    uvicorn.Server(uvicorn.Config(**options)).run(sockets=[sock])
