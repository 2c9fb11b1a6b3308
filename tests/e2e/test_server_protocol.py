"""The server's HTTP protocol switches Nagle's algorithm off on accepted connections."""

from __future__ import annotations

import contextlib
import socket
from unittest.mock import MagicMock

import pytest

from entrypoints.http.protocol import NoDelayH11Protocol, NoDelayHttpToolsProtocol


@pytest.mark.parametrize("protocol_class", [NoDelayH11Protocol, NoDelayHttpToolsProtocol])
def test_accepted_connection_gets_tcp_nodelay(protocol_class: type) -> None:
    server, client = socket.socket(), socket.socket()
    try:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        client.connect(server.getsockname())
        accepted, _ = server.accept()
        # a socket handed over between processes loses asyncio's automatic TCP_NODELAY
        accepted.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 0)
        transport = MagicMock()
        transport.get_extra_info.side_effect = lambda name, default=None: {
            "socket": accepted,
            "peername": ("127.0.0.1", 1),
            "sockname": ("127.0.0.1", 2),
        }.get(name, default)
        protocol = protocol_class.__new__(protocol_class)
        # the base class needs a fully built server to go on; only the socket option matters here
        with contextlib.suppress(Exception):
            protocol.connection_made(transport)
        assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
        accepted.close()
    finally:
        client.close()
        server.close()
