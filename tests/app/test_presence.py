"""Presence in the core (scopa.app._presence): entries of open watch streams, presence
messages, GetState's presence, refreshes that survive store errors, invite-only spectators."""

from __future__ import annotations

import asyncio

import pytest
from support.games import SECRET, two_seat_game

from scopa.app import (
    CoreSettings,
    GameCore,
    GameNotFoundError,
    PlayResult,
    SpectatorInviteRequired,
    TokenAuthority,
    Unauthenticated,
    WatchIdle,
)
from scopa.storage import MemoryStore, Presence, Snapshot, StorageUnavailable

pytestmark = pytest.mark.asyncio(loop_scope="session")


def _core(store: MemoryStore | None = None, ttl_s: float = 15.0) -> GameCore:
    settings = CoreSettings(presence_ttl_s=ttl_s)
    return GameCore(store or MemoryStore(), TokenAuthority(SECRET), settings)


async def _next(stream: object) -> PlayResult:
    result = await asyncio.wait_for(anext(stream), 5)  # type: ignore[call-overload]
    assert isinstance(result, PlayResult)
    return result


async def test_a_seat_joining_and_leaving_is_a_presence_message() -> None:
    """Seat 1's stream opening and closing reaches seat 0's stream as presence messages of the
    same version, no events; the game's version does not move."""
    core = _core()
    created, tokens = await two_seat_game(core)
    game = created.game_id
    ann = core.watch(game, tokens[0])
    first = await _next(ann)
    assert first.presence is None and first.snapshot.presence is not None
    assert first.snapshot.presence.seats[0].connected
    bob = core.watch(game, tokens[1])
    await _next(bob)
    joined = await _next(ann)
    assert joined.snapshot.version == first.snapshot.version and not joined.events
    assert joined.presence is not None and [(c.seat, c.connected) for c in joined.presence] == [
        (1, True)
    ]
    await bob.aclose()
    left = await _next(ann)
    assert left.presence is not None and [(c.seat, c.connected) for c in left.presence] == [
        (1, False)
    ]
    state = await core.get_state(game, None)
    assert state.version == first.snapshot.version and state.presence is not None
    assert state.presence.seats[0].connected and not state.presence.seats[1].connected
    await ann.aclose()
    assert not (await core.get_state(game, None)).presence.seats[0].connected  # type: ignore[union-attr]
    await core.close()


async def test_spectators_are_counted_and_shown_with_the_next_message() -> None:
    """A spectator's stream counts in the spectator count; a count change sends nothing by
    itself."""
    core = _core()
    created, _ = await two_seat_game(core)
    game = created.game_id
    one = core.watch(game, None)
    assert (await _next(one)).snapshot.presence.spectators == 1  # type: ignore[union-attr]
    two = core.watch(game, None)
    await _next(two)
    assert (await core.get_state(game, None)).presence.spectators == 2  # type: ignore[union-attr]
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(anext(one), 0.3)
    await one.aclose()
    await two.aclose()
    assert (await core.get_state(game, None)).presence.spectators == 0  # type: ignore[union-attr]
    await core.close()


class FlakyPresence(MemoryStore):
    """The embedded store, whose presence refreshes fail while ``failing``."""

    failing = False
    refreshes = 0

    async def touch_presence(
        self, game_id: str, seat: int | None, connection: str, ttl_s: float, keep_s: float
    ) -> bool:
        self.refreshes += 1
        if self.failing:
            raise StorageUnavailable("down")
        return await super().touch_presence(game_id, seat, connection, ttl_s, keep_s)


async def test_a_failed_refresh_is_retried_and_the_stream_goes_on() -> None:
    """A store error on a refresh ends no stream: the refresh is tried again soon."""
    store = FlakyPresence()
    core = _core(store, ttl_s=0.3)
    created, tokens = await two_seat_game(core)
    stream = core.watch(created.game_id, tokens[0])
    await _next(stream)
    store.failing = True
    pending = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0.5)
    failed = store.refreshes
    assert failed >= 3 and not pending.done()
    store.failing = False
    await asyncio.sleep(0.3)
    assert store.refreshes > failed and not pending.done()
    pending.cancel()
    with pytest.raises(asyncio.CancelledError):
        await pending
    await stream.aclose()
    await core.close()


class CountedReads(MemoryStore):
    """The embedded store, counting its reads; its presence reads fail while ``failing``."""

    failing = False

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[str] = []

    async def load(
        self, game_id: str, request_id: str | None = None, slot: str | None = None
    ) -> Snapshot:
        self.reads.append("load")
        return await super().load(game_id, request_id, slot)

    async def presence(self, game_id: str) -> Presence:
        self.reads.append("presence")
        if self.failing:
            raise StorageUnavailable("down")
        return await super().presence(game_id)

    async def load_with_presence(self, game_id: str) -> tuple[Snapshot, Presence]:
        self.reads.append("load_with_presence")
        return await super().load_with_presence(game_id)


async def test_get_state_reads_the_game_with_its_presence_in_one_call() -> None:
    """GetState is one store read (game and presence); a presence that cannot be read fails
    it; a missing game is not found."""
    store = CountedReads()
    core = _core(store)
    created, tokens = await two_seat_game(core)
    store.reads.clear()
    snap = await core.get_state(created.game_id, tokens[0])
    assert snap.presence is not None and snap.presence.seats == {}
    assert store.reads[0] == "load_with_presence" and store.reads.count("load_with_presence") == 1
    store.failing = True
    with pytest.raises(StorageUnavailable):
        await core.get_state(created.game_id, tokens[0])
    with pytest.raises(GameNotFoundError):
        await core.get_state("missing", None)
    await core.close()


async def test_invite_only_spectators_need_the_spectator_token() -> None:
    """Without the token a spectator's GetState and watch are refused; with it they see the
    spectator view; seats see the token; the token cannot act."""
    core = _core()
    created, tokens = await two_seat_game(core, spectators_invite=True)
    game, spectator = created.game_id, created.spectator_token
    assert spectator and created.snapshot.spectator_token == spectator
    with pytest.raises(SpectatorInviteRequired):
        await core.get_state(game, None)
    with pytest.raises(SpectatorInviteRequired):
        await _next(core.watch(game, None))
    seen = await core.get_state(game, spectator)
    assert seen.view.seat is None and not seen.spectator_token and seen.spectators_invite
    assert (await core.get_state(game, tokens[1])).spectator_token == spectator
    with pytest.raises(Unauthenticated):
        await core.resign(game, spectator)
    public, _ = await two_seat_game(core)
    assert not public.spectator_token
    assert (await core.get_state(public.game_id, None)).view.seat is None
    await core.close()


async def test_a_stream_ended_by_its_idle_limit_leaves_its_entry_to_lapse() -> None:
    """WATCH_IDLE ends a stream that its client reopens at once: its seat is not announced as
    gone; the entry lapses if the client does not come back."""
    core = GameCore(
        MemoryStore(), TokenAuthority(SECRET), CoreSettings(watch_idle_s=0.2, presence_ttl_s=0.6)
    )
    created, tokens = await two_seat_game(core)
    game = created.game_id
    ann = core.watch(game, tokens[0])
    await _next(ann)
    with pytest.raises(WatchIdle):
        await _next(ann)
    assert (await core.get_state(game, None)).presence.seats[0].connected  # type: ignore[union-attr]
    await asyncio.sleep(0.7)
    assert not (await core.get_state(game, None)).presence.seats[0].connected  # type: ignore[union-attr]
    await core.close()


class _SlowDrop(MemoryStore):
    """A store whose drop of a presence entry takes a while."""

    async def drop_presence(
        self, game_id: str, seat: int | None, connection: str, keep_s: float
    ) -> bool:
        await asyncio.sleep(0.3)
        return await super().drop_presence(game_id, seat, connection, keep_s)


async def test_a_cancellation_during_a_normal_exits_drop_is_not_swallowed() -> None:
    """A stream's task cancelled while its entry is dropped on a normal exit still ends as
    cancelled (the drop goes on, shielded); it does not carry on as if nothing happened."""
    store = _SlowDrop()
    core = _core(store)
    created, _ = await two_seat_game(core)
    presences = core._presences  # the facade's collaborator

    async def attend() -> str:
        async with presences.attend(created.game_id, 0):
            pass
        return "carried on"

    task = asyncio.ensure_future(attend())
    await asyncio.sleep(0.1)  # inside the drop
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_replica_closing_after_a_drain_waits_for_its_streams_drops() -> None:
    """A drain cancels its streams again until they end, so a stream whose entry drop is slow
    ends before the drop does; the replica's close waits for that drop (before its store
    closes), so no spectator is left behind to lapse."""
    store = _SlowDrop()
    core = _core(store)
    created, _ = await two_seat_game(core)
    game = created.game_id
    stream = core.watch(game, None)
    await _next(stream)
    pending = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0.05)
    while not pending.done():  # as Drain.end_streams does, every 50 ms
        pending.cancel()
        await asyncio.sleep(0.05)
    await core.close()
    state = await GameCore(store, TokenAuthority(SECRET), CoreSettings()).get_state(game, None)
    assert state.presence is not None and state.presence.spectators == 0


class _SlowTouchReply(MemoryStore):
    """A store that applies a presence touch at once but answers it a while later (a reply on
    its way back from Redis)."""

    async def touch_presence(
        self, game_id: str, seat: int | None, connection: str, ttl_s: float, keep_s: float
    ) -> bool:
        changed = await super().touch_presence(game_id, seat, connection, ttl_s, keep_s)
        await asyncio.sleep(0.3)
        return changed


async def test_a_stream_cancelled_while_its_entry_is_written_drops_it() -> None:
    """A drain that cancels a stream while its first touch is on its way (applied, not yet
    answered) leaves no spectator behind: the entry is dropped as a closing stream's is, and
    the replica's close waits for that drop."""
    store = _SlowTouchReply()
    core = _core(store)
    created, _ = await two_seat_game(core)
    game = created.game_id
    first = asyncio.ensure_future(anext(core.watch(game, None)))
    await asyncio.sleep(0.1)  # the touch is applied; its answer is not in yet
    assert (await store.presence(game)).spectators == 1
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    await core.close()
    state = await GameCore(store, TokenAuthority(SECRET), CoreSettings()).get_state(game, None)
    assert state.presence is not None and state.presence.spectators == 0
