"""Bounds for WatchGame streams: a per-client cap, and game reads shared between streams.

A replica may hold thousands of streams; they must not cost the players' calls anything. One
shared subscription per replica carries the notifications (see :mod:`scopa.storage`); what is
left is the reads a notification triggers. Streams of the same game at the same version share
ONE read (single flight), and at most ``concurrency`` watch reads run at a time, so a thousand
streams cost a handful of pooled connections at most.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

from ._errors import TooManyWatches

__all__ = ["SharedReads", "WatchCounter"]

_T = TypeVar("_T")


class WatchCounter:
    """Counts open streams per client address and refuses those over ``limit``."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._open: dict[str, int] = {}

    def open_for(self, client: str) -> int:
        """How many streams ``client`` holds now."""
        return self._open.get(client, 0)

    @contextmanager
    def admit(self, client: str) -> Iterator[None]:
        """Hold one stream slot of ``client`` for the block; TooManyWatches when none is left.

        An empty ``client`` (an in-process caller with no address) is not counted.
        """
        if not client:
            yield
            return
        if self._open.get(client, 0) >= self._limit:
            raise TooManyWatches(
                f"at most {self._limit} WatchGame streams per client; close one first"
            )
        self._open[client] = self._open.get(client, 0) + 1
        try:
            yield
        finally:
            left = self._open[client] - 1
            if left:
                self._open[client] = left
            else:
                del self._open[client]


class _Flight(Generic[_T]):
    __slots__ = ("started", "task")

    def __init__(self, started: float, task: asyncio.Task[_T]) -> None:
        self.started = started
        self.task = task


class SharedReads(Generic[_T]):
    """Single-flight reads keyed by anything hashable, bounded by a semaphore.

    A caller that learnt at time ``since`` that the data changed only joins a read started at
    or after ``since``, so a shared result is never older than what the caller was told.
    """

    def __init__(self, concurrency: int) -> None:
        self._semaphore = asyncio.Semaphore(concurrency)
        self._flights: dict[object, _Flight[_T]] = {}

    async def read(self, key: object, since: float, fetch: Callable[[], Awaitable[_T]]) -> _T:
        """The result of ``fetch()`` for ``key``, shared with concurrent callers."""
        flight = self._flights.get(key)
        if flight is None or flight.started < since or flight.task.done():
            loop = asyncio.get_running_loop()
            task = loop.create_task(self._bounded(fetch))
            flight = _Flight(loop.time(), task)
            self._flights[key] = flight
            task.add_done_callback(lambda _: self._forget(key, flight))
        return await asyncio.shield(flight.task)

    async def _bounded(self, fetch: Callable[[], Awaitable[_T]]) -> _T:
        async with self._semaphore:
            return await fetch()

    def _forget(self, key: object, flight: _Flight[_T]) -> None:
        if self._flights.get(key) is flight:
            del self._flights[key]
        if not flight.task.cancelled():
            flight.task.exception()  # mark retrieved: every waiter may be gone
