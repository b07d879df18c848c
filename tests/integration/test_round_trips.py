"""Redis round trips of a play: none to load a game whose latest version the replica knows."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
import redis
from support.redis_server import RedisServer, running_redis_server
from support.server_process import running_replicas

from integration.helpers import (
    create,
    expect_error,
    move_request,
    rid,
    stub_pair,
    tokens_of,
    view,
)
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc

Stubs = tuple[scopa_pb2_grpc.GameServiceStub, scopa_pb2_grpc.GameServiceStub]


@pytest.fixture(scope="module")
def quiet_redis() -> Iterator[RedisServer]:
    """A redis-server of this module's own: no other test's games (or sweeps) reach it."""
    with running_redis_server() as server:
        yield server


@pytest.fixture(scope="module")
def pair(quiet_redis: RedisServer) -> Iterator[Stubs]:
    """Two replicas on it, sweeping once an hour (a sweep would read games too)."""
    env = {"SCOPA_SWEEP_INTERVAL_S": "3600"}
    with (
        running_replicas(quiet_redis.url, env) as (one, two),
        stub_pair([one.target, two.target]) as stubs,
    ):
        yield stubs


def _loads(server: RedisServer) -> int:
    """HMGETs the Redis server has run (a game's load is one)."""
    client = redis.Redis(host=server.host, port=server.port)
    try:
        stats = client.info("commandstats")
    finally:
        client.close()
    return int(stats.get("cmdstat_hmget", {}).get("calls", 0))


def _play(
    stub: scopa_pb2_grpc.GameServiceStub, name: str, token: str, move: pb.LegalMove
) -> pb.PlayCardResponse:
    response: pb.PlayCardResponse = stub.PlayCard(
        move_request(name, move, rid()),
        metadata=(("authorization", f"Bearer {token}"),),
        timeout=10,
    )
    return response


def test_plays_load_only_what_the_replica_does_not_know(
    quiet_redis: RedisServer, pair: Stubs
) -> None:
    """A play loads the game only on a replica that has not seen its latest version; a play on
    a stale known version is decided on the game the failed commit found, without a load."""
    one, two = pair
    created = create(one, "scopa", 2, target=21)  # replica one knows version 1
    name, tokens = created.name, tokens_of(created)
    opening = list(created.view.legal_moves)

    before = _loads(quiet_redis)
    first = _play(two, name, tokens[0], opening[0])  # replica two has never seen the game
    assert _loads(quiet_redis) - before == 1
    assert first.view.version == 2

    before = _loads(quiet_redis)
    expect_error(  # legal on the version replica one knows, not on the game's
        lambda: _play(one, name, tokens[0], opening[-1]),
        grpc.StatusCode.FAILED_PRECONDITION,
        "NOT_YOUR_TURN",
    )
    assert _loads(quiet_redis) - before == 0

    assert view(two, name).version == 2  # the refused play wrote nothing

    answer = view(two, name, tokens[1]).legal_moves[0]
    before = _loads(quiet_redis)
    second = _play(one, name, tokens[1], answer)  # replica one learnt version 2 from the refusal
    assert _loads(quiet_redis) - before == 0

    reply = view(two, name, tokens[0]).legal_moves[0]
    before = _loads(quiet_redis)
    third = _play(one, name, tokens[0], reply)  # replica one wrote version 3 itself
    assert _loads(quiet_redis) - before == 0

    played = [
        (r.events[0].card_played.seat, r.events[0].card_played.card) for r in (first, second, third)
    ]
    assert played == [(0, opening[0].card), (1, answer.card), (0, reply.card)]
    assert (second.view.version, third.view.version, view(two, name).version) == (3, 4, 4)
