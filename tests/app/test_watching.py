"""Tests of scopa.app._watching (WatchGame streams) through the core, on the embedded store."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest
from support.fake_clock import FakeClock
from support.games import (
    SECRET,
    make_core,
    play_one,
    two_seat_game,
)

from scopa import rules
from scopa.app import (
    CoreSettings,
    CreateGameCommand,
    GameCore,
    GameNotFoundError,
    InvalidArgument,
    PlayResult,
    SeatJoined,
    SeatSpec,
    TokenAuthority,
    TooManyWatches,
    WatchIdle,
)
from scopa.storage import Event, MemoryStore, Snapshot
from scopa.storage._fanout import VersionQueue


async def test_watch_resumes_and_hides_other_hands() -> None:
    """A watch replays what was missed, then live updates; other seats' dealt cards stay hidden."""
    core = make_core()
    created, tokens = await two_seat_game(core)
    game = created.game_id
    rng = random.Random(2)
    for _ in range(5):  # versions 2..6; the 6th play (version 7) empties both hands
        await play_one(core, game, tokens, rng)
    updates = core.watch(game, tokens[1], from_version=2)
    caught_up = await anext(updates)
    assert [e.version for e in caught_up.events] == [3, 4, 5, 6]
    seat0_before = set((await core.get_state(game, tokens[0])).view.hand)
    version = await play_one(core, game, tokens, rng)
    live = await asyncio.wait_for(anext(updates), 5)
    assert live.snapshot.version == version == 7
    assert not seat0_before & set(caught_up.snapshot.view.hand)
    dealt = {e.event.seat: e.event for e in live.events if isinstance(e.event, rules.CardsDealt)}
    assert set(dealt) == {0, 1}, "the seventh version deals again"
    assert dealt[0].cards == () and dealt[0].n_cards == 3
    assert set(dealt[1].cards) == set(live.snapshot.view.hand)
    await updates.aclose()


async def test_watch_records_joins() -> None:
    """A join shows up as a SeatJoined event in the watch stream."""
    core = make_core()
    created = await core.create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec("", open=True)])
    )
    await core.join_game(created.game_id, dict(created.invites)[1], "bob")
    updates = core.watch(created.game_id, None, from_version=1)
    update = await anext(updates)
    assert [e.event for e in update.events] == [SeatJoined(1, "bob")]
    await updates.aclose()


async def test_watch_from_zero_starts_at_current_state() -> None:
    """A watch from version 0 sends the current view with no past events."""
    core = make_core()
    created, _ = await two_seat_game(core)
    updates = core.watch(created.game_id, None, from_version=0)
    first = await anext(updates)
    assert first.events == ()
    assert first.snapshot.version == 1
    await updates.aclose()


async def test_watch_refuses_versions_outside_the_game() -> None:
    """A negative from_version, or one newer than the game, is INVALID_ARGUMENT."""
    core = make_core()
    created, _ = await two_seat_game(core)
    for bad in (-1, 99):
        with pytest.raises(InvalidArgument) as err:
            await anext(core.watch(created.game_id, None, from_version=bad))
        assert err.value.field == "from_version"


async def test_watch_at_current_version_sends_the_view_first() -> None:
    """Resuming at the current version first sends the current view with no events."""
    core = make_core()
    created, _ = await two_seat_game(core)
    updates = core.watch(created.game_id, None, from_version=1)
    first = await anext(updates)
    assert (first.events, first.snapshot.version) == ((), 1)
    await updates.aclose()


def _watch_core(clock: FakeClock | None = None, **settings: float) -> GameCore:
    store = MemoryStore(clock=clock) if clock is not None else MemoryStore()
    return GameCore(store, TokenAuthority(SECRET), CoreSettings(**settings))  # type: ignore[arg-type]


async def test_quiet_watch_ends_with_watch_idle() -> None:
    """A stream with no new version for watch_idle_s ends with WatchIdle, not silence."""
    core = _watch_core(watch_idle_s=0.2, watch_probe_s=0.05)
    created, _ = await two_seat_game(core)
    updates = core.watch(created.game_id, None)
    await anext(updates)
    with pytest.raises(WatchIdle):
        await asyncio.wait_for(anext(updates), 5)


async def test_new_versions_reset_the_idle_limit() -> None:
    """A stream that keeps getting versions outlives the idle limit."""
    core = _watch_core(watch_idle_s=0.3, watch_probe_s=0.05)
    created, tokens = await two_seat_game(core)
    updates = core.watch(created.game_id, None)
    await anext(updates)
    rng = random.Random(3)
    for _ in range(4):
        await asyncio.sleep(0.15)
        version = await play_one(core, created.game_id, tokens, rng)
        assert (await asyncio.wait_for(anext(updates), 5)).snapshot.version == version
    await updates.aclose()


async def test_watch_of_an_expired_game_ends_with_game_not_found() -> None:
    """Once the game expires, its stream ends with GameNotFoundError at the next probe."""
    clock = FakeClock()
    core = _watch_core(clock, active_ttl_s=60, watch_idle_s=30, watch_probe_s=0.05)
    created, _ = await two_seat_game(core)
    updates = core.watch(created.game_id, None)
    await anext(updates)
    clock.advance(61)
    with pytest.raises(GameNotFoundError):
        await asyncio.wait_for(anext(updates), 5)


async def test_a_client_holds_at_most_watch_per_client_streams() -> None:
    """The client's next stream is refused with TooManyWatches; other clients are not."""
    core = _watch_core(watch_per_client=2)
    created, _ = await two_seat_game(core)
    game = created.game_id
    held = [core.watch(game, None, client="10.1.1.1") for _ in range(2)]
    for stream in held:
        await anext(stream)
    with pytest.raises(TooManyWatches):
        await anext(core.watch(game, None, client="10.1.1.1"))
    other = core.watch(game, None, client="10.1.1.2")
    await anext(other)
    await held[0].aclose()
    again = core.watch(game, None, client="10.1.1.1")
    await anext(again)
    for stream in (held[1], other, again):
        await stream.aclose()


async def test_many_streams_of_one_game_share_reads() -> None:
    """A hundred streams of one game cost one load per new version, not a hundred."""
    store = MemoryStore()
    core = GameCore(store, TokenAuthority(SECRET), CoreSettings())
    created, tokens = await two_seat_game(core)
    game = created.game_id
    streams = [core.watch(game, None) for _ in range(100)]
    for stream in streams:
        await anext(stream)
    loads = 0
    original = store.load

    async def counting(
        game_id: str, request_id: str | None = None, slot: str | None = None
    ) -> Snapshot:
        nonlocal loads
        loads += 1
        await asyncio.sleep(0.01)
        return await original(game_id, request_id, slot)

    store.load = counting  # type: ignore[method-assign]
    await play_one(core, game, tokens, random.Random(1))
    before = loads
    updates = await asyncio.gather(*(asyncio.wait_for(anext(s), 5) for s in streams))
    assert {u.snapshot.version for u in updates} == {2}
    assert loads - before <= 2
    for stream in streams:
        await stream.aclose()


class _CountingStore(MemoryStore):
    """The embedded store, counting the reads watch streams make."""

    def __init__(self) -> None:
        super().__init__()
        self.loads = 0
        self.logs = 0

    async def load(
        self, game_id: str, request_id: str | None = None, slot: str | None = None
    ) -> Snapshot:
        self.loads += 1
        return await super().load(game_id, request_id, slot)

    async def events_since(self, game_id: str, version: int) -> list[Event]:
        self.logs += 1
        return await super().events_since(game_id, version)


async def test_the_next_version_committed_here_reaches_a_watch_without_a_read() -> None:
    """A version this replica committed reaches its watch streams from what it knows (its
    meta carries the version's events): no load, no log read. One committed by another replica
    (another core on the same store) costs one load and still no log read."""
    store = _CountingStore()
    here = GameCore(store, TokenAuthority(SECRET), CoreSettings(), rng=random.Random(1))
    there = GameCore(store, TokenAuthority(SECRET), CoreSettings(), rng=random.Random(2))
    created, tokens = await two_seat_game(here)
    game = created.game_id
    stream = here.watch(game, tokens[1])
    await anext(stream)
    rng = random.Random(3)
    try:
        for core, loads in ((here, 0), (there, 1)):
            version = await play_one(core, game, tokens, rng)
            before = (store.loads, store.logs)
            update = await asyncio.wait_for(anext(stream), 5)
            assert update.snapshot.version == version
            assert {e.version for e in update.events} == {version} and update.events
            assert (store.loads - before[0], store.logs - before[1]) == (loads, 0)
    finally:
        await stream.aclose()


async def test_versions_the_caller_has_pass_without_a_view() -> None:
    """A version up to ``delivered()`` (a session's own action, already sent) yields nothing;
    the next one comes with its events only, not the skipped version's again."""
    core = make_core()
    created, tokens = await two_seat_game(core)
    game = created.game_id
    delivered = 0
    stream = core.watch(game, tokens[1], delivered=lambda: delivered)
    first = await anext(stream)
    delivered = first.snapshot.version
    rng = random.Random(4)
    try:
        skipped = await play_one(core, game, tokens, rng)
        delivered = skipped
        nxt = asyncio.ensure_future(anext(stream))
        await asyncio.sleep(0.05)
        assert not nxt.done(), "the delivered version was yielded"
        version = await play_one(core, game, tokens, rng)
        update = await asyncio.wait_for(nxt, 5)
        assert update.snapshot.version == version == skipped + 1
        assert {e.version for e in update.events} == {version}
        assert update.snapshot.last_events == update.events, "the view's last events"
    finally:
        await stream.aclose()


class HeldNotices(MemoryStore):
    """The embedded store, telling its subscribers of a commit only on :meth:`release`, as
    Redis pub/sub tells them after the commit returned; it counts the log reads."""

    def __init__(self) -> None:
        super().__init__()
        self.queues: dict[str, list[VersionQueue]] = {}
        self.held: list[tuple[str, int]] = []
        self.log_reads = 0

    @asynccontextmanager
    async def subscribe(
        self, game_id: str, skip: Callable[[int], bool] | None = None
    ) -> AsyncIterator[VersionQueue]:
        queue = VersionQueue(64, skip)
        self.queues.setdefault(game_id, []).append(queue)
        try:
            yield queue
        finally:
            self.queues[game_id].remove(queue)

    async def commit(self, game_id: str, *args: object, **kw: object) -> int:
        version = await super().commit(game_id, *args, **kw)  # type: ignore[arg-type]
        self.held.append((game_id, version))
        return version

    async def events_since(self, game_id: str, version: int) -> list[Event]:
        self.log_reads += 1
        return await super().events_since(game_id, version)

    def release(self) -> None:
        held, self.held = self.held, []
        for game_id, version in held:
            for queue in self.queues.get(game_id, ()):
                queue.put(version)


async def _own_move(core: GameCore, game: str, token: str) -> int:
    mine = await core.get_state(game, token)
    result = await core.play_card(game, token, mine.view.legal_moves[0])
    return result.snapshot.version


async def _watched_own_move(
    clock_s: int,
) -> tuple[HeldNotices, GameCore, str, dict[int, str], int, AsyncGenerator[PlayResult, None], int]:
    """A two-seat game on a :class:`HeldNotices` store, the seat to play's watch stream (as a
    session's: ``delivered``), and that seat's move, sent by the session, then told."""
    store = HeldNotices()
    core = GameCore(store, TokenAuthority(SECRET), CoreSettings(), rng=random.Random(3))
    created, tokens = await two_seat_game(core, turn_timeout_s=clock_s)
    game = created.game_id
    seat = (await core.get_state(game, None)).view.turn
    delivered = [0]
    stream = core.watch(game, tokens[seat], delivered=lambda: delivered[0])
    first = await anext(stream)
    delivered[0] = first.snapshot.version
    own = await _own_move(core, game, tokens[seat])
    delivered[0] = own  # the session sent its own action's update
    store.release()
    return store, core, game, tokens, seat, stream, own


async def test_a_stream_is_not_woken_by_the_plain_versions_its_caller_sent() -> None:
    """A session's own action's version, told after the session sent it, does not wake its
    watch when nothing is due after it (no turn clock, no bot, not over); the stream takes it
    as caught up with, so the next version comes with its own events only, without a log
    read."""
    store, core, game, tokens, seat, stream, own = await _watched_own_move(0)
    try:
        [queue] = store.queues[game]
        assert queue.pending == 0
        other = await _own_move(core, game, tokens[1 - seat])
        store.release()
        update = await asyncio.wait_for(anext(stream), 5)
        assert update.snapshot.version == other == own + 1
        assert {e.version for e in update.events} == {other}
        assert store.log_reads == 0
    finally:
        await stream.aclose()


async def test_a_version_that_sets_a_turn_clock_wakes_the_stream() -> None:
    """The caller's own version that starts the next seat's turn clock is queued as before:
    the stream must learn the deadline (it takes the run-out turn when due)."""
    store, _core, game, _tokens, _seat, stream, _own = await _watched_own_move(60)
    try:
        [queue] = store.queues[game]
        assert queue.pending == 1
    finally:
        await stream.aclose()


async def test_skipped_versions_keep_the_stream_from_idling() -> None:
    """Versions the caller sent already are skipped, not lost: each moves the stream's idle
    limit as a told version would, so a game moving faster than the limit keeps its stream
    open although no version wakes it."""
    store = HeldNotices()
    settings = CoreSettings(watch_idle_s=1.0, watch_probe_s=0.05)
    core = GameCore(store, TokenAuthority(SECRET), settings, rng=random.Random(3))
    created, tokens = await two_seat_game(core)
    game = created.game_id
    delivered = [0]
    stream = core.watch(game, tokens[0], delivered=lambda: delivered[0])
    delivered[0] = (await anext(stream)).snapshot.version
    nxt = asyncio.ensure_future(anext(stream))
    try:
        rng = random.Random(5)
        for _ in range(15):  # 3 s of moves, 0.2 s apart: three idle limits
            await asyncio.sleep(0.2)
            delivered[0] = await play_one(core, game, tokens, rng)
            store.release()
            assert not nxt.done(), "a skipped version woke the stream, or it idled out"
        [queue] = store.queues[game]
        assert queue.pending == 0
    finally:
        nxt.cancel()
        await asyncio.gather(nxt, return_exceptions=True)
        await stream.aclose()
