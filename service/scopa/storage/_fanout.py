"""Fan-out of version notifications: bounded per-reader queues behind one shared subscription.

A replica keeps ONE pub/sub link to its backend, whatever the number of readers: the link is
subscribed to a game's channel while at least one reader watches that game, and every message
is copied into the readers' bounded queues. A reader that falls behind loses the oldest
notifications, never blocks the link, and re-reads the log from the last version it sent; after
the link reconnects every reader gets :data:`RESYNC`, because notifications may have been
missed meanwhile.

The link is a small seam (:class:`PubSubLink`): standalone Redis uses SUBSCRIBE / PUBLISH; a
Redis Cluster link would use sharded pub/sub (SSUBSCRIBE / SPUBLISH), one link per shard.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import NamedTuple, Protocol

from scopa._tasks import cancel_until_done
from scopa.storage._errors import StorageUnavailable

_CLOSED = -1
RESYNC = 0
"""A queue entry meaning "some versions may have been missed: re-read from the last one"."""
PRESENCE = -2
"""A queue entry meaning "the game's presence changed" (the notice ``p``; see
:mod:`._presence`): it is no version, and a queue holds at most one pending."""
PRESENCE_NOTICE = b"p"


class VersionQueue:
    """A bounded queue of versions that drops the oldest entry instead of blocking the writer.

    One reader: ``async for`` (:meth:`__anext__`) or :meth:`next_within`, which also wakes
    after a while. Entries wait in a deque; a waiting reader holds one future, which a put
    completes (no ``asyncio.Queue`` and no timeout context per read: a watch stream waits for
    every version of its game)."""

    def __init__(self, maxsize: int, skip: Callable[[int], bool] | None = None) -> None:
        self._entries: deque[int] = deque()
        self._maxsize = maxsize
        self._waiter: asyncio.Future[None] | None = None
        self._skip = skip
        """Versions for which this is true are not queued (see :meth:`Fanout.subscribe`); a
        ``skip`` that raises queues the version (it runs in the writer's task: the shared
        link's, or a commit's on the embedded store, which must not fail for one reader)."""
        self._closed = False
        self._presence = False
        """A PRESENCE entry is pending (another one would say nothing more)."""
        self.presence_at = 0.0
        """When (``time.monotonic``, the loop's clock) the latest PRESENCE was put: a reader
        may share a presence read started after it (every queue of one message has it)."""

    def put(self, version: int) -> None:
        """Enqueue ``version``, discarding the oldest pending one when full."""
        if version > 0 and self._skip is not None and self._skips(version):
            return
        if version == PRESENCE:
            self.presence_at = time.monotonic()
        if self._closed or (version == PRESENCE and self._presence):
            return
        entries = self._entries
        if 0 < self._maxsize <= len(entries) and entries.popleft() == PRESENCE:
            self._presence = False
        self._presence = self._presence or version == PRESENCE
        entries.append(version)
        if self._waiter is not None:
            _wake(self._waiter)

    def _skips(self, version: int) -> bool:
        assert self._skip is not None
        try:
            return self._skip(version)
        except Exception:  # the reader is woken and reads the version itself
            return False

    @property
    def pending(self) -> int:
        """How many entries wait to be read."""
        return len(self._entries)

    def close(self) -> None:
        """End the stream; a waiting reader stops after the pending versions."""
        self.put(_CLOSED)
        self._closed = True

    def __aiter__(self) -> AsyncIterator[int]:
        return self

    async def __anext__(self) -> int:
        while not self._entries:
            await self._wait(None)
        return self._take()

    async def next_within(self, wait_s: float) -> int | None:
        """The next entry, or None when ``wait_s`` seconds pass first; StopAsyncIteration
        once the queue is closed and read."""
        if not self._entries:
            await self._wait(wait_s)
            if not self._entries:
                return None
        return self._take()

    async def _wait(self, wait_s: float | None) -> None:
        """Until an entry is put (or ``wait_s`` passed)."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        self._waiter = waiter
        timer = None if wait_s is None else loop.call_later(wait_s, _wake, waiter)
        try:
            await waiter
        finally:
            self._waiter = None
            if timer is not None:
                timer.cancel()

    def _take(self) -> int:
        version = self._entries.popleft()
        if version == _CLOSED:
            self._entries.appendleft(_CLOSED)
            raise StopAsyncIteration
        if version == PRESENCE:
            self._presence = False
        return version


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


class Message(NamedTuple):
    """One pub/sub message: ``kind`` is "subscribe", "unsubscribe" or "message"."""

    kind: str
    channel: str
    data: bytes


class PubSubLink(Protocol):
    """One pub/sub connection: commands are sent without waiting; replies come as messages."""

    async def subscribe(self, channel: str) -> None:
        """Send a subscription request (confirmed later by a "subscribe" message)."""
        ...

    async def unsubscribe(self, channel: str) -> None:
        """Send an unsubscription request."""
        ...

    async def next_message(self, timeout: float) -> Message | None:
        """The next message, or None after ``timeout`` seconds; raise OSError-like on loss."""
        ...

    async def aclose(self) -> None:
        """Close the connection."""
        ...


LinkFactory = Callable[[], Awaitable[PubSubLink]]


class Fanout:
    """Shares one :class:`PubSubLink` among any number of readers (see the module docstring)."""

    def __init__(
        self,
        connect: LinkFactory,
        *,
        queue_size: int = 8,
        confirm_timeout_s: float = 5.0,
        retry_delays_s: tuple[float, ...] = (0.05, 0.1, 0.25, 0.5, 1.0),
        lost: tuple[type[BaseException], ...] = (OSError,),
    ) -> None:
        self._connect = connect
        self._queue_size = queue_size
        self._confirm_timeout_s = confirm_timeout_s
        self._retry_delays_s = retry_delays_s
        self._lost = lost
        self._queues: dict[str, set[VersionQueue]] = {}
        self._confirmed: set[str] = set()
        self._sent: set[str] = set()
        """Channels subscribed on the current link (confirmed or not)."""
        self._waiters: dict[str, list[asyncio.Future[None]]] = {}
        self._link: PubSubLink | None = None
        self._linked = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self.reconnects = 0
        """How many times the link was re-established (for tests and metrics)."""

    @property
    def channels(self) -> int:
        """How many channels the link is subscribed to (or subscribing to)."""
        return len(self._queues)

    @property
    def readers(self) -> int:
        """How many readers are attached."""
        return sum(len(q) for q in self._queues.values())

    @asynccontextmanager
    async def subscribe(
        self, channel: str, skip: Callable[[int], bool] | None = None
    ) -> AsyncIterator[VersionQueue]:
        """Yield the versions published on ``channel`` while the block runs (once confirmed),
        but those ``skip`` is true for (asked as each is published: the reader has them by
        other means, and is not woken for them)."""
        if self._closed:
            raise StorageUnavailable("the store is closed")
        self._start()
        queue = VersionQueue(self._queue_size, skip)
        queues = self._queues.setdefault(channel, set())
        queues.add(queue)
        try:
            await self._confirm(channel)
            yield queue
        finally:
            self._detach(channel, queue)

    async def close(self) -> None:
        """End every reader and close the link."""
        self._closed = True
        for queues in self._queues.values():
            for queue in queues:
                queue.close()
        self._queues.clear()
        if self._task is not None:
            await cancel_until_done(self._task)
        await self._drop_link()

    async def reconnect(self) -> None:
        """Drop the link and open a new one (e.g. the backend's primary moved): readers get
        :data:`RESYNC` once it is up. Nothing happens while no reader is attached."""
        if self._closed or self._task is None or self._task.done():
            return
        await cancel_until_done(self._task)
        await self._drop_link()
        self._start()

    # -- internals --

    def _start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name="scopa-storage-fanout"
            )

    async def _confirm(self, channel: str) -> None:
        if channel in self._confirmed:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        waiters = self._waiters.setdefault(channel, [])
        waiters.append(waiter)
        try:
            async with asyncio.timeout(self._confirm_timeout_s):
                if len(waiters) == 1:
                    await self._linked.wait()
                    await self._send(channel)
                await waiter
        except TimeoutError:
            raise StorageUnavailable("no subscription confirmation") from None
        finally:
            if waiter in waiters:
                waiters.remove(waiter)
            if not waiters and self._waiters.get(channel) is waiters:
                del self._waiters[channel]

    def _detach(self, channel: str, queue: VersionQueue) -> None:
        queues = self._queues.get(channel)
        if queues is None:
            return
        queues.discard(queue)
        if not queues:
            del self._queues[channel]
            self._confirmed.discard(channel)
            self._sent.discard(channel)
            if self._link is not None:
                link = self._link
                asyncio.get_running_loop().create_task(self._unsubscribe(link, channel))

    async def _unsubscribe(self, link: PubSubLink, channel: str) -> None:
        if channel in self._queues or link is not self._link:
            return
        with contextlib.suppress(*self._lost):
            await link.unsubscribe(channel)

    async def _send(self, channel: str) -> None:
        link = self._link
        if link is None or channel in self._sent:
            return  # (re)connecting subscribes every channel that has readers
        self._sent.add(channel)
        with contextlib.suppress(*self._lost):  # the reader loop sees a loss and reconnects
            await link.subscribe(channel)

    async def _run(self) -> None:
        attempt = 0
        while not self._closed:
            try:
                await self._open()
                attempt = 0
                await self._pump()
            except self._lost:
                pass
            await self._drop_link()
            delay = self._retry_delays_s[min(attempt, len(self._retry_delays_s) - 1)]
            attempt += 1
            await asyncio.sleep(delay)

    async def _open(self) -> None:
        link = await self._connect()
        self._link = link
        self._confirmed.clear()
        self._sent = set(self._queues)
        for channel in list(self._sent):
            await link.subscribe(channel)
        self._linked.set()
        if self.reconnects:
            for queues in self._queues.values():
                for queue in queues:
                    queue.put(RESYNC)
        self.reconnects += 1

    async def _pump(self) -> None:
        assert self._link is not None
        link = self._link
        while not self._closed:
            message = await link.next_message(1.0)
            if message is not None:
                self._dispatch(message)

    def _dispatch(self, message: Message) -> None:
        if message.kind == "message":
            try:
                version = PRESENCE if message.data == PRESENCE_NOTICE else int(message.data)
            except ValueError:
                return
            for queue in self._queues.get(message.channel, ()):
                queue.put(version)
        elif message.kind == "subscribe":
            if message.channel in self._queues:
                self._confirmed.add(message.channel)
            for waiter in self._waiters.get(message.channel, ()):
                if not waiter.done():
                    waiter.set_result(None)

    async def _drop_link(self) -> None:
        self._linked.clear()
        link, self._link = self._link, None
        self._confirmed.clear()
        self._sent.clear()
        if link is not None:
            with contextlib.suppress(*self._lost):
                await link.aclose()
