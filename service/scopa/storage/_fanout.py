"""In-process fan-out of version notifications to asyncio queues."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

_CLOSED = -1


class VersionQueue:
    """A bounded queue of versions that drops the oldest entry instead of blocking the writer."""

    def __init__(self, maxsize: int) -> None:
        self._queue: asyncio.Queue[int] = asyncio.Queue(maxsize=maxsize)
        self._closed = False

    def put(self, version: int) -> None:
        """Enqueue ``version``, discarding the oldest pending one when full."""
        if self._closed:
            return
        if self._queue.full():
            self._queue.get_nowait()
        self._queue.put_nowait(version)

    def close(self) -> None:
        """End the stream; a waiting reader stops after the pending versions."""
        self.put(_CLOSED)
        self._closed = True

    def __aiter__(self) -> AsyncIterator[int]:
        return self

    async def __anext__(self) -> int:
        version = await self._queue.get()
        if version == _CLOSED:
            self._queue.put_nowait(_CLOSED)
            raise StopAsyncIteration
        return version
