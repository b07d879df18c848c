"""An internal fault (a corrupt game in Redis) tells the client nothing and logs no secrets."""

from __future__ import annotations

import json

import grpc
import redis
from support.redis_server import RedisServer
from support.server_process import ServerProcess

from integration.helpers import Stub, auth, create, expect_error, secret_keys, tokens_of
from scopa.storage import game_key
from scopa_client.v1 import scopa_pb2 as pb


def test_corrupt_state_is_internal_and_leaks_nothing(
    stub: Stub, server: ServerProcess, redis_server: RedisServer
) -> None:
    """GetState on a corrupt game is INTERNAL; its logged fault holds no token, state or cards."""
    created = create(stub, "scopa", 2)
    tokens = tokens_of(created)
    game_id = created.name.removeprefix("games/")
    client = redis.Redis.from_url(redis_server.url)
    try:
        client.hset(game_key(game_id), "state", b"\x01not-zlib")
    finally:
        client.close()
    before = len(server.log_records())
    expect_error(
        lambda: stub.GetState(
            pb.GetStateRequest(name=created.name), metadata=auth(tokens[0]), timeout=10
        ),
        grpc.StatusCode.INTERNAL,
        "INTERNAL",
    )
    new = server.log_records()[before:]
    (fault,) = [r for r in new if r.get("event") == "rpc.failed"]
    assert fault["reason"] == "INTERNAL" and "exception" in fault
    text = json.dumps(new)
    for token in tokens.values():
        for part in token.split(".")[-2:]:
            assert part not in text
    assert "not-zlib" not in text
    assert "locals" not in text
    for record in new:
        assert not secret_keys(record), record
