"""Connect (JSON, binary) and gRPC-Web on the HTTP port, through the generated connectrpc client."""

from __future__ import annotations

import base64
import gzip
import json
import random
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from connectrpc.code import Code
from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec
from connectrpc.compression.gzip import GzipCompression
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from google.protobuf import json_format
from google.rpc import error_details_pb2  # type: ignore[import-untyped]
from isal import igzip
from support.server_process import ServerProcess

from scopa_client import ERROR_DOMAIN
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1.scopa_connect import GameServiceClientSync


@pytest.fixture
def connect_json(http_server: ServerProcess) -> Iterator[GameServiceClientSync]:
    """A Connect client speaking JSON over HTTP/1.1."""
    with GameServiceClientSync(http_server.http_url, codec=google_protobuf_json_codec()) as client:
        yield client


_EVERY_CODEC = pytest.mark.parametrize(
    ("protocol", "codec"),
    [
        (ProtocolType.CONNECT, google_protobuf_json_codec()),
        (ProtocolType.CONNECT, google_protobuf_binary_codec()),
        (ProtocolType.GRPC_WEB, google_protobuf_binary_codec()),
    ],
    ids=["connect-json", "connect-binary", "grpc-web"],
)
"""Each protocol and codec of the HTTP port's Connect routes."""


def _bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def _error_info(error: ConnectError) -> error_details_pb2.ErrorInfo:
    (detail,) = error.details
    assert detail.type_name == "google.rpc.ErrorInfo"
    return error_details_pb2.ErrorInfo.FromString(detail.message_bytes)


def test_connect_json_plays_a_full_game(connect_json: GameServiceClientSync) -> None:
    """A two-seat game played to the end over Connect JSON, the views read with Connect GET."""
    rng = random.Random(3)
    created = connect_json.create_game(
        pb.CreateGameRequest(
            preset="scopa",
            seats=[pb.SeatSpec(display_name="a"), pb.SeatSpec(display_name="b")],
            options={"target_score": pb.OptionValue(int_value=1)},
            request_id=uuid.uuid4().hex,
        )
    )
    tokens = {c.seat: c.token for c in created.credentials}
    view = created.view
    for _ in range(2000):
        if view.status == pb.GAME_STATUS_FINISHED:
            break
        own = connect_json.get_state(
            pb.GetStateRequest(name=created.name), headers=_bearer(tokens[view.turn]), use_get=True
        ).view
        move = rng.choice(own.legal_moves)
        view = connect_json.play_card(
            pb.PlayCardRequest(
                name=created.name,
                card=move.card,
                capture=pb.CaptureChoice(cards=move.capture),
                etag=own.etag,
                request_id=uuid.uuid4().hex,
            ),
            headers=_bearer(tokens[view.turn]),
        ).view
    assert view.status == pb.GAME_STATUS_FINISHED and view.winners


def test_connect_errors_carry_the_error_info(connect_json: GameServiceClientSync) -> None:
    """A Connect error has the gRPC code and the same ErrorInfo reason and domain."""
    with pytest.raises(ConnectError) as info:
        connect_json.get_state(pb.GetStateRequest(name="games/missing"))
    assert info.value.code is Code.NOT_FOUND
    error_info = _error_info(info.value)
    assert (error_info.reason, error_info.domain) == ("GAME_NOT_FOUND", ERROR_DOMAIN)


@pytest.mark.parametrize("protocol", [ProtocolType.CONNECT, ProtocolType.GRPC_WEB])
def test_binary_connect_and_grpc_web_stream_a_watch(
    http_server: ServerProcess, protocol: ProtocolType
) -> None:
    """WatchGame streams over HTTP/1.1 in binary Connect and gRPC-Web; errors keep their reason."""
    with GameServiceClientSync(
        http_server.http_url, codec=google_protobuf_binary_codec(), protocol=protocol
    ) as client:
        created = client.create_game(
            pb.CreateGameRequest(preset="scopa", seats=[pb.SeatSpec(), pb.SeatSpec()])
        )
        first = next(iter(client.watch_game(pb.WatchGameRequest(name=created.name))))
        assert first.version == created.view.version and first.view.name == created.name
        with pytest.raises(ConnectError) as info:
            client.play_card(pb.PlayCardRequest(name=created.name, card=created.view.table[0]))
        assert info.value.code is Code.UNAUTHENTICATED
        assert _error_info(info.value).reason == "UNAUTHENTICATED"


@_EVERY_CODEC
@pytest.mark.parametrize("gzip", [True, False], ids=["gzip", "identity"])
def test_a_request_over_the_size_limit_is_request_too_large_with_error_info(
    http_server: ServerProcess, protocol: ProtocolType, codec: Any, gzip: bool
) -> None:
    """A unary call or a stream whose request is over the limit (compressed or not, so
    inflated or as sent) is INVALID_ARGUMENT / REQUEST_TOO_LARGE with its ErrorInfo."""
    huge = "x" * 100_000  # over the default 64 KiB
    compression = GzipCompression() if gzip else None
    with GameServiceClientSync(
        http_server.http_url, codec=codec, protocol=protocol, send_compression=compression
    ) as client:
        with pytest.raises(ConnectError) as unary:
            client.create_game(pb.CreateGameRequest(preset=huge))
        with pytest.raises(ConnectError) as stream:
            next(iter(client.watch_game(pb.WatchGameRequest(name=f"games/{huge}"))))
    for error in (unary.value, stream.value):
        assert error.code is Code.INVALID_ARGUMENT, error
        info = _error_info(error)
        assert (info.reason, info.domain) == ("REQUEST_TOO_LARGE", ERROR_DOMAIN)
        assert int(info.metadata["limit_bytes"]) == 65536


@pytest.mark.parametrize(
    "codec",
    [google_protobuf_json_codec(), google_protobuf_binary_codec()],
    ids=["connect-json", "connect-binary"],
)
def test_a_build_with_a_garbage_onto_list_is_invalid_argument_and_changes_nothing(
    http_server: ServerProcess, codec: Any
) -> None:
    """A fattoria build whose onto list is empty, repeats a card or holds no card (no suit, rank
    14, copy 2, an unknown suit number) is INVALID_ARGUMENT naming the field; the game stays."""
    with GameServiceClientSync(http_server.http_url, codec=codec) as client:
        created = client.create_game(
            pb.CreateGameRequest(
                preset="fattoria",
                seats=[pb.SeatSpec(display_name="a"), pb.SeatSpec(display_name="b")],
            )
        )
        token = {c.seat: c.token for c in created.credentials}[created.view.turn]
        before = client.get_state(pb.GetStateRequest(name=created.name), headers=_bearer(token))
        own, loose = before.view.hand[0], before.view.table[0]
        garbage = {
            "action.build.onto": [[], [loose, loose]],
            "action.build.onto[0].suit": [[pb.Card(rank=3)], [pb.Card(suit=99, rank=3)]],  # type: ignore[arg-type]
            "action.build.onto[1].rank": [[loose, pb.Card(suit=pb.SUIT_SPADE, rank=14)]],
            "action.build.onto[0].copy": [[pb.Card(suit=pb.SUIT_SPADE, rank=3, copy=2)]],
        }
        for field, ontos in garbage.items():
            for onto in ontos:
                build = pb.BuildAction(card=own, onto=onto, value=7)
                with pytest.raises(ConnectError) as info:
                    client.take_action(
                        pb.TakeActionRequest(
                            name=created.name,
                            action=pb.Action(build=build),
                            request_id=uuid.uuid4().hex,
                        ),
                        headers=_bearer(token),
                    )
                assert info.value.code is Code.INVALID_ARGUMENT, (field, info.value)
                error = _error_info(info.value)
                assert (error.reason, error.domain) == ("INVALID_ARGUMENT", ERROR_DOMAIN)
                assert dict(error.metadata) == {"field": field}, onto
        after = client.get_state(pb.GetStateRequest(name=created.name), headers=_bearer(token))
    assert after.view == before.view


def _delimited(number: int, payload: bytes) -> bytes:
    assert len(payload) < 128
    return bytes([number << 3 | 2, len(payload)]) + payload


def test_a_build_whose_onto_does_not_parse_is_malformed_request_over_connect(
    http_server: ServerProcess, client: httpx.Client
) -> None:
    """A TakeAction whose build's onto does not parse (binary: a card cut short mid-field or
    longer than its bytes; JSON: a string, a number, a rank in words), or whose JSON is not
    UTF-8, names a field twice or starts with a byte order mark, is 400 invalid_argument with a
    MALFORMED_REQUEST ErrorInfo; the game stays."""
    with GameServiceClientSync(
        http_server.http_url, codec=google_protobuf_binary_codec()
    ) as connect:
        created = connect.create_game(
            pb.CreateGameRequest(preset="fattoria", seats=[pb.SeatSpec(), pb.SeatSpec()])
        )
        token = {c.seat: c.token for c in created.credentials}[created.view.turn]
        before = connect.get_state(pb.GetStateRequest(name=created.name), headers=_bearer(token))
    own = before.view.hand[0]
    bodies: list[tuple[str, bytes]] = []
    for onto in (b"\x08", b"\x10\x03\x08", b"\x12\x05\x08\x01"):  # cut short; too long
        build = _delimited(1, own.SerializeToString()) + _delimited(2, onto) + b"\x18\x07"
        body = _delimited(1, created.name.encode()) + _delimited(2, _delimited(6, build))
        bodies.append(("application/proto", body))
    card = json_format.MessageToDict(own)
    for onto_json in ("x", 7, [{"suit": "SUIT_SPADE", "rank": "three"}]):
        action = {"build": {"card": card, "onto": onto_json, "value": 7}}
        body = json.dumps({"name": created.name, "action": action}).encode()
        bodies.append(("application/json", body))
    # JSON the request decoder refuses: not UTF-8, a name given twice, a byte order mark.
    name = json.dumps(created.name).encode()
    for raw in (
        b'{"name":"\xff"}',
        b'{"name":' + name + b',"name":' + name + b"}",
        b"\xef\xbb\xbf{}",
    ):
        bodies.append(("application/json", raw))
    for content_type, body in bodies:
        response = client.post(
            "/scopa.v1.GameService/TakeAction",
            content=body,
            headers={"content-type": content_type, **_bearer(token)},
        )
        assert response.status_code == 400, response.text
        error = response.json()
        assert error["code"] == "invalid_argument", error
        (detail,) = error["details"]
        assert detail["type"] == "google.rpc.ErrorInfo"
        info = error_details_pb2.ErrorInfo.FromString(
            base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
        )
        assert (info.reason, info.domain) == ("MALFORMED_REQUEST", ERROR_DOMAIN), body
    with GameServiceClientSync(http_server.http_url) as connect:
        after = connect.get_state(pb.GetStateRequest(name=created.name), headers=_bearer(token))
    assert after.view == before.view


@_EVERY_CODEC
def test_views_carry_the_whole_options_map_and_deck_size(
    http_server: ServerProcess, protocol: ProtocolType, codec: Any
) -> None:
    """GetState, PlayCard and WatchGame views hold the game's options and deck size, as
    CreateGame's view does (the server appends them as a tail on every codec)."""
    with GameServiceClientSync(http_server.http_url, codec=codec, protocol=protocol) as client:
        created = client.create_game(
            pb.CreateGameRequest(
                preset="scopa",
                seats=[pb.SeatSpec(), pb.SeatSpec()],
                options={"target_score": pb.OptionValue(int_value=1)},
            )
        )
        options = dict(created.view.options)
        assert options["target_score"].int_value == 1 and created.view.deck_size == 40
        token = _bearer({c.seat: c.token for c in created.credentials}[created.view.turn])
        own = client.get_state(pb.GetStateRequest(name=created.name), headers=token).view
        move = own.legal_moves[0]
        played = client.play_card(
            pb.PlayCardRequest(
                name=created.name, card=move.card, capture=pb.CaptureChoice(cards=move.capture)
            ),
            headers=token,
        ).view
        watched = next(iter(client.watch_game(pb.WatchGameRequest(name=created.name)))).view
    for view in (own, played, watched):
        assert dict(view.options) == options and view.deck_size == 40


def test_a_client_that_accepts_gzip_gets_isal_level_1(http_server: ServerProcess) -> None:
    """A Connect answer to a client that accepts gzip is gzip written by ISA-L at its level 1
    (the same bytes as igzip's, the header's time aside; zlib's levels write others), and reads
    back as the answer."""
    with httpx.stream(
        "POST",
        f"{http_server.http_url}/scopa.v1.GameService/CreateGame",
        json={"preset": "scopa", "seats": [{"displayName": "a"}, {"displayName": "b"}]},
        headers={"Accept-Encoding": "gzip"},
    ) as answer:
        raw = b"".join(answer.iter_raw())
    assert answer.status_code == 200 and answer.headers["content-encoding"] == "gzip"
    body = gzip.decompress(raw)
    assert json.loads(body)["view"]["preset"] == "scopa"
    isal = igzip.compress(body, compresslevel=1)
    assert raw[:4] + raw[8:] == isal[:4] + isal[8:]
    for level in (1, 6):
        zlib_gzip = gzip.compress(body, compresslevel=level)
        assert raw[10:] != zlib_gzip[10:], level
