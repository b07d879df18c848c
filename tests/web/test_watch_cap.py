"""The per-client WatchGame cap on the HTTP port: REST Server-Sent Events and Connect streams."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack

import httpx
import pytest
from connectrpc.code import Code
from connectrpc.compat import google_protobuf_binary_codec
from connectrpc.errors import ConnectError
from google.rpc import error_details_pb2  # type: ignore[import-untyped]
from support.redis_server import RedisServer
from support.server_process import ServerProcess, start_server, stop_server

from scopa_client import ERROR_DOMAIN
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1.scopa_connect import GameServiceClientSync
from web.helpers import check_error, create, play_one, read_events, tokens_of

CAP = 2
PROXY_HEADER = "X-Forwarded-For"


@pytest.fixture(scope="module")
def capped_server(redis_server: RedisServer) -> Iterator[ServerProcess]:
    """A server allowing CAP streams per client, the client named by a trusted proxy header."""
    server = start_server(
        redis_server.url,
        env={"SCOPA_WATCH_PER_CLIENT": str(CAP), "SCOPA_TRUSTED_PROXY_HEADER": PROXY_HEADER},
    )
    try:
        assert server.http_port, server.log_text()
        yield server
    finally:
        stop_server(server)


def _as(client: str) -> dict[str, str]:
    return {PROXY_HEADER: client}


def test_sse_watches_over_the_cap_are_refused(capped_server: ServerProcess) -> None:
    """One client's SSE watch over the cap is 429 TOO_MANY_WATCHES; its open ones keep streaming."""
    with httpx.Client(base_url=capped_server.http_url, timeout=30) as http, ExitStack() as held:
        created = create(http, "scopa", 2)
        name, version = created["name"], created["view"]["version"]
        watch = f"/v1/{name}:watch"
        streams = [
            held.enter_context(http.stream("GET", watch, headers=_as("203.0.113.10")))
            for _ in range(CAP)
        ]
        lines = [stream.iter_lines() for stream in streams]
        for each in lines:
            assert read_events(each, 1)[0], "an admitted stream sent no event"
        with http.stream("GET", watch, headers=_as("203.0.113.10")) as refused:
            assert refused.status_code == 429, "a stream over the cap was admitted"
            refused.read()
        check_error(refused, 429, "TOO_MANY_WATCHES")
        other = http.get("/v1/games/missing:watch", headers=_as("203.0.113.11"))
        check_error(other, 404, "GAME_NOT_FOUND")  # another client is not counted against it
        play_one(http, name, tokens_of(created))
        for each in lines:
            (event,), _ = read_events(each, 1)
            assert event["data"]["version"] == version + 1


def _error_info(error: ConnectError) -> error_details_pb2.ErrorInfo:
    (detail,) = error.details
    assert detail.type_name == "google.rpc.ErrorInfo"
    return error_details_pb2.ErrorInfo.FromString(detail.message_bytes)


def _play_first_move(client: GameServiceClientSync, created: pb.CreateGameResponse) -> None:
    (token,) = [c.token for c in created.credentials if c.seat == created.view.turn]
    bearer = {"authorization": f"Bearer {token}"}
    own = client.get_state(pb.GetStateRequest(name=created.name), headers=bearer).view
    move = own.legal_moves[0]
    capture = pb.CaptureChoice(cards=move.capture)
    client.play_card(
        pb.PlayCardRequest(name=created.name, card=move.card, capture=capture), headers=bearer
    )


def test_connect_watches_over_the_cap_are_refused(capped_server: ServerProcess) -> None:
    """One client's Connect watch over the cap is resource_exhausted with TOO_MANY_WATCHES."""
    with GameServiceClientSync(
        capped_server.http_url, codec=google_protobuf_binary_codec()
    ) as client:
        created = client.create_game(
            pb.CreateGameRequest(preset="scopa", seats=[pb.SeatSpec(), pb.SeatSpec()])
        )
        request = pb.WatchGameRequest(name=created.name)
        held = [iter(client.watch_game(request, headers=_as("203.0.113.20"))) for _ in range(CAP)]
        for stream in held:
            assert next(stream).version == created.view.version
        with pytest.raises(ConnectError) as info:
            next(iter(client.watch_game(request, headers=_as("203.0.113.20"))))
        assert info.value.code is Code.RESOURCE_EXHAUSTED
        error_info = _error_info(info.value)
        assert (error_info.reason, error_info.domain) == ("TOO_MANY_WATCHES", ERROR_DOMAIN)
        other = iter(client.watch_game(request, headers=_as("203.0.113.21")))
        assert next(other).version == created.view.version
        _play_first_move(client, created)
        for stream in held:
            assert next(stream).version == created.view.version + 1
        for stream in (*held, other):
            stream.close()  # type: ignore[attr-defined]
