"""Tests of the fan-out: bounded version queues and one shared pub/sub link per store."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

import pytest

from scopa.storage import StorageUnavailable
from scopa.storage._fanout import PRESENCE, RESYNC, Fanout, Message, VersionQueue

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_queue_drops_oldest_when_full() -> None:
    """Putting into a full queue discards the oldest version instead of blocking."""
    queue = VersionQueue(maxsize=3)
    for version in range(1, 6):
        queue.put(version)
    queue.close()
    assert [v async for v in queue] == [4, 5]


async def test_queue_leaves_out_the_versions_skip_is_true_for() -> None:
    """``skip`` is asked of versions only (not of presence or resync notices, nor the close)."""
    asked: list[int] = []

    def skip(version: int) -> bool:
        asked.append(version)
        return version % 2 == 0

    queue = VersionQueue(maxsize=8, skip=skip)
    for entry in (1, 2, PRESENCE, 3, RESYNC, 4):
        queue.put(entry)
    assert queue.pending == 4
    queue.close()
    assert [v async for v in queue] == [1, PRESENCE, 3, RESYNC]
    assert asked == [1, 2, 3, 4]


async def test_a_skip_that_raises_queues_the_version() -> None:
    """``skip`` runs in the writer's task (the shared link's, an embedded commit's): when it
    raises, the version is queued and the writer goes on."""

    def skip(version: int) -> bool:
        raise ValueError(version)

    queue = VersionQueue(maxsize=4, skip=skip)
    queue.put(1)
    queue.close()
    assert [v async for v in queue] == [1]


async def test_close_wakes_a_waiting_reader() -> None:
    """A reader blocked on an empty queue stops iterating when the queue is closed."""
    queue = VersionQueue(maxsize=4)
    reader = asyncio.create_task(anext(queue, None))
    await asyncio.sleep(0)
    queue.close()
    assert await asyncio.wait_for(reader, timeout=1.0) is None


async def test_a_bounded_wait_ends_empty_handed_when_nothing_comes() -> None:
    """``next_within`` returns None once its wait is over with nothing put, and the queue
    still works after it."""
    queue = VersionQueue(maxsize=4)
    loop = asyncio.get_running_loop()
    started = loop.time()
    assert await queue.next_within(0.05) is None
    assert loop.time() - started >= 0.04
    queue.put(3)
    assert await queue.next_within(0.05) == 3


async def test_a_put_wakes_a_bounded_wait_at_once() -> None:
    """A version put while ``next_within`` waits is returned without waiting out its time."""
    queue = VersionQueue(maxsize=4)
    reader = asyncio.create_task(queue.next_within(30))
    await asyncio.sleep(0)
    queue.put(7)
    assert await asyncio.wait_for(reader, timeout=1.0) == 7


async def test_a_bounded_wait_on_a_closed_queue_stops_after_its_versions() -> None:
    queue = VersionQueue(maxsize=4)
    queue.put(1)
    queue.close()
    assert await queue.next_within(1) == 1
    with pytest.raises(StopAsyncIteration):
        await queue.next_within(1)


async def test_a_queue_of_size_zero_is_unbounded() -> None:
    """As asyncio.Queue's: maxsize 0 drops nothing."""
    queue = VersionQueue(maxsize=0)
    for version in range(1, 100):
        queue.put(version)
    queue.close()
    assert [v async for v in queue] == list(range(1, 100))


async def test_closed_queue_ignores_puts_and_stays_closed() -> None:
    """After close, new versions are ignored and every further read ends at once."""
    queue = VersionQueue(maxsize=4)
    queue.put(1)
    queue.close()
    queue.put(2)
    assert [v async for v in queue] == [1]
    assert [v async for v in queue] == []


async def test_queue_holds_at_most_one_pending_presence_notice() -> None:
    """Presence notices between versions coalesce into one; a read one may come again."""
    queue = VersionQueue(maxsize=4)
    for entry in (PRESENCE, 1, PRESENCE, 2, PRESENCE):
        queue.put(entry)
    assert [await anext(queue), await anext(queue), await anext(queue)] == [PRESENCE, 1, 2]
    queue.put(PRESENCE)
    queue.close()
    assert [v async for v in queue] == [PRESENCE]


async def test_a_presence_notice_is_stamped_with_its_latest_arrival() -> None:
    """A coalesced presence notice carries the time of the latest one (a reader's presence
    read must start after it)."""
    queue = VersionQueue(maxsize=4)
    queue.put(PRESENCE)
    first = queue.presence_at
    await asyncio.sleep(0.01)
    queue.put(PRESENCE)
    assert queue.presence_at > first > 0
    assert await anext(queue) == PRESENCE


async def test_a_dropped_presence_notice_can_be_queued_again() -> None:
    """A full queue that dropped its pending presence notice takes the next one."""
    queue = VersionQueue(maxsize=2)
    for entry in (PRESENCE, 1, 2, PRESENCE):
        queue.put(entry)
    queue.close()
    assert [v async for v in queue] == [PRESENCE]


class FakeLink:
    """An in-memory PubSubLink: records commands, confirms subscriptions, can be broken."""

    def __init__(self, hub: FakeHub) -> None:
        self.hub = hub
        self.inbox: asyncio.Queue[Message | BaseException] = asyncio.Queue()
        self.subscribed: set[str] = set()
        self.commands: list[tuple[str, str]] = []

    async def subscribe(self, channel: str) -> None:
        self.commands.append(("subscribe", channel))
        self.subscribed.add(channel)
        self.inbox.put_nowait(Message("subscribe", channel, b"1"))

    async def unsubscribe(self, channel: str) -> None:
        self.commands.append(("unsubscribe", channel))
        self.subscribed.discard(channel)
        self.inbox.put_nowait(Message("unsubscribe", channel, b"0"))

    async def next_message(self, timeout: float) -> Message | None:
        try:
            item = await asyncio.wait_for(self.inbox.get(), timeout)
        except TimeoutError:
            return None
        if isinstance(item, BaseException):
            raise item
        return item

    async def aclose(self) -> None:
        self.hub.closed += 1


class FakeHub:
    """Hands out FakeLinks and publishes to whichever are subscribed."""

    def __init__(self) -> None:
        self.links: list[FakeLink] = []
        self.closed = 0

    async def connect(self) -> FakeLink:
        link = FakeLink(self)
        self.links.append(link)
        return link

    def publish(self, channel: str, version: int) -> None:
        for link in self.links:
            if channel in link.subscribed:
                link.inbox.put_nowait(Message("message", channel, str(version).encode()))


async def _until(predicate: Callable[[], bool]) -> None:
    async with asyncio.timeout(2.0):
        while not predicate():
            await asyncio.sleep(0.005)


async def test_many_readers_share_one_link_and_one_subscription() -> None:
    """A hundred readers of two channels cost one link and one SUBSCRIBE per channel."""
    hub = FakeHub()
    fanout = Fanout(hub.connect)
    async with contextlib.AsyncExitStack() as stack:
        readers = [
            await stack.enter_async_context(fanout.subscribe(f"ch{i % 2}")) for i in range(100)
        ]
        assert len(hub.links) == 1
        assert sorted(hub.links[0].commands) == [("subscribe", "ch0"), ("subscribe", "ch1")]
        hub.publish("ch1", 7)
        got = [await asyncio.wait_for(anext(aiter(r)), 1.0) for r in readers[1::2]]
        assert got == [7] * 50
        assert fanout.readers == 100
    await _until(lambda: ("unsubscribe", "ch1") in hub.links[0].commands)
    assert fanout.channels == 0
    await fanout.close()


async def test_lost_link_reconnects_resubscribes_and_resyncs_readers() -> None:
    """After the link is lost, a new one subscribes again and every reader gets RESYNC."""
    hub = FakeHub()
    fanout = Fanout(hub.connect, retry_delays_s=(0.01,), lost=(OSError,))
    async with fanout.subscribe("g") as versions:
        hub.links[0].inbox.put_nowait(ConnectionResetError("gone"))
        assert await asyncio.wait_for(anext(aiter(versions)), 1.0) == RESYNC
        assert hub.links[1].subscribed == {"g"}
        hub.publish("g", 3)
        assert await asyncio.wait_for(anext(aiter(versions)), 1.0) == 3
    await fanout.close()
    assert hub.closed == 2


async def test_slow_reader_keeps_a_bounded_queue() -> None:
    """A reader that never reads holds at most queue_size versions, the latest ones."""
    hub = FakeHub()
    fanout = Fanout(hub.connect, queue_size=4)
    async with fanout.subscribe("g") as versions:
        for version in range(1, 101):
            hub.publish("g", version)
        await _until(hub.links[0].inbox.empty)
        await asyncio.sleep(0.01)
        got = [await asyncio.wait_for(anext(aiter(versions)), 1.0) for _ in range(4)]
        assert got == [97, 98, 99, 100]
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(anext(aiter(versions)), 0.05)
    await fanout.close()


async def test_unconfirmed_subscription_is_unavailable() -> None:
    """A link that never confirms the subscription makes subscribe raise StorageUnavailable."""

    class Mute(FakeLink):
        async def subscribe(self, channel: str) -> None:
            self.subscribed.add(channel)

    async def connect() -> FakeLink:
        return Mute(FakeHub())

    fanout = Fanout(connect, confirm_timeout_s=0.05)
    with pytest.raises(StorageUnavailable):
        async with fanout.subscribe("g"):
            pass
    await fanout.close()


class Stubborn(FakeLink):
    """A link whose read, once armed, swallows one cancellation (as a timed read can on 3.11)."""

    armed = False
    swallowed = 0

    async def next_message(self, timeout: float) -> Message | None:
        if Stubborn.armed and not Stubborn.swallowed:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                Stubborn.swallowed += 1
                return None
        return await super().next_message(timeout)


@pytest.mark.parametrize("ending", ["reconnect", "close"])
async def test_reader_task_that_swallowed_a_cancellation_still_ends(ending: str) -> None:
    """reconnect() and close() cancel the reader task again until it ends, without hanging."""
    hub = FakeHub()
    Stubborn.armed, Stubborn.swallowed = False, 0

    async def connect() -> FakeLink:
        link = Stubborn(hub)
        hub.links.append(link)
        return link

    fanout = Fanout(connect, retry_delays_s=(0.01,))
    async with fanout.subscribe("g") as versions:
        Stubborn.armed = True
        hub.links[0].inbox.put_nowait(Message("message", "g", b"1"))  # the read moves on
        assert await asyncio.wait_for(anext(aiter(versions)), 1.0) == 1
        await asyncio.sleep(0.01)  # the reader task is inside its armed read
        ended = asyncio.create_task(getattr(fanout, ending)())
        done, _ = await asyncio.wait({ended}, timeout=5)  # no cancellation: a hang stays a hang
        if not done:
            fanout._closed = True  # let a hung call finish, so the failure leaves nothing behind
            assert fanout._task is not None
            fanout._task.cancel()
            await ended
        assert ended in done, f"{ending}() hung on a reader task that swallowed a cancellation"
        assert Stubborn.swallowed == 1
        if ending == "reconnect":
            assert await asyncio.wait_for(anext(aiter(versions)), 1.0) == RESYNC
    await fanout.close()
