"""Tests of scopa.app._botqueue: bot moves bounded per replica, the rest waiting or deferred."""

from __future__ import annotations

import asyncio

import pytest

from scopa.app._botqueue import BotQueue, BotQueueFull


async def test_moves_beyond_the_slots_wait_and_beyond_the_line_are_deferred() -> None:
    reports: list[tuple[str, int]] = []
    queue = BotQueue(running=1, waiting=1, report=lambda kind, delta: reports.append((kind, delta)))
    release = asyncio.Event()
    order: list[str] = []

    async def move(name: str) -> None:
        async with queue.slot():
            order.append(name)
            await release.wait()

    first = asyncio.create_task(move("first"))
    await asyncio.sleep(0)
    second = asyncio.create_task(move("second"))
    await asyncio.sleep(0)
    assert (order, queue.waiting) == (["first"], 1)
    with pytest.raises(BotQueueFull):
        await move("third")
    release.set()
    await asyncio.gather(first, second)
    assert order == ["first", "second"] and queue.waiting == 0
    totals: dict[str, int] = {}
    for kind, delta in reports:
        totals[kind] = totals.get(kind, 0) + delta
    assert totals == {"running": 0, "waiting": 0, "deferred": 1}
    assert ("running", 1) in reports and ("waiting", 1) in reports


async def test_a_line_of_zero_defers_whatever_finds_the_slots_busy() -> None:
    queue = BotQueue(running=2, waiting=0)
    entered = asyncio.Event()
    release = asyncio.Event()

    async def hold() -> None:
        async with queue.slot():
            entered.set()
            await release.wait()

    holders = [asyncio.create_task(hold()) for _ in range(2)]
    await entered.wait()
    await asyncio.sleep(0)
    with pytest.raises(BotQueueFull):
        async with queue.slot():
            pass
    release.set()
    await asyncio.gather(*holders)
    async with queue.slot():  # free again
        pass


async def test_a_failed_move_gives_its_slot_back() -> None:
    queue = BotQueue(running=1, waiting=0)
    with pytest.raises(RuntimeError):
        async with queue.slot():
            raise RuntimeError("bot fault")
    async with queue.slot():
        pass
