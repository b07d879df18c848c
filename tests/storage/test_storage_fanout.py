"""Tests of the bounded version queue behind embedded subscriptions."""

from __future__ import annotations

import asyncio

import pytest

from scopa.storage._fanout import VersionQueue

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_queue_drops_oldest_when_full() -> None:
    """Putting into a full queue discards the oldest version instead of blocking."""
    queue = VersionQueue(maxsize=3)
    for version in range(1, 6):
        queue.put(version)
    queue.close()
    assert [v async for v in queue] == [4, 5]


async def test_close_wakes_a_waiting_reader() -> None:
    """A reader blocked on an empty queue stops iterating when the queue is closed."""
    queue = VersionQueue(maxsize=4)
    reader = asyncio.create_task(anext(queue, None))
    await asyncio.sleep(0)
    queue.close()
    assert await asyncio.wait_for(reader, timeout=1.0) is None


async def test_closed_queue_ignores_puts_and_stays_closed() -> None:
    """After close, new versions are ignored and every further read ends at once."""
    queue = VersionQueue(maxsize=4)
    queue.put(1)
    queue.close()
    queue.put(2)
    assert [v async for v in queue] == [1]
    assert [v async for v in queue] == []
