"""Fixtures of the fault suite: a redis-server of the test's own, and server replicas on it."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator, Mapping

import pytest
import redis
from support.redis_server import RedisServer, start_redis_server, stop_redis_server
from support.server_process import ServerProcess, start_server, stop_server

StartServers = Callable[..., list[ServerProcess]]


@pytest.fixture
def own_redis() -> Iterator[list[RedisServer]]:
    """A fresh redis-server for this test only, in a one-item list (a restart replaces it)."""
    holder = [start_redis_server()]
    try:
        yield holder
    finally:
        server = holder[0]
        if server.process.poll() is None:
            os.kill(server.process.pid, signal.SIGCONT)
        stop_redis_server(server)


@pytest.fixture
def admin(own_redis: list[RedisServer]) -> Iterator[redis.Redis[bytes]]:
    """A plain client of the test's redis-server."""
    client = redis.Redis(host=own_redis[0].host, port=own_redis[0].port, socket_timeout=10)
    yield client
    client.close()


@pytest.fixture
def start_servers(own_redis: list[RedisServer]) -> Iterator[StartServers]:
    """Start ``n`` replicas on the test's redis-server (extra environment as keywords)."""
    started: list[ServerProcess] = []

    def start(n: int = 1, **env: str) -> list[ServerProcess]:
        extra: Mapping[str, str] = {"SCOPA_REDIS_TIMEOUT_S": "1", **env}
        for _ in range(n):
            started.append(start_server(own_redis[0].url, env=extra))
        return started[-n:]

    yield start
    for server in started:
        stop_server(server)
