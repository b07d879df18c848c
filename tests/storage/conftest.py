"""Fixtures of the storage suite: every contract test runs against both backends."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator, Iterator

import pytest
from redis.asyncio import Redis
from support.fake_clock import FakeClock
from support.redis_cluster import RedisCluster
from support.redis_sentinel import RedisSentinel
from support.redis_server import RedisServer, start_redis_server, stop_redis_server
from support.redis_tls import RedisTls

from scopa.storage import GameStore, MemoryStore, RedisClusterStore, RedisStore, open_store
from storage.backends import Backend


@pytest.fixture
def own_server() -> Iterator[list[RedisServer]]:
    """A redis-server of this test only (paused, filled or restarted by it)."""
    holder = [start_redis_server()]
    yield holder
    if holder[0].process.poll() is None:
        os.kill(holder[0].process.pid, signal.SIGCONT)
    stop_redis_server(holder[0])


@pytest.fixture
def clock() -> FakeClock:
    """A fresh fake clock."""
    return FakeClock()


@pytest.fixture
async def memory_store(clock: FakeClock) -> AsyncIterator[MemoryStore]:
    """An embedded store driven by the fake clock."""
    store = MemoryStore(clock=clock)
    yield store
    await store.close()


@pytest.fixture
async def redis_admin(redis_url: str) -> AsyncIterator[Redis[bytes]]:
    """A plain client on the throwaway server for inspecting keys; flushes it before (the
    session's server also holds what other modules' servers wrote, such as public games) and
    afterwards."""
    client: Redis[bytes] = Redis.from_url(redis_url)
    await client.flushdb()
    yield client
    await client.flushdb()
    await client.connection_pool.disconnect()


@pytest.fixture
async def redis_store(redis_url: str, redis_admin: Redis[bytes]) -> AsyncIterator[RedisStore]:
    """A Redis store on the session's throwaway server."""
    store = RedisStore.from_url(redis_url)
    yield store
    await store.close()


async def _flush(urls: list[str]) -> None:
    for url in urls:
        client: Redis[bytes] = Redis.from_url(url)
        await client.flushall()
        await client.connection_pool.disconnect()


@pytest.fixture
async def cluster_store(redis_cluster: RedisCluster) -> AsyncIterator[GameStore]:
    """A store on the session's Redis Cluster (``redis+cluster://``); flushes every primary."""
    store = open_store(redis_cluster.url)
    assert isinstance(store, RedisClusterStore)
    yield store
    await store.close()
    await _flush([f"redis://{redis_cluster.host}:{port}" for port in redis_cluster.ports])


@pytest.fixture
async def sentinel_store(redis_sentinel: RedisSentinel) -> AsyncIterator[GameStore]:
    """A store on the master behind the session's sentinel (``redis+sentinel://``)."""
    store = open_store(redis_sentinel.url)
    yield store
    await store.close()
    await _flush([redis_sentinel.primary.url])


@pytest.fixture
async def tls_store(redis_tls: RedisTls) -> AsyncIterator[GameStore]:
    """A store on the TLS-only server (``rediss://``), pub/sub link included."""
    store = open_store(redis_tls.url)
    yield store
    await store.close()
    client: Redis[bytes] = Redis.from_url(redis_tls.url)
    await client.flushall()
    await client.connection_pool.disconnect()


@pytest.fixture(params=["memory", "redis", "cluster", "sentinel", "tls"])
def backend(request: pytest.FixtureRequest, clock: FakeClock) -> Iterator[Backend]:
    """Each backend in turn; ``advance`` moves the fake clock or really sleeps on Redis."""
    if request.param == "memory":
        store: GameStore = request.getfixturevalue("memory_store")

        async def tick(seconds: float) -> None:
            clock.advance(seconds)

        yield Backend("memory", store, tick)
    else:
        store = request.getfixturevalue(f"{request.param}_store")
        yield Backend(request.param, store, asyncio.sleep)
