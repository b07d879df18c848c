"""Bounded bot work per replica: at most ``running`` bot moves are chosen at once, at most
``waiting`` more wait for a slot, and a bot turn beyond those is deferred (left due: the
sweeper or the game's next request takes it once there is room). Bot seats then cannot turn
a replica into a CPU amplifier: however many bot games are created, the searches a replica
runs are bounded, and the players' own calls keep their share of the cores.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

__all__ = ["BotQueue", "BotQueueFull"]


class BotQueueFull(Exception):
    """Every bot slot is busy and the waiting line is full: the turn is deferred."""


class BotQueue:
    """The bot moves one replica chooses at once, and those waiting for a slot.

    ``report(kind, delta)`` is told of each change: ``running`` and ``waiting`` (+1/-1),
    ``deferred`` (+1 per turn turned away).
    """

    def __init__(
        self, running: int, waiting: int, report: Callable[[str, int], None] | None = None
    ) -> None:
        self._slots = asyncio.Semaphore(running)
        self._waiting_limit = waiting
        self._waiting = 0
        self._report = report or (lambda kind, delta: None)

    @property
    def waiting(self) -> int:
        """Bot turns waiting for a slot now."""
        return self._waiting

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one bot slot for the block (waiting for one if need be); BotQueueFull at once
        when every slot is busy and ``waiting`` turns already wait."""
        if self._slots.locked():
            if self._waiting >= self._waiting_limit:
                self._report("deferred", 1)
                raise BotQueueFull(f"{self._waiting} bot turns already wait for a slot")
            self._waiting += 1
            self._report("waiting", 1)
            try:
                await self._slots.acquire()
            finally:
                self._waiting -= 1
                self._report("waiting", -1)
        else:
            await self._slots.acquire()
        self._report("running", 1)
        try:
            yield
        finally:
            self._report("running", -1)
            self._slots.release()
