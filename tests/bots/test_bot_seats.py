"""Tests of bot seats in the application core (scopa.app._core) on the embedded store."""

from __future__ import annotations

import asyncio
import random

import pytest
from support.games import SilentCore

from scopa import bots, rules
from scopa.app import (
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
