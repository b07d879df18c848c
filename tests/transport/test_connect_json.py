"""Tests of scopa.transport._connect's codecs: a request decoded from JSON gets its answer
written as JSON already (no response message built), a binary one the response message."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from connectrpc.compat import google_protobuf_binary_codec
from google.protobuf import json_format
from support.games import make_core, two_seat_game

from scopa.app import GameCore
from scopa.transport._calls import Encoded, GameCalls, JsonOnly, WireOnly
from scopa.transport._connect import ConnectGameService, _json_tailed, _LimitedCodec, connect_app
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
    assert isinstance(response, WireOnly)  # written already, no message built
    assert binary.encode(response) == response.body
    answer = pb.PlayCardResponse.FromString(response.body)
    assert answer.view.version == version + 2
    assert answer.view.options and answer.view.deck_size == 40


class _CountingCalls(GameCalls):
    """GameCalls counting PlayCard's three methods: the message one, the JSON-only one and the
    wire-only one."""

    messages = 0
    json_only = 0
    wire_only = 0

    async def play_card(self, request: pb.PlayCardRequest, token: str | None) -> Any:
        self.messages += 1
        return await super().play_card(request, token)

    async def play_card_json(self, request: pb.PlayCardRequest, token: str | None) -> JsonOnly:
        self.json_only += 1
        return await super().play_card_json(request, token)

    async def play_card_wire(self, request: pb.PlayCardRequest, token: str | None) -> WireOnly:
        self.wire_only += 1
        return await super().play_card_wire(request, token)


async def test_through_connectrpc_a_play_takes_the_method_of_its_codec() -> None:
    """The whole Connect application in process: the codec's note that it decoded JSON (or
    binary) reaches the method (connectrpc decodes in the request's task), so no response
    message is built: a JSON play takes the JSON-only method, a binary one the wire-only one.
    Both answers show the move."""
    core = make_core()
    calls = _CountingCalls(core, options_tail=True)
    app = connect_app(calls, _LIMIT)
    created, tokens = await two_seat_game(core)
    transport = httpx.ASGITransport(app=app)
    url = "/scopa.v1.GameService/PlayCard"
    async with httpx.AsyncClient(transport=transport, base_url="http://scopa") as http:
        request, token = await _next_play(core, created.game_id, tokens)
        auth = {"authorization": f"Bearer {token}"}
        body = json_format.MessageToJson(request)
        json_headers = {**auth, "content-type": "application/json"}
        answer = await http.post(url, content=body, headers=json_headers)
        assert answer.status_code == 200, answer.text
        played = json_format.Parse(answer.content, pb.PlayCardResponse())
        assert played.view.version == created.snapshot.version + 1
        assert (calls.json_only, calls.wire_only, calls.messages) == (1, 0, 0)
        request, token = await _next_play(core, created.game_id, tokens)
        proto_headers = {"authorization": f"Bearer {token}", "content-type": "application/proto"}
        answer = await http.post(url, content=request.SerializeToString(), headers=proto_headers)
        assert answer.status_code == 200, answer.text
        assert (
            pb.PlayCardResponse.FromString(answer.content).view.version == played.view.version + 1
        )
        assert (calls.json_only, calls.wire_only, calls.messages) == (1, 1, 0)
