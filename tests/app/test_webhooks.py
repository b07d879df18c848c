"""The notices commits write into the outbox (scopa.app._webhooks), on the embedded store."""

from __future__ import annotations

import json
import random
from typing import Any

from support.games import SECRET, play_one

from scopa import rules
from scopa.app import (
    CoreSettings,
    CreateGameCommand,
    GameCore,
    GameMeta,
    SeatSpec,
    TokenAuthority,
)
from scopa.app._webhooks import EVENT_TYPES, body, rematch_offered
from scopa.storage import MemoryStore

DATA_KEYS = {"game_id", "version", "turn", "seat", "forfeited", "reason", "winners", "scores"}


def _core(store: MemoryStore, webhooks: bool = True) -> GameCore:
    settings = CoreSettings(webhooks=webhooks)
    return GameCore(store, TokenAuthority(SECRET), settings, random.Random(3))


async def _outbox(store: MemoryStore, game: str) -> list[dict[str, Any]]:
    """The bodies of the game's entries (each claimed and dropped), oldest first."""
    claim = await store.claim_outbox(game, 2**62, 1000, 100, "t")
    for entry in claim.entries:
        await store.finish_outbox(game, entry.entry_id, "t", None)
    found = []
    for entry in claim.entries:
        url, _, text = entry.payload.decode().partition("\n")
        assert url == ""  # the deployment's URL
        found.append(json.loads(text))
    return sorted(found, key=lambda b: b["data"]["version"])


def _types(bodies: list[dict[str, Any]]) -> list[str]:
    return [b["type"] for b in bodies]


async def test_a_started_game_notifies_the_first_seat() -> None:
    """A game created with every seat taken starts: "your turn" to the seat to play."""
    store = MemoryStore()
    created = await _core(store).create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("a"), SeatSpec("b")])
    )
    (notice,) = await _outbox(store, created.game_id)
    assert notice["type"] == "game.your_turn"
    assert notice["data"] == {
        "game_id": created.game_id,
        "version": 1,
        "turn": created.snapshot.view.turn,
        "seat": created.snapshot.view.turn,
    }


async def test_a_join_notifies_the_join_and_the_turn() -> None:
    """The last open seat joining: "seat joined", then "your turn" as the game starts."""
    store = MemoryStore()
    core = _core(store)
    created = await core.create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("a"), SeatSpec("", open=True)])
    )
    assert await _outbox(store, created.game_id) == []  # waiting: nobody's turn
    joined = await core.join_game(created.game_id, created.invites[0][1], "j")
    bodies = await _outbox(store, created.game_id)
    assert _types(bodies) == ["game.seat_joined", "game.your_turn"]
    assert bodies[0]["data"]["seat"] == 1
    assert bodies[1]["data"]["seat"] == joined.snapshot.view.turn


async def test_each_move_to_another_seat_notifies_it_and_the_end_has_the_scores() -> None:
    """Moves alternate the seat to play: one "your turn" each; the last move notifies the
    finish with scores and winners (no "your turn")."""
    store = MemoryStore()
    core = _core(store)
    created = await core.create_game(
        CreateGameCommand("scopa", {"target_score": 1}, [SeatSpec("a"), SeatSpec("b")])
    )
    game, tokens = created.game_id, dict(created.tokens)
    await _outbox(store, game)
    rng = random.Random(5)
    while True:
        state = await core.get_state(game, None)
        if state.status.name == "FINISHED":
            break
        before = state.view.turn
        await play_one(core, game, tokens, rng)
        after = await core.get_state(game, None)
        bodies = await _outbox(store, game)
        if after.status.name == "FINISHED":
            assert _types(bodies) == ["game.finished"]
            data = bodies[0]["data"]
            assert data["turn"] is None and data["reason"] == "target"
            assert data["scores"] == list(after.view.scores)
            assert data["winners"] == list(after.view.winners)
        elif after.view.turn != before:
            assert _types(bodies) == ["game.your_turn"]
            assert bodies[0]["data"]["seat"] == after.view.turn
        else:
            assert bodies == []


async def test_no_webhook_no_entries() -> None:
    """A deployment without a webhook URL writes nothing into the outbox."""
    store = MemoryStore()
    created = await _core(store, webhooks=False).create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("a"), SeatSpec("b")])
    )
    assert await _outbox(store, created.game_id) == []


async def test_a_bot_seat_is_never_notified() -> None:
    """A bot's turn is no one's to be told of."""
    store = MemoryStore()
    created = await _core(store).create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("a"), SeatSpec("b", bot="random")])
    )
    bodies = await _outbox(store, created.game_id)
    assert all(b["data"].get("seat") == 0 for b in bodies if b["type"] == "game.your_turn")


async def test_payloads_hold_no_card_name_or_token() -> None:
    """A whole game's notices: only the documented keys; no card, hand, name or token."""
    store = MemoryStore()
    core = _core(store)
    created = await core.create_game(
        CreateGameCommand("scopa", {"target_score": 1}, [SeatSpec("Ann"), SeatSpec("Bob")])
    )
    game, tokens = created.game_id, dict(created.tokens)
    rng = random.Random(2)
    seen: list[dict[str, Any]] = await _outbox(store, game)
    while (await core.get_state(game, None)).status.name != "FINISHED":
        await play_one(core, game, tokens, rng)
        seen += await _outbox(store, game)
    assert {b["type"] for b in seen} <= set(EVENT_TYPES)
    for notice in seen:
        assert set(notice) == {"type", "timestamp", "data"}
        assert set(notice["data"]) <= DATA_KEYS
        text = json.dumps(notice)
        assert "Ann" not in text and "Bob" not in text and "card" not in text
        assert not any(token in text for token in tokens.values())


def test_the_rematch_offer_body() -> None:
    """The rematch notice names the new game; the body is the Standard Webhooks shape."""
    notice = rematch_offered("g1", 42, 1, "g2")
    assert json.loads(body(notice, 1_700_000_000_123)) == {
        "type": "game.rematch_offered",
        "timestamp": "2023-11-14T22:13:20.123Z",
        "data": {"game_id": "g1", "version": 42, "turn": None, "seat": 1, "rematch_game_id": "g2"},
    }


async def test_a_commit_carries_the_notices_a_use_case_adds() -> None:
    """The hook for use cases with notices of their own (a rematch offer): Commits.commit's
    ``notices`` go into the outbox with the commit's own."""
    store = MemoryStore()
    core = _core(store)
    created = await core.create_game(CreateGameCommand("scopa", {}, [SeatSpec("a"), SeatSpec("b")]))
    game = created.game_id
    await _outbox(store, game)
    snap = await store.load(game)
    state, meta = rules.load_state(snap.state), GameMeta.load(snap.meta)
    commits = core._seating._commits  # the one write path every use case shares
    offer = rematch_offered(game, snap.version + 1, 0, "g2")
    await commits.commit(game, snap.version, state, meta, 0, [], None, b"", notices=[offer])
    (notice,) = await _outbox(store, game)
    assert notice["type"] == "game.rematch_offered"
    assert notice["data"]["rematch_game_id"] == "g2" and notice["data"]["seat"] == 0
