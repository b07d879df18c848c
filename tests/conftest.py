"""Fixtures shared by every test suite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.redis_server import RedisServer, running_redis_server


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A throwaway redis-server (free port, no persistence) for the whole session."""
    with running_redis_server() as server:
        yield server


@pytest.fixture(scope="session")
def redis_url(redis_server: RedisServer) -> str:
    """The redis:// URL of the session's throwaway redis-server."""
    return redis_server.url
