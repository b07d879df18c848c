"""Serve an ASGI application with uvicorn inside the running asyncio loop (beside grpc.aio).

No process or loop of its own, no signal handlers (the process's own stay in charge), no
uvicorn logging set-up or access log (the application logs each request itself). The socket is
bound here, so port 0 picks a free port and `start()` returns the bound one.

uvicorn writes a response's head and its body with one socket send each; the connections here
hand the socket everything one event-loop step wrote in one send (:class:`_CoalescingTransport`):
on loopback each send cost about as much CPU as the whole JSON encoding of a PlayCard response.

WebSocket connections (realtime sessions, :mod:`._websocket`) use uvicorn's websockets-sansio
protocol with two additions in the scope's ``extensions``: ``scopa.abort``, a callable that
drops the connection at once (ASGI has no abort, and a ``websocket.close`` waits until the
peer reads what is queued before it: a slow reader would keep its buffers); and
``scopa.send_now``, which writes one data message without awaiting (what the ASGI
``websocket.send`` does when nothing holds it up: no writer task to wake per frame), or
returns False where the ASGI send would wait or fail (writing paused, closing, closed).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterable, Iterator
from typing import Any

import uvicorn
from uvicorn.protocols.http.auto import AutoHTTPProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState

from ._http_telemetry import ASGIApp

__all__ = ["ABORT_EXTENSION", "SEND_NOW_EXTENSION", "HttpServer"]

ABORT_EXTENSION = "scopa.abort"
"""The WebSocket scope's extension: a callable that drops the connection at once."""
SEND_NOW_EXTENSION = "scopa.send_now"
"""The WebSocket scope's extension: ``send_now(data: bytes | str) -> bool`` writes one binary
(bytes) or text (str) message at once; False, nothing written, where it cannot."""


class _CoalescingTransport(asyncio.Transport):
    """A connection's transport whose writes of one event-loop step go out in one send."""

    def __init__(self, transport: asyncio.Transport) -> None:
        super().__init__()
        self._transport = transport
        self._pending: list[bytes] = []
        self._loop = asyncio.get_running_loop()
        self._pause_wanted = False
        self._pause_scheduled = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Queue ``data``; the first write of a step schedules the send."""
        if not data:
            return
        if not self._pending:
            self._loop.call_soon(self._flush)
        self._pending.append(bytes(data))

    def writelines(self, list_of_data: Iterable[bytes | bytearray | memoryview]) -> None:
        """Queue each piece."""
        for data in list_of_data:
            self.write(data)

    def _flush(self) -> None:
        if not self._pending:
            return
        data = self._pending[0] if len(self._pending) == 1 else b"".join(self._pending)
        self._pending.clear()
        if not self._transport.is_closing():
            self._transport.write(data)

    def close(self) -> None:
        """Send what is queued, then close (asyncio sends its own buffer before closing)."""
        self._flush()
        self._transport.close()

    def abort(self) -> None:
        """Close at once, dropping what is queued."""
        self._pending.clear()
        self._transport.abort()

    def is_closing(self) -> bool:
        """True once closing."""
        return self._transport.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        """The socket's details (peer and local address, ...)."""
        return self._transport.get_extra_info(name, default)

    def get_write_buffer_size(self) -> int:
        """Bytes queued here or in asyncio's buffer."""
        return self._transport.get_write_buffer_size() + sum(map(len, self._pending))

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        """asyncio's write flow-control marks."""
        self._transport.set_write_buffer_limits(high, low)

    def get_write_buffer_limits(self) -> tuple[int, int]:
        """asyncio's write flow-control marks."""
        return self._transport.get_write_buffer_limits()

    def pause_reading(self) -> None:
        """Stop reading (uvicorn's flow control) from the next event-loop step on, unless
        reading is resumed before: uvicorn's WebSocket protocol pauses after each message and
        resumes as soon as the application takes it, which is usually the very next step (two
        selector updates per message for nothing). Nothing is read meanwhile: the socket is
        read at most once a step."""
        self._pause_wanted = True
        if not self._pause_scheduled:
            self._pause_scheduled = True
            self._loop.call_soon(self._pause_now)

    def _pause_now(self) -> None:
        self._pause_scheduled = False
        if self._pause_wanted and not self._transport.is_closing():
            self._transport.pause_reading()

    def resume_reading(self) -> None:
        """Read again."""
        if self._pause_wanted:
            self._pause_wanted = False
            self._transport.resume_reading()

    def is_reading(self) -> bool:
        """True while reading (and no pause is wanted)."""
        return not self._pause_wanted and self._transport.is_reading()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        """Hand the connection to another protocol."""
        self._transport.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        """The connection's protocol."""
        return self._transport.get_protocol()

    def can_write_eof(self) -> bool:
        """Whether write_eof works."""
        return self._transport.can_write_eof()

    def write_eof(self) -> None:
        """Send what is queued, then half-close."""
        self._flush()
        self._transport.write_eof()


class _Protocol(AutoHTTPProtocol):  # type: ignore[misc,valid-type]
    """uvicorn's HTTP/1.1 protocol (httptools when installed, else h11) on a coalescing
    transport."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Start the connection on the coalescing transport."""
        assert isinstance(transport, asyncio.Transport)
        super().connection_made(_CoalescingTransport(transport))


class _WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (the websockets library, sans-I/O) whose scope offers the
    application an abort (:data:`ABORT_EXTENSION`)."""

    def handle_connect(self, event: Any) -> None:
        """Start the ASGI application, with the abort in the scope's extensions."""
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:
            scope["extensions"][ABORT_EXTENSION] = self._abort
            scope["extensions"][SEND_NOW_EXTENSION] = self._send_now

    def _abort(self) -> None:
        self.transport.abort()

    def _send_now(self, data: bytes | str) -> bool:
        """The ASGI send of a ``websocket.send`` where it would neither wait nor fail."""
        if (
            not self.writable.is_set()
            or self.disconnected
            or self.close_sent
            or not self.handshake_complete
            or self.initial_response is not None
            or self.transport.is_closing()
        ):
            return False
        try:
            if isinstance(data, bytes):
                self.conn.send_binary(data)
            else:
                self.conn.send_text(data.encode())
        except InvalidState:
            return False
        self.transport.write(b"".join(self.conn.data_to_send()))
        return True


class _EmbeddedServer(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield  # SIGTERM/SIGINT belong to the process's own handlers


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets whose proto says TCP, and
    # without it every response waits ~40 ms for Nagle and the client's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


class HttpServer:
    """One uvicorn server on ``host:port``; `start()` then `stop()`."""

    def __init__(
        self,
        app: ASGIApp,
        host: str,
        port: int,
        *,
        grace_s: float = 10.0,
        ws_max_bytes: int = 4 * 65_536,
        ws_ping_s: float = 20.0,
    ) -> None:
        """``ws_max_bytes``: the largest WebSocket message read (a larger one closes the
        connection with 1009); ``ws_ping_s``: the WebSocket ping interval, and how long a
        pong may take (else the connection is closed with 1011)."""
        self._app = app
        self._host = host
        self._port = port
        self._grace_s = grace_s
        self._ws_max_bytes = ws_max_bytes
        self._ws_ping_s = ws_ping_s
        self._server: _EmbeddedServer | None = None
        self._task: asyncio.Task[None] | None = None
        self.port = 0

    async def start(self) -> int:
        """Bind, start serving and return the bound port."""
        sock = _bind(self._host, self._port)
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self._app,
            lifespan="off",
            interface="asgi3",
            http=_Protocol,
            ws=_WebSocketProtocol,
            ws_max_size=self._ws_max_bytes,
            ws_ping_interval=self._ws_ping_s,
            ws_ping_timeout=self._ws_ping_s,
            ws_per_message_deflate=False,
            proxy_headers=False,  # client addresses as seen; HttpGuard reads trusted proxy headers
            log_config=None,
            access_log=False,
            server_header=False,
            timeout_graceful_shutdown=int(max(1, self._grace_s)),
            timeout_keep_alive=30,
        )
        self._server = _EmbeddedServer(config)
        self._task = asyncio.create_task(self._server.serve(sockets=[sock]), name="scopa-http")
        while not self._server.started:
            if self._task.done():
                self._task.result()
                raise OSError(f"the HTTP server on port {self.port} stopped while starting")
            await asyncio.sleep(0.01)
        return self.port

    async def stop(self) -> None:
        """Stop accepting, give open requests the grace period, then end them."""
        if self._server is None or self._task is None:
            return
        self._server.should_exit = True
        await self._task
