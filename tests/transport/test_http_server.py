"""Tests of scopa.transport._http_server: the HTTP port's socket and embedded uvicorn server."""

from __future__ import annotations

import asyncio
import socket

from scopa.transport._http_server import _bind


async def _accepted_nodelay(host: str) -> int:
    """TCP_NODELAY of a connection accepted on a socket from `_bind(host, 0)`."""
    sock = _bind(host, 0)
    loop = asyncio.get_running_loop()
    accepted: asyncio.Future[int] = loop.create_future()

    class _Probe(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            conn = transport.get_extra_info("socket")
            accepted.set_result(conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    server = await loop.create_server(_Probe, sock=sock)
    try:
        _, writer = await asyncio.open_connection(*sock.getsockname()[:2])
        nodelay = await asyncio.wait_for(accepted, timeout=10)
        writer.close()
        return nodelay
    finally:
        server.close()
        await server.wait_closed()


def test_accepted_connections_disable_nagle() -> None:
    """Accepted HTTP connections have TCP_NODELAY, so a response never waits for a delayed ACK."""
    assert asyncio.run(_accepted_nodelay("127.0.0.1")) != 0


def test_bind_picks_a_free_port_on_port_zero() -> None:
    """Port 0 binds a free port, reported by the socket."""
    sock = _bind("127.0.0.1", 0)
    try:
        assert sock.getsockname()[1] > 0
    finally:
        sock.close()
