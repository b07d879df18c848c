"""Tests of scopa.transport._connect's codecs: a request decoded from JSON gets its answer
written as JSON already (no response message built), a binary one the response message."""

from __future__ import annotations

from typing import Any

import pytest
from connectrpc.compat import google_protobuf_binary_codec
from google.protobuf import json_format
from support.games import make_core, two_seat_game

from scopa.app import GameCore
from scopa.transport._calls import Encoded, GameCalls, JsonOnly
from scopa.transport._connect import ConnectGameService, _json_tailed, _LimitedCodec
from scopa.transport._convert import card_to_pb
from scopa.transport._rest_json import FastJsonCodec
from scopa_client.v1 import scopa_pb2 as pb

pytestmark = pytest.mark.asyncio(loop_scope="session")

_LIMIT = 1 << 16


class _Headers(dict[str, str]):
    def getall(self, name: str) -> list[str]:
        return [self[name]] if name in self else []


class _Context:
    """A request context as ConnectGameService reads it: the bearer token's header."""

    def __init__(self, token: str) -> None:
        self.request_headers = _Headers({"authorization": f"Bearer {token}"})


async def _next_play(core: GameCore, game_id: str, tokens: dict[int, str]) -> tuple[Any, str]:
    """The seat to play's first legal move as a PlayCardRequest, and that seat's token."""
    seat = (await core.get_state(game_id, None)).view.turn
    move = (await core.get_state(game_id, tokens[seat])).view.legal_moves[0]
    capture = pb.CaptureChoice(cards=[card_to_pb(c) for c in move.capture or ()])
    request = pb.PlayCardRequest(
        name=f"games/{game_id}", card=card_to_pb(move.card), capture=capture
    )
    return request, tokens[seat]


async def test_a_json_request_gets_json_written_from_the_view_a_binary_one_the_message() -> None:
    core = make_core()
    service = ConnectGameService(GameCalls(core, options_tail=True))
    created, tokens = await two_seat_game(core)
    game = created.game_id
    version = created.snapshot.version

    as_json = _LimitedCodec(FastJsonCodec(), _LIMIT, _json_tailed)
    request, token = await _next_play(core, game, tokens)
    decoded = as_json.decode(json_format.MessageToJson(request).encode(), pb.PlayCardRequest)
    response = await service.play_card(decoded, _Context(token))  # type: ignore[arg-type]
    assert isinstance(response, JsonOnly)
    data = as_json.encode(response)
    assert data == response.body
    answer = json_format.Parse(data, pb.PlayCardResponse())
    assert answer.view.version == version + 1
    assert answer.view.options and answer.view.deck_size == 40  # the whole view

    binary = _LimitedCodec(google_protobuf_binary_codec(), _LIMIT, Encoded.serialize)
    request, token = await _next_play(core, game, tokens)
    decoded = binary.decode(request.SerializeToString(), pb.PlayCardRequest)
    response = await service.play_card(decoded, _Context(token))
    assert not isinstance(response, JsonOnly)
    answer = pb.PlayCardResponse.FromString(binary.encode(response))
    assert answer.view.version == version + 2
    assert answer.view.options and answer.view.deck_size == 40
