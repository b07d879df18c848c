"""Serve an ASGI application with uvicorn inside the running asyncio loop (beside grpc.aio).

No process or loop of its own, no signal handlers (the process's own stay in charge), no
uvicorn logging set-up or access log (the application logs each request itself). The socket is
bound here, so port 0 picks a free port and `start()` returns the bound one.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterator

import uvicorn

from ._http_telemetry import ASGIApp

__all__ = ["HttpServer"]


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

    def __init__(self, app: ASGIApp, host: str, port: int, *, grace_s: float = 10.0) -> None:
        self._app = app
        self._host = host
        self._port = port
        self._grace_s = grace_s
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
