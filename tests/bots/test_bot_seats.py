"""Tests of bot seats in the application core (scopa.app._core) on the embedded store."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace

import pytest
from support.games import SilentCore

from scopa import bots, rules
from scopa.app import (
    BotOnlyGamesDisabled,
    CoreSettings,
    CreateGameCommand,
    GameCore,
    InvalidArgument,
    SeatSpec,
    TokenAuthority,
)
from scopa.storage import MemoryStore

SECRET = b"k" * 32
FAST = CoreSettings(bot_budget=bots.Budget(iterations=10))


def core(store: MemoryStore, seed: int = 1, cls: type[GameCore] = GameCore) -> GameCore:
    """A core on ``store`` with a quick bot budget."""
    return cls(store, TokenAuthority(SECRET), FAST, rng=random.Random(seed))


@pytest.mark.parametrize("level", list(bots.Level))
async def test_a_person_finishes_a_game_against_each_level(level: bots.Level) -> None:
    """The bot answers every move by itself until the game is over."""
    game = core(MemoryStore())
    seats = [SeatSpec("bot", bot=level.value), SeatSpec("ann")]
    created = await game.create_game(CreateGameCommand("scopa", {}, seats))
    assert [s for s, _ in created.tokens] == [1]
    token = created.tokens[0][1]
    human_moves = 0
    for _ in range(500):
        snap = await game.get_state(created.game_id, token)
        if snap.view.finish_reason is not rules.FinishReason.NONE:
            break
        assert snap.view.turn == 1, "a bot turn was left pending"
        await game.take_action(created.game_id, token, snap.view.legal_actions[0])
        human_moves += 1
    assert snap.view.finish_reason is not rules.FinishReason.NONE
    assert snap.version > human_moves + 1 + 10  # the bot's moves are versions too


async def test_a_pending_bot_turn_is_played_by_the_next_replica() -> None:
    """A replica that never played the bot's first turn leaves it to the next one to read."""
    store = MemoryStore()
    seats = [SeatSpec("bot", bot="greedy"), SeatSpec("ann")]
    created = await core(store, cls=SilentCore).create_game(CreateGameCommand("scopa", {}, seats))
    assert created.snapshot.view.turn == 0
    assert created.snapshot.version == 1
    snap = await core(store, seed=2).get_state(created.game_id, None)
    assert (snap.version, snap.view.turn) == (2, 1)


async def test_two_replicas_racing_a_bot_turn_make_one_move() -> None:
    """Two replicas reading a pending bot turn at once commit exactly one bot move."""
    store = MemoryStore()
    seats = [SeatSpec("bot", bot="ismcts"), SeatSpec("ann")]
    created = await core(store, cls=SilentCore).create_game(CreateGameCommand("scopa", {}, seats))
    first, second = await asyncio.gather(
        core(store, seed=2).get_state(created.game_id, None),
        core(store, seed=3).get_state(created.game_id, None),
    )
    snap = await core(store, seed=4, cls=SilentCore).get_state(created.game_id, None)
    assert (snap.version, snap.view.turn) == (2, 1)
    assert len(snap.view.history) == 1
    assert {first.version, second.version} <= {1, 2}


@pytest.mark.parametrize(
    ("spec", "message"),
    [(SeatSpec("x", bot="smart"), "unknown bot level"), (SeatSpec("x", True, "greedy"), "open")],
)
async def test_bad_bot_seats_are_refused(spec: SeatSpec, message: str) -> None:
    """An unknown level, or a seat both open and a bot, is INVALID_ARGUMENT on seats[1].bot."""
    with pytest.raises(InvalidArgument, match=message) as caught:
        await core(MemoryStore()).create_game(
            CreateGameCommand("scopa", {}, [SeatSpec("ann"), spec])
        )
    assert caught.value.field == "seats[1].bot"


async def test_views_name_the_bot_seats() -> None:
    """Every view says which seat a bot plays, and at which level."""
    seats = [SeatSpec("ann"), SeatSpec("", bot="greedy")]
    created = await core(MemoryStore()).create_game(CreateGameCommand("scopa", {}, seats))
    assert [s.bot for s in created.snapshot.seats] == ["", "greedy"]
    assert [s.name for s in created.snapshot.seats] == ["ann", "Bot 2"]


async def test_a_failing_bot_plays_a_random_action(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fault in a bot's search neither fails the person's move nor stalls the game."""
    real = bots.choose

    def broken(
        view: rules.SeatView, rng: random.Random, budget: bots.Budget, level: bots.Level
    ) -> rules.Action:
        if level is not bots.Level.RANDOM:
            raise RuntimeError("search bug")
        return real(view, rng, budget, level)

    monkeypatch.setattr(bots, "choose", broken)
    game = core(MemoryStore())
    seats = [SeatSpec("bot", bot="ismcts"), SeatSpec("ann")]
    created = await game.create_game(CreateGameCommand("scopa", {}, seats))
    token = created.tokens[0][1]
    snap = await game.get_state(created.game_id, token)
    assert (snap.version, snap.view.turn) == (2, 1)
    await game.take_action(created.game_id, token, snap.view.legal_actions[0])
    snap = await game.get_state(created.game_id, token)
    assert snap.version == 4


async def test_a_game_without_a_person_needs_the_server_setting() -> None:
    """Every seat a bot: BOT_ONLY_GAMES_DISABLED by default, nothing stored; with
    allow_bot_only_games the CreateGame answers at once (no bot has moved) and the server plays
    the game out by itself after it."""
    store = MemoryStore()
    seats = [SeatSpec("", bot="random"), SeatSpec("", bot="greedy")]
    with pytest.raises(BotOnlyGamesDisabled):
        await core(store).create_game(CreateGameCommand("scopa", {"target_score": 1}, seats))
    assert not store._games
    allowed = GameCore(
        store, TokenAuthority(SECRET), replace(FAST, allow_bot_only_games=True), random.Random(1)
    )
    created = await allowed.create_game(CreateGameCommand("scopa", {"target_score": 1}, seats))
    assert created.tokens == () and created.snapshot.version == 1
    assert created.snapshot.view.finish_reason is rules.FinishReason.NONE
    for _ in range(1000):  # up to 10 s (a loaded machine); a few hundred ms when idle
        await asyncio.sleep(0.01)
        stored = await store.load(created.game_id)  # get_state would take the due turns itself
        if rules.load_state(stored.state).finished:
            break
    assert rules.load_state(stored.state).finished and stored.version > 10
    await allowed.close()


async def test_a_replica_s_close_stops_the_games_it_plays_in_the_background() -> None:
    """A bot-only game still playing when its replica closes stops where it is, left due for a
    sweeper (which plays it out)."""
    store = MemoryStore()
    seats = [SeatSpec("", bot="ismcts"), SeatSpec("", bot="ismcts")]
    slow = replace(FAST, allow_bot_only_games=True, bot_budget=bots.Budget(iterations=400))
    first = GameCore(store, TokenAuthority(SECRET), slow, random.Random(1))
    created = await first.create_game(CreateGameCommand("scopa", {"target_score": 11}, seats))
    for _ in range(1000):  # until the background task has played at least one move
        await asyncio.sleep(0.01)
        if (await store.load(created.game_id)).version > 1:
            break
    await first.close()
    stopped = await store.load(created.game_id)  # not get_state: it would take the due turns
    await asyncio.sleep(0.2)
    assert (await store.load(created.game_id)).version == stopped.version > 1
    assert not rules.load_state(stopped.state).finished
    second = GameCore(store, TokenAuthority(SECRET), replace(slow, bot_grace_s=0), random.Random(2))
    for _ in range(50):
        for game_id, deadline in await second.due_games(10):
            await second.sweep_game(game_id, deadline)
    snap = await second.get_state(created.game_id, None)
    assert snap.view.finish_reason is not rules.FinishReason.NONE


async def test_bot_turns_beyond_the_queue_are_deferred_then_swept() -> None:
    """With one search slot and no waiting line, bot turns that find the slot busy are left
    due (counted as deferred) and a later sweep plays them: no game stalls, none is lost."""
    reports: list[tuple[str, int]] = []
    game = GameCore(
        MemoryStore(),
        TokenAuthority(SECRET),
        replace(FAST, bot_running=1, bot_waiting=0, bot_grace_s=0),
        random.Random(1),
        on_bot_queue=lambda kind, delta: reports.append((kind, delta)),
    )
    seats = [SeatSpec("bot", bot="ismcts"), SeatSpec("ann")]
    created = await asyncio.gather(
        *(game.create_game(CreateGameCommand("scopa", {}, seats)) for _ in range(6))
    )
    versions = [c.snapshot.version for c in created]
    deferred = sum(delta for kind, delta in reports if kind == "deferred")
    assert deferred == versions.count(1) > 0  # each deferred game still awaits its bot
    for _ in range(20):
        due = await game.due_games(100)
        if not due:
            break
        for game_id, deadline in due:
            await game.sweep_game(game_id, deadline)
    states = [await game.get_state(c.game_id, None) for c in created]
    assert all((s.version, s.view.turn) == (2, 1) for s in states)
    assert (
        max(sum(d for k, d in reports[: i + 1] if k == "running") for i in range(len(reports))) == 1
    )
