"""Tests of scopa.transport._view_json: a viewed response's JSON written from the snapshot equals
the JSON of the response message built from it (``dumps`` with its options tail), for every
preset's views through a whole game, with a turn clock, presence and hand results."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest
from google.protobuf.message import Message

from scopa.app import (
    CoreSettings,
    CreateGameCommand,
    GameCore,
    GameSnapshot,
    GameStatus,
    SeatSpec,
    TokenAuthority,
)
from scopa.rules import PRESETS
from scopa.storage import MemoryStore, Presence, SeatSeen
from scopa.transport._convert import events_to_pb, view_tail, with_view
from scopa.transport._rest_json import dumps
from scopa.transport._view_json import view_json
from scopa_client.v1 import scopa_pb2 as pb

_MOVES = 60
"""At most this many actions a game (a game to 1 point ends in its first hand or so)."""


def _ordered(text: bytes) -> Any:
    """The JSON with every object's members in order, but the view's options map's (a map's
    order is no part of its JSON; the built message's follows its hash table)."""

    def pairs(items: list[tuple[str, Any]]) -> Any:
        return [(k, sorted(v) if k == "options" else v) for k, v in items]

    return json.loads(text, object_pairs_hook=pairs)


def _built(response: type[Message], snapshot: GameSnapshot, **fields: Any) -> bytes:
    message = with_view(response, snapshot, options=False, results=False, **fields)
    return dumps(message, view_tail(response, snapshot.view))


def _with_presence(snapshot: GameSnapshot, n: int) -> GameSnapshot:
    seen = {0: SeatSeen(True, 1_700_000_000_123), n - 1: SeatSeen(False, 1_700_000_000_000)}
    return snapshot.with_presence(Presence(1_700_000_001_500, seen, spectators=2))


async def _compare_game(preset: str, seed: int) -> int:
    """Play one game of ``preset`` at random, comparing every view and action response; the
    number of responses compared."""
    rng = random.Random(seed)
    core = GameCore(MemoryStore(), TokenAuthority(b"k" * 32), CoreSettings(), random.Random(seed))
    n = min(PRESETS[preset].players)
    options = {"target_score": 1} if seed % 2 else {}
    command = CreateGameCommand(
        preset, options, [SeatSpec(f"p{i}") for i in range(n)], turn_timeout_s=30 * (seed % 2)
    )
    try:
        created = await core.create_game(command)
    except Exception:  # the preset takes no such target: its own default
        command = CreateGameCommand(preset, {}, [SeatSpec(f"p{i}") for i in range(n)])
        created = await core.create_game(command)
    tokens = dict(created.tokens)
    compared = 0
    for _ in range(_MOVES):
        for seat, token in tokens.items():
            snapshot = await core.get_state(created.game_id, token)
            for shown in (snapshot, _with_presence(snapshot, n)):
                written = view_json(pb.GetStateResponse, shown)
                assert _ordered(written) == _ordered(_built(pb.GetStateResponse, shown)), seat
                compared += 1
        snapshot = await core.get_state(created.game_id, tokens[0])
        if snapshot.status is not GameStatus.ACTIVE or snapshot.view.turn < 0:
            break
        turn = snapshot.view.turn
        actions = (await core.get_state(created.game_id, tokens[turn])).view.legal_actions
        if not actions:
            break
        result = await core.take_action(created.game_id, tokens[turn], rng.choice(actions))
        events = events_to_pb(result.events)
        last = events if result.snapshot.last_events is result.events else None
        for response in (pb.TakeActionResponse, pb.PlayCardResponse):
            written = view_json(response, result.snapshot, last, events=events)
            built = _built(response, result.snapshot, last_events=last, events=events)
            assert _ordered(written) == _ordered(built)
            compared += 1
    return compared


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_view_of_a_game_is_written_as_its_message_is(preset: str) -> None:
    compared = sum(asyncio.run(_compare_game(preset, seed)) for seed in (0, 1))
    assert compared > 20
