"""Rate limits on CreateGame and JoinGame, shared by two server processes through real Redis."""

from __future__ import annotations

import math
from collections.abc import Iterator

import grpc
import httpx
import pytest
from integration.helpers import create
from support.redis_server import RedisServer
from support.server_process import ServerProcess, running_replicas

from faults.input_helpers import assert_clean_log, reason_of
from scopa_client import retry_delay
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc

LIMITS = {
    "SCOPA_RATE_LIMIT_CREATE_GAME": "4/minute",
    "SCOPA_RATE_LIMIT_JOIN_GAME": "3/minute",
    "SCOPA_TRUSTED_PROXY_HEADER": "x-forwarded-for",
}


@pytest.fixture(scope="module")
def pair(redis_server: RedisServer) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """Two server processes with small limits on the session's Redis."""
    with running_replicas(redis_server.url, env=LIMITS) as servers:
        yield servers


def forwarded(address: str) -> tuple[tuple[str, str], ...]:
    """Metadata as an ingress would add it for a client at ``address``."""
    return (("x-forwarded-for", f"198.51.100.200, {address}"),)


def create_as(stub: scopa_pb2_grpc.GameServiceStub, address: str) -> pb.CreateGameResponse:
    """CreateGame as the client ``address`` (behind the trusted proxy)."""
    request = pb.CreateGameRequest(
        preset="scopa",
        seats=[pb.SeatSpec(display_name="a"), pb.SeatSpec(open=True)],
    )
    response: pb.CreateGameResponse = stub.CreateGame(
        request, metadata=forwarded(address), timeout=10
    )
    return response


def test_create_game_limit_is_shared_by_replicas(
    pair: tuple[ServerProcess, ServerProcess],
) -> None:
    """4 creates a minute per client across both replicas; the 5th gets RATE_LIMITED + delay."""
    with (
        grpc.insecure_channel(pair[0].target) as one,
        grpc.insecure_channel(pair[1].target) as two,
    ):
        stubs = [scopa_pb2_grpc.GameServiceStub(one), scopa_pb2_grpc.GameServiceStub(two)]
        for i in range(4):
            create_as(stubs[i % 2], "203.0.113.10")
        for stub in stubs:
            with pytest.raises(grpc.RpcError) as err:
                create_as(stub, "203.0.113.10")
            assert err.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
            assert reason_of(err.value) == "RATE_LIMITED"
            delay = retry_delay(err.value)
            assert delay is not None and 0 < delay.total_seconds() <= 60
        create_as(stubs[0], "203.0.113.11")  # another client behind the same proxy
    for server in pair:
        assert_clean_log(server)


def test_rest_429_says_when_to_retry_in_retry_after(
    pair: tuple[ServerProcess, ServerProcess],
) -> None:
    """Over REST the 5th create is 429 with a Retry-After header matching its RetryInfo."""
    body = {"preset": "scopa", "seats": [{"displayName": "a"}, {"open": True}]}
    headers = {"x-forwarded-for": "198.51.100.200, 203.0.113.20"}
    with httpx.Client(base_url=pair[0].http_url, headers=headers, timeout=10) as http:
        for _ in range(4):
            assert http.post("/v1/games", json=body).status_code == 200
        refused = http.post("/v1/games", json=body)
    assert refused.status_code == 429
    delay = float(refused.json()["error"]["details"][1]["retryDelay"].rstrip("s"))
    assert refused.headers["retry-after"] == str(math.ceil(delay))
    assert 0 < int(refused.headers["retry-after"]) <= 60


def test_join_game_limit_counts_attempts(pair: tuple[ServerProcess, ServerProcess]) -> None:
    """Wrong invite codes count too: the 4th JoinGame in a minute is RATE_LIMITED."""
    with grpc.insecure_channel(pair[0].target) as channel:
        stub = scopa_pb2_grpc.GameServiceStub(channel)
        game = create(stub)
        request = pb.JoinGameRequest(name=game.name, invite_code="guess")
        for _ in range(3):
            with pytest.raises(grpc.RpcError) as err:
                stub.JoinGame(request, metadata=forwarded("203.0.113.20"), timeout=10)
            assert reason_of(err.value) == "INVITE_INVALID"
        with pytest.raises(grpc.RpcError) as err:
            stub.JoinGame(request, metadata=forwarded("203.0.113.20"), timeout=10)
        assert err.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert reason_of(err.value) == "RATE_LIMITED"
