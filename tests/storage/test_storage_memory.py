"""Tests specific to the embedded store: closing, slow subscribers, expiry by the clock."""

from __future__ import annotations

import asyncio

import pytest
from support.fake_clock import FakeClock

from scopa.storage import GameNotFound, MemoryStore, StorageError

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_close_ends_subscriptions_and_refuses_calls(memory_store: MemoryStore) -> None:
    """Closing the store finishes open subscription streams and makes ping fail."""
    await memory_store.create("g1", b"s", b"m", [], 60)
    async with memory_store.subscribe("g1") as versions:
        await memory_store.commit("g1", 1, b"s", b"m", [], 60)
        await memory_store.close()
        received = [v async for v in versions]
    assert received == [2]
    with pytest.raises(StorageError):
        await memory_store.ping()


async def test_slow_subscriber_keeps_latest_versions() -> None:
    """A subscriber that falls behind loses the oldest notifications, never the newest."""
    store = MemoryStore(queue_size=2)
    await store.create("g1", b"s", b"m", [], 60)
    async with store.subscribe("g1") as versions:
        for version in range(1, 5):
            await store.commit("g1", version, b"s", b"m", [], 60)
        received = [await anext(versions), await anext(versions)]
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(anext(versions), timeout=0.05)
    assert received == [4, 5]


async def test_expiry_is_exact_to_the_clock(memory_store: MemoryStore, clock: FakeClock) -> None:
    """A game lives until just before created_at + ttl and is gone at that instant."""
    await memory_store.create("g1", b"s", b"m", [], 10)
    clock.advance(9.999)
    assert (await memory_store.load("g1")).version == 1
    clock.advance(0.001)
    with pytest.raises(GameNotFound):
        await memory_store.load("g1")


async def test_other_games_writes_do_not_extend_ttl(
    memory_store: MemoryStore, clock: FakeClock
) -> None:
    """Writing one game leaves another game's expiry alone."""
    await memory_store.create("old", b"s", b"m", [], 5)
    clock.advance(4)
    await memory_store.create("new", b"s", b"m", [], 5)
    clock.advance(2)
    with pytest.raises(GameNotFound):
        await memory_store.commit("old", 1, b"s", b"m", [], 5)
    assert (await memory_store.load("new")).version == 1
