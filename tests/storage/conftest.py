"""Fixtures of the storage suite: every contract test runs against both backends."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest
from redis.asyncio import Redis
from support.fake_clock import FakeClock

from scopa.storage import GameStore, MemoryStore, RedisStore
from storage.backends import Backend


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
    """A plain client on the throwaway server for inspecting keys; flushes it afterwards."""
    client: Redis[bytes] = Redis.from_url(redis_url)
    yield client
    await client.flushdb()
    await client.connection_pool.disconnect()


@pytest.fixture
async def redis_store(redis_url: str, redis_admin: Redis[bytes]) -> AsyncIterator[RedisStore]:
    """A Redis store on the session's throwaway server."""
    store = RedisStore.from_url(redis_url)
    yield store
    await store.close()


@pytest.fixture(params=["memory", "redis"])
def backend(request: pytest.FixtureRequest, clock: FakeClock) -> Iterator[Backend]:
    """Each backend in turn; ``advance`` moves the fake clock or really sleeps on Redis."""
    if request.param == "memory":
        store: GameStore = request.getfixturevalue("memory_store")

        async def tick(seconds: float) -> None:
            clock.advance(seconds)

        yield Backend("memory", store, tick)
    else:
        store = request.getfixturevalue("redis_store")
        yield Backend("redis", store, asyncio.sleep)
