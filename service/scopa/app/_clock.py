"""Turn clocks: the time deadlines are measured in, and what a timeout does.

Deadlines are milliseconds since the epoch by the game store's clock (Redis TIME of one fixed
node, ``GameStore.time``), never by a replica's own clock: each replica keeps the offset between
its wall clock and the store's, measured at every sweep from one round trip. Two replicas then
disagree about "now" by at most half of each one's round trip to that node when it measured
(sub-millisecond to a few ms on a LAN; a sample whose round trip exceeds ``MAX_SYNC_RTT_S`` is
not used) plus their wall clocks' drift over one sweep interval.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from enum import StrEnum
from typing import Final, Protocol

__all__ = ["MAX_SYNC_RTT_S", "StoreClock", "TimeoutAction"]

MAX_SYNC_RTT_S: Final = 0.25
"""A clock sample whose round trip took longer is dropped (the offset keeps its last value)."""


class TimeoutAction(StrEnum):
    """What happens when a seat's turn clock runs out."""

    BOT = "bot"
    """A bot (``CoreSettings.timeout_bot``) plays the seat's turn from the seat's view."""
    FORFEIT = "forfeit"
    """As BOT, except that the seat's ``forfeit_after``-th timeout resigns the seat."""


class _TimeSource(Protocol):
    async def time(self) -> float: ...


class StoreClock:
    """The store's clock, read locally: this host's wall clock plus the measured offset."""

    def __init__(self, wall: Callable[[], float] = time.time) -> None:
        self._wall = wall
        self.offset_s = 0.0
        """Store time minus local wall time, from the last good sample."""
        self.error_s: float | None = None
        """Half the round trip of the last good sample (None until one was taken)."""

    def now_ms(self) -> int:
        """Milliseconds since the epoch by the store's clock."""
        return int((self._wall() + self.offset_s) * 1000)

    async def sync(self, store: _TimeSource) -> bool:
        """Measure the offset to ``store``'s clock; False when the sample was too slow."""
        before = self._wall()
        store_now = await store.time()
        after = self._wall()
        rtt = after - before
        if rtt > MAX_SYNC_RTT_S:
            return False
        self.offset_s = store_now - (before + after) / 2
        self.error_s = rtt / 2
        return True
