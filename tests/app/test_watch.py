"""Tests of scopa.app._watch: the per-client stream cap and shared, bounded watch reads."""

from __future__ import annotations

import asyncio

import pytest

from scopa.app import TooManyWatches
from scopa.app._watch import SharedReads, WatchCounter


def test_counter_refuses_streams_over_the_limit_and_frees_slots() -> None:
    """A client gets `limit` streams, the next is refused, and a closed one frees its slot."""
    counter = WatchCounter(2)
    with counter.admit("10.0.0.1"), counter.admit("10.0.0.1"):
        with pytest.raises(TooManyWatches), counter.admit("10.0.0.1"):
            pass
        with counter.admit("10.0.0.2"):
            assert counter.open_for("10.0.0.2") == 1
        assert counter.open_for("10.0.0.1") == 2
    assert counter.open_for("10.0.0.1") == 0
    with counter.admit("10.0.0.1"):
        pass


def test_counter_does_not_count_callers_without_an_address() -> None:
    """An empty client (in-process caller) is never refused."""
    counter = WatchCounter(1)
    with counter.admit(""), counter.admit(""):
        assert counter.open_for("") == 0


async def test_concurrent_reads_of_one_key_share_one_fetch() -> None:
    """A hundred concurrent readers of one key cause a single fetch."""
    reads: SharedReads[int] = SharedReads(4)
    calls = 0

    async def fetch() -> int:
        nonlocal calls
        calls += 1
        await asyncio.sleep(0.01)
        return 42

    now = asyncio.get_running_loop().time()
    results = await asyncio.gather(*(reads.read("k", now, fetch) for _ in range(100)))
    assert results == [42] * 100
    assert calls == 1


async def test_a_reader_told_of_a_change_never_joins_an_older_read() -> None:
    """A read started before the caller's notice is not shared with it: it fetches again."""
    reads: SharedReads[int] = SharedReads(4)
    gate = asyncio.Event()
    values = iter([1, 2])

    async def fetch() -> int:
        await gate.wait()
        return next(values)

    loop = asyncio.get_running_loop()
    early = asyncio.create_task(reads.read("k", loop.time(), fetch))
    await asyncio.sleep(0.01)
    late = asyncio.create_task(reads.read("k", loop.time() + 0.001, fetch))
    await asyncio.sleep(0.01)
    gate.set()
    assert sorted([await early, await late]) == [1, 2]


async def test_reads_are_bounded_by_the_semaphore() -> None:
    """At most `concurrency` fetches of different keys run at once."""
    reads: SharedReads[int] = SharedReads(3)
    running = peak = 0

    async def fetch() -> int:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.01)
        running -= 1
        return 0

    now = asyncio.get_running_loop().time()
    await asyncio.gather(*(reads.read(i, now, fetch) for i in range(20)))
    assert peak == 3


async def test_a_failed_fetch_reaches_every_waiter() -> None:
    """The fetch's exception is raised to all callers sharing it."""
    reads: SharedReads[int] = SharedReads(2)

    async def fetch() -> int:
        await asyncio.sleep(0.01)
        raise LookupError("gone")

    now = asyncio.get_running_loop().time()
    results = await asyncio.gather(
        *(reads.read("k", now, fetch) for _ in range(5)), return_exceptions=True
    )
    assert all(isinstance(r, LookupError) for r in results)
