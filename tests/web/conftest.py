"""Fixtures of the HTTP-port suite: a real server process on the session's throwaway Redis.

(The suite is tests/web because a test package named ``http`` would shadow the stdlib's.)
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from support.redis_server import RedisServer
from support.server_process import ServerProcess, start_server, stop_server

ALLOWED_ORIGIN = "https://play.example"
KEEPALIVE_S = 0.5


@pytest.fixture(scope="session")
def http_server(redis_server: RedisServer) -> Iterator[ServerProcess]:
    """One server (stacked decks allowed, one CORS origin, fast SSE keep-alives)."""
    server = start_server(
        redis_server.url,
        env={
            "SCOPA_CORS_ORIGINS": ALLOWED_ORIGIN,
            "SCOPA_SSE_KEEPALIVE_S": str(KEEPALIVE_S),
        },
    )
    try:
        assert server.http_port, server.log_text()
        yield server
    finally:
        stop_server(server)


@pytest.fixture
def client(http_server: ServerProcess) -> Iterator[httpx.Client]:
    """An HTTP/1.1 client on the server's HTTP port."""
    with httpx.Client(base_url=http_server.http_url, timeout=30) as http:
        yield http
