"""Tests of scopa.transport._view_json: a viewed response's JSON written from the snapshot equals
the JSON of the response message built from it (``dumps`` with its options tail), for every
preset's views through a whole game, with a turn clock, presence and hand results."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from google.protobuf.message import Message
from support.view_games import walk_game

from scopa.app import GameSnapshot, PlayResult
from scopa.rules import PRESETS
from scopa.transport._convert import events_to_pb, view_tail, with_view
from scopa.transport._rest_json import dumps
from scopa.transport._view_json import view_json
from scopa_client.v1 import scopa_pb2 as pb


def _ordered(text: bytes) -> Any:
    """The JSON with every object's members in order, but the view's options map's (a map's
    order is no part of its JSON; the built message's follows its hash table)."""

    def pairs(items: list[tuple[str, Any]]) -> Any:
        return [(k, sorted(v) if k == "options" else v) for k, v in items]

    return json.loads(text, object_pairs_hook=pairs)


def _built(response: type[Message], snapshot: GameSnapshot, **fields: Any) -> bytes:
    message = with_view(response, snapshot, options=False, results=False, **fields)
    return dumps(message, view_tail(response, snapshot.view))


def _check_view(shown: GameSnapshot) -> None:
    written = view_json(pb.GetStateResponse, shown)
    assert _ordered(written) == _ordered(_built(pb.GetStateResponse, shown))


def _check_action(result: PlayResult) -> None:
    events = events_to_pb(result.events)
    last = events if result.snapshot.last_events is result.events else None
    for response in (pb.TakeActionResponse, pb.PlayCardResponse):
        written = view_json(response, result.snapshot, last, events=events)
        built = _built(response, result.snapshot, last_events=last, events=events)
        assert _ordered(written) == _ordered(built)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_view_of_a_game_is_written_as_its_message_is(preset: str) -> None:
    compared = sum(
        asyncio.run(walk_game(preset, seed, _check_view, _check_action)) for seed in (0, 1)
    )
    assert compared > 20
