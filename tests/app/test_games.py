"""Tests of scopa.app._games (the shared read side: formats, stuck games) through the core."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from support.blobs import with_rules
from support.games import (
    SECRET,
    two_seat_game,
)

from scopa import rules
from scopa.app import (
    CoreSettings,
    CreateGameCommand,
    GameCore,
    GameStuck,
    SeatSpec,
    TokenAuthority,
)
from scopa.app._clock import StoreClock
from scopa.app._games import Games, Hooks
from scopa.storage import MemoryStore


@pytest.mark.interpreted_only
async def test_a_replica_of_the_previous_format_refuses_games_written_now(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every write is of the current format: a replica that reads only the format before it
    (the previous release's) answers FORMAT_TOO_NEW to reads, plays and joins of such a game,
    and changes nothing (it never rewrites the meta without what it cannot read)."""
    store = MemoryStore()
    core = GameCore(store, TokenAuthority(SECRET), CoreSettings(), rng=random.Random(7))
    waiting = await core.create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec("", open=True)])
    )
    playing, tokens = await two_seat_game(core)
    turn = (await core.get_state(playing.game_id, None)).view.turn
    move = (await core.get_state(playing.game_id, tokens[turn])).view.legal_moves[0]
    games = [store._games[waiting.game_id], store._games[playing.game_id]]
    assert all(g.state[0] == rules.FORMAT_VERSION for g in games)
    before = [(g.state, g.meta, g.version) for g in games]
    older = GameCore(store, TokenAuthority(SECRET), CoreSettings(), rng=random.Random(7))
    monkeypatch.setattr(rules._serial, "FORMAT_VERSION", rules.FORMAT_VERSION - 1)
    with pytest.raises(rules.FormatTooNew) as err:
        await older.get_state(playing.game_id, tokens[turn])
    assert err.value.metadata["format"] == str(rules.FORMAT_VERSION)
    with pytest.raises(rules.FormatTooNew):
        await older.play_card(playing.game_id, tokens[turn], move)
    with pytest.raises(rules.FormatTooNew):
        await older.join_game(waiting.game_id, dict(waiting.invites)[1], "bob")
    assert [(g.state, g.meta, g.version) for g in games] == before


def stuck_blob(blob: bytes) -> bytes:
    """``blob``'s state with the seat to play holding no card: it has no legal action."""
    state = rules.load_state(blob)
    hands = tuple(() if s == state.turn else h for s, h in enumerate(state.hands))
    stuck = replace(state, hands=hands, stock=state.stock + state.hands[state.turn])
    assert rules.is_stuck(stuck)
    return rules.dump_state(stuck)


async def test_a_stuck_game_is_refused_and_counted_once() -> None:
    """A stored game awaiting a seat with no legal action: every request on it is GAME_STUCK
    and changes nothing; the hook counts it once however often it is asked for."""
    store = MemoryStore()
    stuck: list[str] = []
    core = GameCore(
        store,
        TokenAuthority(SECRET),
        CoreSettings(),
        rng=random.Random(7),
        on_game_stuck=stuck.append,
    )
    created, tokens = await two_seat_game(core)
    game = store._games[created.game_id]
    game.state = stuck_blob(game.state)
    before = (game.state, game.version)
    turn = rules.load_state(before[0]).turn
    card = rules.load_state(before[0]).hands[1 - turn][0]
    for _ in range(2):
        with pytest.raises(GameStuck, match="has no legal action"):
            await core.get_state(created.game_id, tokens[turn])
        with pytest.raises(GameStuck):
            await core.play_card(created.game_id, tokens[1 - turn], rules.Move(card, None))
    assert stuck == ["scopa"]
    assert (game.state, game.version) == before


async def test_a_state_found_playable_is_not_checked_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The stuck check (it lists the legal actions) runs once per decoded state, however many
    reads look at it; a stuck state is checked, and refused, every time."""
    store = MemoryStore()
    core = GameCore(store, TokenAuthority(SECRET), CoreSettings(), rng=random.Random(7))
    created, _ = await two_seat_game(core)
    games = Games(store, TokenAuthority(SECRET), CoreSettings(), StoreClock(), Hooks())
    snap = await games.load(created.game_id)
    stuck = replace(snap, state=stuck_blob(snap.state))
    checked: list[rules.MatchState] = []
    real = rules.is_stuck

    def counting(state: rules.MatchState) -> bool:
        checked.append(state)
        return real(state)

    monkeypatch.setattr(rules, "is_stuck", counting)
    for _ in range(3):
        games.state(created.game_id, snap)
    assert len(checked) == 1
    for _ in range(2):
        with pytest.raises(GameStuck):
            games.state(created.game_id, stuck)
    assert len(checked) == 3


async def test_a_game_under_rules_this_release_cannot_build_is_unplayable_and_not_swept() -> None:
    """A stored game whose rules no longer build is GAME_UNPLAYABLE on every request, changes
    nothing, and a sweeper that finds its deadline drops it instead of failing on it."""
    store = MemoryStore()
    core = GameCore(store, TokenAuthority(SECRET), CoreSettings(), rng=random.Random(7))
    seats = [SeatSpec("ann"), SeatSpec("bot", bot="greedy")]
    created = await core.create_game(CreateGameCommand("scopa", {}, seats))
    token = created.tokens[0][1]
    game = store._games[created.game_id]
    game.state = with_rules(game.state, "scopa", {"deck_size": 41})
    before = (game.state, game.version)
    with pytest.raises(rules.GameUnplayable, match="no longer be played"):
        await core.get_state(created.game_id, token)
    with pytest.raises(rules.GameUnplayable):
        await core.play_card(created.game_id, token, rules.Move(0, None))
    await store.lower_deadline(created.game_id, 1)
    assert await core.due_games(10) == [(created.game_id, 1)]
    assert not await core.sweep_game(created.game_id, 1)
    assert await core.due_games(10) == []
    assert (game.state, game.version) == before
