"""An internal fault (a corrupt game in Redis) tells the client nothing and logs no secrets."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from typing import Any

import grpc
import redis
from support.redis_server import RedisServer
from support.server_process import ServerProcess

from integration.helpers import (
    Stub,
    auth,
    create,
    expect_error,
    move_request,
    rid,
    secret_keys,
    tokens_of,
    view,
)
from scopa import rules
from scopa.storage import events_key, game_key
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


def test_a_game_of_a_newer_format_is_unavailable_and_left_unchanged(
    stub: Stub, server: ServerProcess, redis_server: RedisServer
) -> None:
    """A game whose state a newer release wrote (its format byte above FORMAT_VERSION) is
    UNAVAILABLE / FORMAT_TOO_NEW for GetState and PlayCard, with both formats in the ErrorInfo;
    nothing in the store changes, and the access log names the reason without a fault's trace."""
    created = create(stub, "scopa", 2)
    tokens = tokens_of(created)
    turn = created.view.turn
    move = view(stub, created.name, tokens[turn]).legal_moves[0]
    key = game_key(created.name.removeprefix("games/"))
    client = redis.Redis.from_url(redis_server.url)
    try:
        state = client.hget(key, "state")
        assert state is not None and state[0] == rules.FORMAT_VERSION
        client.hset(key, "state", bytes([rules.FORMAT_VERSION + 1]) + state[1:])
        before = client.hgetall(key)
        before_log = client.lrange(events_key(created.name.removeprefix("games/")), 0, -1)
        records = len(server.log_records())
        formats = {"format": str(rules.FORMAT_VERSION + 1)}
        formats["readable_format"] = str(rules.FORMAT_VERSION)
        for call in (
            lambda: stub.GetState(
                pb.GetStateRequest(name=created.name), metadata=auth(tokens[0]), timeout=10
            ),
            lambda: stub.PlayCard(
                move_request(created.name, move, rid()), metadata=auth(tokens[turn]), timeout=10
            ),
        ):
            expect_error(call, grpc.StatusCode.UNAVAILABLE, "FORMAT_TOO_NEW", **formats)
        assert client.hgetall(key) == before
        assert client.lrange(events_key(created.name.removeprefix("games/")), 0, -1) == before_log
    finally:
        client.close()
    new: list[dict[str, Any]] = []
    logged: list[str] = []
    deadline = time.monotonic() + 10  # the access line is written after the response is sent
    while len(logged) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
        new = server.log_records()[records:]
        logged = [
            r["rpc_method"].rsplit("/", 1)[1] for r in new if r.get("reason") == "FORMAT_TOO_NEW"
        ]
    assert logged == ["GetState", "PlayCard"], new
    assert all("exception" not in r for r in new), new


def test_a_stuck_game_is_failed_precondition_logged_once_and_left_unchanged(
    stub: Stub, server: ServerProcess, redis_server: RedisServer
) -> None:
    """A stored game awaiting a seat with no legal action (a rules-engine fault) is
    FAILED_PRECONDITION / GAME_STUCK for every request on it (reads, plays, a watch stream),
    never INTERNAL nor a hang; the
    store is unchanged and the server logs one game_stuck line naming the game and its version."""
    created = create(stub, "scopa", 2)
    tokens = tokens_of(created)
    game_id = created.name.removeprefix("games/")
    key = game_key(game_id)
    client = redis.Redis.from_url(redis_server.url)
    try:
        blob = client.hget(key, "state")
        assert blob is not None
        state = rules.load_state(blob)
        turn = state.turn
        other = 1 - turn
        seen = view(stub, created.name, tokens[other])
        hands = tuple(() if s == turn else h for s, h in enumerate(state.hands))
        stuck = replace(state, hands=hands, stock=state.stock + state.hands[turn])
        client.hset(key, "state", rules.dump_state(stuck))
        before = client.hgetall(key)
        records = len(server.log_records())
        for call in (
            lambda: stub.GetState(
                pb.GetStateRequest(name=created.name), metadata=auth(tokens[turn]), timeout=10
            ),
            lambda: stub.PlayCard(
                pb.PlayCardRequest(name=created.name, card=seen.hand[0], request_id=rid()),
                metadata=auth(tokens[other]),
                timeout=10,
            ),
            lambda: stub.GetState(pb.GetStateRequest(name=created.name), timeout=10),
            lambda: list(stub.WatchGame(pb.WatchGameRequest(name=created.name), timeout=10)),
        ):
            expect_error(call, grpc.StatusCode.FAILED_PRECONDITION, "GAME_STUCK")
        assert client.hgetall(key) == before
    finally:
        client.close()
    new = server.log_records()[records:]
    (line,) = [r for r in new if r.get("event") == "game_stuck"]
    assert (line["game_id"], line["version"], line["seat"]) == (game_id, seen.version, turn)
    assert all("exception" not in r for r in new), new
