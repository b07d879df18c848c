"""Tests of scopa.transport._rest_json: the fast proto3 JSON mapping equals json_format's."""

from __future__ import annotations

import asyncio
import json
import math
import random

import pytest
from google.protobuf import json_format, struct_pb2, wrappers_pb2
from google.protobuf.message import Message

from scopa.app import CoreSettings, GameCore, TokenAuthority
from scopa.storage import open_store
from scopa.transport import GameCalls
from scopa.transport._rest_json import FastJsonCodec, dumps, to_json_dict
from scopa_client.v1 import scopa_pb2 as pb


def _reference(message: Message) -> object:
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)


async def _game_messages(preset: str, players: int) -> list[Message]:
    """Every response of a whole game (one seat's view per move) and the rulesets."""
    calls = GameCalls(GameCore(open_store(None), TokenAuthority(b"k" * 32), CoreSettings()))
    created = await calls.create_game(
        pb.CreateGameRequest(
            preset=preset,
            seats=[pb.SeatSpec(display_name=f"p{i}") for i in range(players)],
            options={"target_score": pb.OptionValue(int_value=1)},
        ),
        None,
    )
    tokens = {c.seat: c.token for c in created.credentials}
    messages: list[Message] = [await calls.list_rulesets(pb.ListRulesetsRequest(), None), created]
    view, rng = created.view, random.Random(players)
    while view.status != pb.GAME_STATUS_FINISHED:
        own = await calls.get_state(pb.GetStateRequest(name=created.name), tokens[view.turn])
        move = rng.choice(list(own.view.legal_moves))
        played = await calls.play_card(
            pb.PlayCardRequest(
                name=created.name, card=move.card, capture=pb.CaptureChoice(cards=move.capture)
            ),
            tokens[view.turn],
        )
        messages += [own, played]
        view = played.view
    return messages


@pytest.mark.parametrize(("preset", "players"), [("scopa", 2), ("scopone", 4), ("scopa3", 3)])
def test_every_response_of_a_game_maps_like_json_format(preset: str, players: int) -> None:
    """Each response of whole games converts exactly as json_format (defaults included) does."""
    messages = asyncio.run(_game_messages(preset, players))
    assert len(messages) > 20
    for message in messages:
        assert to_json_dict(message) == _reference(message), type(message).__name__


def test_scalar_kinds_presence_and_special_values() -> None:
    """Unset optional fields are absent, zero scalars present, enums by name or number."""
    view = pb.GameView(name="games/x", status=pb.GAME_STATUS_ACTIVE)
    assert to_json_dict(view) == _reference(view)
    assert "seat" not in to_json_dict(view) and to_json_dict(view)["stockSize"] == 0
    view.seat = 0
    assert to_json_dict(view)["seat"] == 0
    line = pb.ScoreLine(name="x", values=[1.5, math.inf, -math.inf])
    assert to_json_dict(line) == _reference(line)
    assert to_json_dict(pb.Card(suit=99, rank=1))["suit"] == 99  # type: ignore[arg-type]


def test_well_known_types_are_left_to_json_format() -> None:
    """google.protobuf messages keep their special JSON forms."""
    for message in (wrappers_pb2.BytesValue(value=b"\x00\x01"), struct_pb2.Value(number_value=2)):
        assert to_json_dict(message) == _reference(message)


def test_codec_round_trips_connect_json() -> None:
    """The Connect codec writes compact JSON that json_format reads back to the same message."""
    request = pb.PlayCardRequest(name="games/g", card=pb.Card(suit=pb.SUIT_SPADE, rank=7))
    encoded = FastJsonCodec[pb.PlayCardRequest]().encode(request)
    assert encoded == dumps(request) and b" " not in encoded
    assert json.loads(encoded) == _reference(request)
    assert FastJsonCodec[pb.PlayCardRequest]().decode(encoded, pb.PlayCardRequest) == request
