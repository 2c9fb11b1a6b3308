"""uvicorn's HTTP/1.1 protocols with Nagle's algorithm switched off on every connection.

asyncio sets TCP_NODELAY on the sockets it creates, but not on connections accepted from the
listening socket uvicorn hands to its worker processes (``BOOKING_WORKERS`` > 1). Without it a
response written in two parts waits for the client's delayed ACK: 40 ms on every request.

``booking serve`` uses the httptools parser (C) on uvloop: the pure-Python h11 parser on the
standard event loop cost more than half of the time of the cheapest request (docs/performance.md).
The h11 variant stays for running the app by hand where those C extensions cannot be installed
(``uvicorn --http entrypoints.http.protocol:NoDelayH11Protocol ...``).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


def _no_delay(transport: asyncio.BaseTransport) -> None:
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class NoDelayH11Protocol(H11Protocol):
    """H11Protocol that sends small writes at once."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        _no_delay(transport)
        super().connection_made(transport)


class NoDelayHttpToolsProtocol(HttpToolsProtocol):
    """HttpToolsProtocol that sends small writes at once."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        _no_delay(transport)
        super().connection_made(transport)
