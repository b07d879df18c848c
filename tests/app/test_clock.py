"""Tests of the store clock (scopa.app._clock)."""

from __future__ import annotations

import pytest

from scopa.app import MAX_SYNC_RTT_S, StoreClock


class Ticks:
    """A wall clock that moves by ``step`` each time it is read."""

    def __init__(self, start: float, step: float) -> None:
        self.now, self.step = start, step

    def __call__(self) -> float:
        value = self.now
        self.now += self.step
        return value


class Store:
    """A store whose clock is ``skew`` seconds ahead of the host's."""

    def __init__(self, wall: Ticks, skew: float) -> None:
        self.wall, self.skew = wall, skew

    async def time(self) -> float:
        return self.wall.now + self.skew


async def test_sync_reads_the_store_clock_through_the_offset() -> None:
    """After a sync, now_ms is the store's time, within half the round trip."""
    wall = Ticks(1000.0, 0.002)
    clock = StoreClock(wall)
    assert await clock.sync(Store(wall, 5.0))
    assert clock.error_s == pytest.approx(0.001)
    assert abs(clock.now_ms() - (wall.now + 5.0) * 1000) <= 3


async def test_a_slow_sample_is_not_used() -> None:
    """A sample whose round trip exceeds MAX_SYNC_RTT_S leaves the offset as it was."""
    wall = Ticks(1000.0, MAX_SYNC_RTT_S + 0.1)
    clock = StoreClock(wall)
    assert not await clock.sync(Store(wall, 5.0))
    assert clock.offset_s == 0.0 and clock.error_s is None
