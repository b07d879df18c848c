"""An internal fault (a corrupt game in Redis) tells the client nothing and logs no secrets."""

from __future__ import annotations

import grpc
import redis
from support.redis_server import RedisServer
from support.server_process import ServerProcess

from integration.helpers import Stub, auth, create, expect_error, tokens_of, view
from scopa.storage import game_key
from scopa_client.v1 import scopa_pb2 as pb


def test_corrupt_state_is_internal_and_leaks_nothing(
    stub: Stub, server: ServerProcess, redis_server: RedisServer
) -> None:
    """GetState on a corrupt game is INTERNAL "internal error"; the log keeps no token or hand."""
    created = create(stub, "scopa", 2)
    tokens = tokens_of(created)
    hand = view(stub, created.name, tokens[0]).hand
    game_id = created.name.removeprefix("games/")
    client = redis.Redis.from_url(redis_server.url)
    try:
        client.hset(game_key(game_id), "state", b"\x01not-zlib")
    finally:
        client.close()
    expect_error(
        lambda: stub.GetState(
            pb.GetStateRequest(name=created.name), metadata=auth(tokens[0]), timeout=10
        ),
        grpc.StatusCode.INTERNAL,
        "INTERNAL",
    )
    log = server.log_text()
    assert "rpc.failed" in log, "the fault is logged server-side"
    for token in tokens.values():
        for part in token.split(".")[-2:]:
            assert part not in log
    assert "not-zlib" not in log
    assert hand  # the seat had cards, none of which may be described in the log
    for record in server.log_records():
        assert "locals" not in str(record)
