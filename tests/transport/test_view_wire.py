"""Tests of scopa.transport._view_wire: a view and an action's response written field by field
are the bytes of the messages built from the same snapshot (``with_view`` serialized, with its
tail), for every preset's views through a whole game, with a turn clock and presence."""

from __future__ import annotations

import asyncio
import random

import pytest

from scopa import rules
from scopa.app import (
    CoreSettings,
    CreateGameCommand,
    GameCore,
    GameSnapshot,
    GameStatus,
    SeatSpec,
    TokenAuthority,
    VersionedEvent,
)
from scopa.rules import PRESETS
from scopa.storage import MemoryStore, Presence, SeatSeen
from scopa.transport._convert import event_to_pb, events_to_pb, view_tail, with_view
from scopa.transport._view_wire import (
    action_response_wire,
    event_bytes,
    view_wire,
    view_wire_fields,
)
from scopa_client.v1 import scopa_pb2 as pb

_MOVES = 60
"""At most this many actions a game (a game to 1 point ends in its first hand or so)."""


def _with_presence(snapshot: GameSnapshot, n: int) -> GameSnapshot:
    seen = {0: SeatSeen(True, 1_700_000_000_123), n - 1: SeatSeen(False, 1_700_000_000_000)}
    return snapshot.with_presence(Presence(1_700_000_001_500, seen, spectators=2))


def _built_view(snapshot: GameSnapshot) -> bytes:
    message = with_view(pb.GetStateResponse, snapshot, options=False, results=False)
    return message.view.SerializeToString()


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
                assert view_wire(shown) == _built_view(shown), seat
                fields = view_wire_fields(shown, None)
                assert list(fields) == sorted(fields)
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
            message = with_view(
                response, result.snapshot, last, options=False, results=False, events=events
            )
            built = message.SerializeToString() + view_tail(response, result.snapshot.view)
            assert action_response_wire(response, result) == built
            compared += 1
    return compared


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_view_of_a_game_is_written_as_its_message_is(preset: str) -> None:
    compared = sum(asyncio.run(_compare_game(preset, seed)) for seed in (0, 1))
    assert compared > 20


def test_an_events_kept_bytes_are_its_kind_s() -> None:
    """Events are tuples: two kinds with equal fields are equal tuples, yet each is written as
    its own kind (the kept bytes are keyed by kind too)."""
    returned = VersionedEvent(3, rules.AceReturned(card=5))
    resigned = VersionedEvent(3, rules.SeatResigned(seat=5))
    assert returned == resigned  # as tuples
    for event in (returned, resigned, returned):
        assert event_bytes(event) == event_to_pb(event).SerializeToString()
