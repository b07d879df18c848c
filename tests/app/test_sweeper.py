"""Tests of turn clocks and the sweeper (scopa.app._sweeper, the core's clock paths)."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import random

import pytest
from support.games import SilentCore
from support.tasks import ends_within

from scopa import bots, rules
from scopa.app import (
    CoreSettings,
    CreateGameCommand,
    CreateResult,
    GameCore,
    GameStatus,
    InvalidArgument,
    SeatSpec,
    StoreClock,
    Sweeper,
    TokenAuthority,
    TurnTimedOut,
)
from scopa.storage import DEADLINE_SHARDS, MemoryStore

SECRET = b"k" * 32
T0 = 1_800_000_000.0


class Wall:
    """A settable wall clock (seconds since the epoch) shared by the store and the cores."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


class Replica:
    """One replica: a core and its sweeper on a shared store and wall clock."""

    def __init__(self, store: MemoryStore, wall: Wall, seed: int, cls: type[GameCore] = GameCore):
        settings = CoreSettings(bot_budget=bots.Budget(iterations=10), bot_grace_s=2.0)
        self.core = cls(
            store, TokenAuthority(SECRET), settings, random.Random(seed), clock=StoreClock(wall)
        )
        self.sweeper = Sweeper(self.core)


@pytest.fixture
def wall() -> Wall:
    """A wall clock at T0."""
    return Wall()


@pytest.fixture
def store(wall: Wall) -> MemoryStore:
    """An embedded store reading the same wall clock."""
    return MemoryStore(wall=wall)


async def _clocked(replica: Replica, **kw: object) -> CreateResult:
    seats = [SeatSpec("ann"), SeatSpec("bob")]
    command = CreateGameCommand("scopa", {}, seats, **{"turn_timeout_s": 30, **kw})  # type: ignore[arg-type]
    return await replica.core.create_game(command)


async def test_a_clocked_game_shows_the_deadline_of_the_turn(
    store: MemoryStore, wall: Wall
) -> None:
    """The view carries the turn's deadline (now + turn_timeout_s) and the clock."""
    created = await _clocked(Replica(store, wall, 1))
    assert created.snapshot.deadline_ms == int(T0 * 1000) + 30_000
    assert created.snapshot.turn_timeout_s == 30


async def test_no_clock_no_deadline(store: MemoryStore, wall: Wall) -> None:
    """A game without a clock has no deadline and no index entry."""
    replica = Replica(store, wall, 1)
    seats = [SeatSpec("ann"), SeatSpec("bob")]
    created = await replica.core.create_game(CreateGameCommand("scopa", {}, seats))
    assert created.snapshot.deadline_ms == 0
    assert await replica.core.due_games(10) == []
    wall.now += 10**6
    assert await replica.core.due_games(10) == []


async def test_the_sweeper_plays_a_turn_whose_clock_ran_out(store: MemoryStore, wall: Wall) -> None:
    """Past the deadline, a sweep lets the timeout bot play the seat's turn, and counts it."""
    replica = Replica(store, wall, 1)
    created = await _clocked(replica)
    wall.now += 29
    assert await replica.sweeper.sweep() == 0
    wall.now += 1
    assert await replica.sweeper.sweep() == 1
    snap = await replica.core.get_state(created.game_id, None)
    assert (snap.version, snap.view.turn) == (2, 1)
    assert [s.timeouts for s in snap.seats] == [1, 0]
    assert snap.deadline_ms == int(wall.now * 1000) + 30_000


async def test_an_unattended_game_finishes_by_clocks(store: MemoryStore, wall: Wall) -> None:
    """With every person gone, sweeps alone play the game to its end."""
    replica = Replica(store, wall, 1)
    created = await _clocked(replica)
    for _ in range(2000):
        wall.now += 30
        await replica.sweeper.sweep()
        snap = await replica.core.get_state(created.game_id, None)
        if snap.status is GameStatus.FINISHED:
            break
    assert snap.status is GameStatus.FINISHED
    assert snap.view.finish_reason is rules.FinishReason.TARGET
    assert await replica.core.due_games(10) == []  # a finished game leaves the index


async def test_the_kth_timeout_forfeits_the_seat(store: MemoryStore, wall: Wall) -> None:
    """With timeout_action forfeit, the bot plays until the seat's K-th timeout resigns it."""
    replica = Replica(store, wall, 1)
    created = await _clocked(replica, on_timeout="forfeit", forfeit_after=2)
    for _ in range(3):  # seat 0, seat 1, seat 0 again
        wall.now += 30
        assert await replica.sweeper.sweep() == 1
    snap = await replica.core.get_state(created.game_id, None)
    assert snap.status is GameStatus.FINISHED
    assert (snap.resigned, snap.view.finish_reason) == (0, rules.FinishReason.RESIGNED)
    assert [s.timeouts for s in snap.seats] == [2, 1]


async def test_two_replicas_sweeping_one_overdue_turn_make_one_move(
    store: MemoryStore, wall: Wall
) -> None:
    """Both sweepers find the entry; the compare-and-set lets exactly one act."""
    first, second = Replica(store, wall, 1), Replica(store, wall, 2)
    created = await _clocked(first)
    wall.now += 31
    acted = await asyncio.gather(first.sweeper.sweep(), second.sweeper.sweep())
    snap = await first.core.get_state(created.game_id, None)
    assert sorted(acted) == [0, 1]
    assert snap.version == 2 and [s.timeouts for s in snap.seats] == [1, 0]


async def test_a_move_on_an_overdue_turn_meets_the_timeout_first(
    store: MemoryStore, wall: Wall
) -> None:
    """A late move finds the turn already taken for the seat (NOT_YOUR_TURN)."""
    replica = Replica(store, wall, 1)
    created = await _clocked(replica)
    token = dict(created.tokens)[0]
    action = created.snapshot.view.legal_actions[0]
    wall.now += 31
    with pytest.raises(rules.NotYourTurn):
        await replica.core.take_action(created.game_id, token, action)
    snap = await replica.core.get_state(created.game_id, None)
    assert (snap.version, snap.view.turn) == (2, 1)


async def test_a_read_of_an_overdue_game_takes_the_timeout(store: MemoryStore, wall: Wall) -> None:
    """GetState on an overdue game acts first, without any sweeper."""
    replica = Replica(store, wall, 1)
    created = await _clocked(replica)
    wall.now += 31
    snap = await replica.core.get_state(created.game_id, None)
    assert snap.version == 2 and [s.timeouts for s in snap.seats] == [1, 0]


async def test_a_bot_turn_left_by_a_dead_replica_is_swept_after_the_grace(
    store: MemoryStore, wall: Wall
) -> None:
    """A bot's turn nobody played is played by a sweeper once the grace has passed."""
    dead, alive = Replica(store, wall, 1, SilentCore), Replica(store, wall, 2)
    seats = [SeatSpec("bot", bot="greedy"), SeatSpec("ann")]
    created = await dead.core.create_game(CreateGameCommand("scopa", {}, seats))
    assert created.snapshot.version == 1
    wall.now += 1
    assert await alive.sweeper.sweep() == 0
    wall.now += 1
    assert await alive.sweeper.sweep() == 1
    snap = await alive.core.get_state(created.game_id, None)
    assert (snap.version, snap.view.turn) == (2, 1)
    assert await alive.core.due_games(10) == []  # a person's turn without a clock


async def test_an_entry_of_a_vanished_game_is_forgotten(store: MemoryStore, wall: Wall) -> None:
    """The sweeper drops the entry of a game that is gone."""
    replica = Replica(store, wall, 1)
    await store.set_deadline("gone", 3, int(T0 * 1000))
    assert await replica.sweeper.sweep() == 0
    assert await replica.core.due_games(10) == []


@pytest.mark.interpreted_only
async def test_an_overdue_game_of_a_newer_format_is_left_to_newer_replicas(
    store: MemoryStore, wall: Wall, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A replica that cannot read an overdue game (a newer release wrote it) skips it with a
    warning, keeps its entry for the others and sweeps the rest."""
    replica = Replica(store, wall, 1)
    newer = await _clocked(replica)
    wall.now += 30
    monkeypatch.setattr(rules._serial, "FORMAT_VERSION", rules.FORMAT_VERSION - 1)
    older = Replica(store, wall, 2)
    assert await older.sweeper.sweep() == 0
    assert [game for game, _ in await older.core.due_games(10)] == [newer.game_id]
    monkeypatch.undo()
    assert await replica.sweeper.sweep() == 1


async def test_an_early_entry_is_set_to_the_real_deadline(store: MemoryStore, wall: Wall) -> None:
    """An entry earlier than the game's deadline is moved to it, nothing is played."""
    replica = Replica(store, wall, 1)
    created = await _clocked(replica)
    await store.lower_deadline(created.game_id, int(T0 * 1000))
    assert await replica.sweeper.sweep() == 0
    assert (await replica.core.get_state(created.game_id, None)).version == 1
    wall.now += 30
    due = await replica.core.due_games(10)
    assert due == [(created.game_id, int(T0 * 1000) + 30_000)]


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"turn_timeout_s": -1}, "turn_timeout_s"),
        ({"turn_timeout_s": 10**7}, "turn_timeout_s"),
        ({"turn_timeout_s": 5, "on_timeout": "nap"}, "timeout_action"),
        ({"turn_timeout_s": 5, "forfeit_after": -1}, "forfeit_after"),
        ({"on_timeout": "forfeit"}, "turn_timeout_s"),
        ({"turn_timeout_s": 5, "timeout_bot": "nap"}, "timeout_bot"),
        ({"timeout_bot": "random"}, "turn_timeout_s"),
    ],
)
async def test_bad_clocks_are_refused(
    store: MemoryStore, wall: Wall, kw: dict[str, object], field: str
) -> None:
    """A clock out of range, an unknown action or an action without a clock is refused."""
    seats = [SeatSpec("ann"), SeatSpec("bob")]
    with pytest.raises(InvalidArgument) as caught:
        await Replica(store, wall, 1).core.create_game(
            CreateGameCommand("scopa", {}, seats, **kw)  # type: ignore[arg-type]
        )
    assert caught.value.field == field


async def test_every_shard_is_scanned(store: MemoryStore, wall: Wall) -> None:
    """Due entries of every deadline shard reach the sweep."""
    replica = Replica(store, wall, 1)
    games = [f"g{i}" for i in range(200)]
    for game in games:
        await store.set_deadline(game, 1, int(T0 * 1000))
    due = await replica.core.due_games(1000)
    assert sorted(g for g, _ in due) == sorted(games) and DEADLINE_SHARDS > 1


async def test_a_read_takes_a_run_out_turn_even_after_a_kept_snapshot(
    store: MemoryStore, wall: Wall
) -> None:
    """GetState keeps a seat's snapshot of an unchanged game, but once the turn's clock has
    run out the next read takes the turn instead of handing out the kept snapshot."""
    replica = Replica(store, wall, 1)
    created = await _clocked(replica)
    first = await replica.core.get_state(created.game_id, None)
    assert await replica.core.get_state(created.game_id, None) is first
    wall.now += 30
    after = await replica.core.get_state(created.game_id, None)
    assert (after.version, after.view.turn) == (2, 1)
    assert [s.timeouts for s in after.seats] == [1, 0]


async def test_a_timeout_is_an_event_every_seat_sees_before_the_bot_play(
    store: MemoryStore, wall: Wall
) -> None:
    """The timed-out version's events are the timeout, then the timeout bot's play, for all."""
    replica = Replica(store, wall, 1)
    created = await _clocked(replica)
    wall.now += 30
    assert await replica.sweeper.sweep() == 1
    for seat in (0, 1, None):
        token = dict(created.tokens)[seat] if seat is not None else None
        snap = await replica.core.get_state(created.game_id, token)
        events = [e.event for e in snap.last_events]
        assert events[0] == TurnTimedOut(0, 1, False, "greedy")
        assert isinstance(events[1], rules.CardPlayed) and events[1].seat == 0
        assert {e.version for e in snap.last_events} == {2}


async def test_a_forfeiting_timeout_is_an_event_before_the_resignation(
    store: MemoryStore, wall: Wall
) -> None:
    """The K-th timeout's version holds the timeout (forfeited, no bot), then the resignation."""
    replica = Replica(store, wall, 1)
    created = await _clocked(replica, on_timeout="forfeit", forfeit_after=1)
    wall.now += 30
    assert await replica.sweeper.sweep() == 1
    snap = await replica.core.get_state(created.game_id, None)
    events = [e.event for e in snap.last_events]
    assert events[0] == TurnTimedOut(0, 1, True, "")
    assert [type(e) for e in events[1:]] == [rules.SeatResigned, rules.GameFinished]


async def test_a_game_s_own_timeout_bot_plays_for_a_timed_out_seat(
    store: MemoryStore, wall: Wall, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With timeout_bot "random" the random bot plays the run-out turn, and the view says so."""
    levels: list[bots.Level] = []
    choose = bots.choose

    def recording(view: rules.SeatView, rng: random.Random, budget: bots.Budget, level: bots.Level):  # type: ignore[no-untyped-def]
        levels.append(level)
        return choose(view, rng, budget, level)

    monkeypatch.setattr(bots, "choose", recording)
    replica = Replica(store, wall, 1)
    created = await _clocked(replica, timeout_bot="random")
    assert created.snapshot.timeout_bot == "random"
    wall.now += 30
    assert await replica.sweeper.sweep() == 1
    snap = await replica.core.get_state(created.game_id, None)
    assert snap.last_events[0].event == TurnTimedOut(0, 1, False, "random")
    assert levels == [bots.Level.RANDOM]
    default = await _clocked(replica)
    assert default.snapshot.timeout_bot == "greedy"


async def test_a_watch_of_an_overdue_game_takes_the_timeout(store: MemoryStore, wall: Wall) -> None:
    """A stream opened on an overdue game (no sweeper) takes the turn before its first view."""
    replica = Replica(store, wall, 1)
    created = await _clocked(replica)
    wall.now += 31
    stream = replica.core.watch(created.game_id, None)
    first = await anext(stream)
    await stream.aclose()
    assert first.snapshot.version == 2
    assert [s.timeouts for s in first.snapshot.seats] == [1, 0]


async def test_a_live_watch_takes_the_turn_when_its_clock_runs_out(
    store: MemoryStore, wall: Wall
) -> None:
    """An open stream wakes at its game's deadline (not at the 30 s probe) and takes the turn."""
    replica = Replica(store, wall, 1)
    created = await _clocked(replica, turn_timeout_s=1)
    stream = replica.core.watch(created.game_id, None, from_version=1)
    first = await anext(stream)
    assert first.snapshot.version == 1
    wall.now += 1  # the store's clock reaches the deadline as the stream's 1 s wait ends
    update = await asyncio.wait_for(anext(stream), 10)
    await stream.aclose()
    assert update.snapshot.version == 2
    assert update.events[0].event == TurnTimedOut(0, 1, False, "greedy")


class SwallowingCore(GameCore):
    """A replica whose clock sync swallows the first cancellation, as a timed store call on
    Python 3.11 can when it completes just as the cancellation arrives."""

    swallowed = 0
    """Cancellations swallowed so far (by this replica)."""

    @functools.cached_property
    def syncing(self) -> asyncio.Event:
        """Set once a pass waits in the clock sync (where a cancellation is swallowed)."""
        return asyncio.Event()

    async def sync_clock(self) -> bool:
        self.syncing.set()
        try:
            await asyncio.sleep(1.0)  # longer than any stall of a loaded machine: stop() lands here
        except asyncio.CancelledError:
            if self.swallowed:
                raise
            self.swallowed += 1
        return await super().sync_clock()


async def test_a_stopped_sweeper_ends_even_when_a_pass_swallows_the_cancellation(
    store: MemoryStore, wall: Wall
) -> None:
    """stop() ends the sweeping task although a pass swallowed one cancellation (cancelled once,
    it swept on: a SIGTERMed replica kept taking turns after "stopped" and never exited)."""
    core = Replica(store, wall, 1, SwallowingCore).core
    assert isinstance(core, SwallowingCore)
    sweeper = Sweeper(core, interval_s=0.001)
    sweeper.start()
    await asyncio.wait_for(core.syncing.wait(), 5)
    assert await ends_within(asyncio.ensure_future(sweeper.stop())), "it swept on after stop()"
    assert core.swallowed == 1


async def test_the_sweeper_drops_a_stuck_games_deadline(store: MemoryStore, wall: Wall) -> None:
    """An overdue game whose seat to play has no legal action (a rules-engine fault) is not
    played, not retried at every sweep: its deadline is dropped and the game left unchanged."""
    replica = Replica(store, wall, 1)
    created = await _clocked(replica)
    game = store._games[created.game_id]
    state = rules.load_state(game.state)
    hands = tuple(() if s == state.turn else h for s, h in enumerate(state.hands))
    game.state = rules.dump_state(dataclasses.replace(state, hands=hands))
    before = (game.state, game.version)
    wall.now += 31
    assert await replica.core.due_games(10)
    assert await replica.sweeper.sweep() == 0
    assert await replica.core.due_games(10) == []
    assert (game.state, game.version) == before
