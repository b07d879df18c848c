"""Faults while a variant's game waits on an action: a fidasse claim awaiting its answer, a
fattoria farm on the table awaiting its raise (integration.helpers.pending).

Redis stalled during the action, the replica holding its call SIGKILLed, and SIGTERM while a
WatchGame stream waits on it: the action is applied once (its request_id retried to the first
response), the game's state survives on the other replica and the game plays to its end.
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import grpc
import pytest
from integration.helpers import (
    PENDING_KINDS,
    Pending,
    auth,
    fidasse_action,
    pending,
    rid,
    settled,
    view,
)
from support.redis_server import RedisServer
from support.server_process import ServerProcess

from faults.conftest import StartServers
from faults.input_helpers import assert_clean_log, reason_of
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc

Stub = scopa_pb2_grpc.GameServiceStub
TIMEOUT_S = 30.0
UNCERTAIN = frozenset({"OUTCOME_UNKNOWN", "STORAGE_UNAVAILABLE"})


@contextmanager
def stubs_of(*targets: str) -> Iterator[list[Stub]]:
    """One blocking stub per target, on channels closed at the end."""
    channels = [grpc.insecure_channel(t) for t in targets]
    try:
        yield [scopa_pb2_grpc.GameServiceStub(c) for c in channels]
    finally:
        for channel in channels:
            channel.close()


@contextmanager
def stopped(redis: RedisServer) -> Iterator[None]:
    """Redis stopped (SIGSTOP) for the block, resumed however it ends."""
    os.kill(redis.process.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(redis.process.pid, signal.SIGCONT)


def no_traceback(server: ServerProcess) -> None:
    """No traceback and no exception record in the log (a fault's access lines may be errors)."""
    assert "Traceback" not in server.log_text(), server.log_text()[-3000:]
    assert not [r for r in server.log_records() if "exception" in r]


def request_of(game: Pending) -> pb.TakeActionRequest:
    """The pending action as a TakeAction with a fresh request_id."""
    return pb.TakeActionRequest(name=game.name, action=game.action, request_id=rid())


def in_flight(stub: Stub, game: Pending, request: pb.TakeActionRequest) -> dict[str, Any]:
    """Send ``request`` from a thread; the dict gets its "reply" or "error" when it ends."""
    result: dict[str, Any] = {}

    def call() -> None:
        try:
            result["reply"] = stub.TakeAction(
                request, metadata=auth(game.tokens[game.seat]), timeout=TIMEOUT_S
            )
        except grpc.RpcError as exc:
            result["error"] = exc

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    result["thread"] = thread
    return result


def retried(stub: Stub, game: Pending, request: pb.TakeActionRequest) -> pb.TakeActionResponse:
    """``request`` retried (same request_id) until a definitive answer, which must be OK."""
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        try:
            reply: pb.TakeActionResponse = stub.TakeAction(
                request, metadata=auth(game.tokens[game.seat]), timeout=10
            )
            return reply
        except grpc.RpcError as exc:
            assert reason_of(exc) in UNCERTAIN, exc
            assert time.monotonic() < deadline, exc
            time.sleep(0.1)


def applied_once(
    stubs: list[Stub], game: Pending, kind: str, request: pb.TakeActionRequest
) -> None:
    """The action settled once: every retry on every stub returns the same bytes, the version
    does not move, and the game then plays to its end."""
    first = retried(stubs[0], game, request)
    assert settled(kind, first.events), first.events
    version = view(stubs[-1], game.name).version
    assert version > game.version
    for stub in stubs:
        again = retried(stub, game, request)
        assert again.SerializeToString(deterministic=True) == first.SerializeToString(
            deterministic=True
        )
    assert view(stubs[0], game.name).version == version
    play_to_end(stubs, game)


def play_to_end(stubs: list[Stub], game: Pending) -> None:
    """Random legal actions (fidasse_action: no more claims) on alternating stubs to the end."""
    rng = random.Random(7)
    for step in range(500):
        stub = stubs[step % len(stubs)]
        spectator = view(stub, game.name)
        if spectator.status == pb.GAME_STATUS_FINISHED:
            return
        token = game.tokens[spectator.turn]
        action = fidasse_action(view(stub, game.name, token), rng, claim_rate=0.0)
        stub.TakeAction(
            pb.TakeActionRequest(name=game.name, action=action, request_id=rid()),
            metadata=auth(token),
            timeout=10,
        )
    raise AssertionError("the game does not end")


@pytest.mark.parametrize("kind", PENDING_KINDS)
def test_redis_stalled_during_the_pending_action(
    start_servers: StartServers, own_redis: list[RedisServer], kind: str
) -> None:
    """With Redis stopped past SCOPA_REDIS_TIMEOUT_S, the answer or raise is OUTCOME_UNKNOWN or
    STORAGE_UNAVAILABLE; once it resumes its retried request_id settles it once, on both
    replicas, and the game goes on to its end."""
    servers = start_servers(2)
    with stubs_of(*(s.target for s in servers)) as stubs:
        game = pending(stubs[0], kind)
        request = request_of(game)
        with stopped(own_redis[0]):
            call = in_flight(stubs[0], game, request)
            call["thread"].join(TIMEOUT_S)
        assert "error" in call, call
        assert reason_of(call["error"]) in UNCERTAIN, call["error"]
        applied_once(stubs, game, kind, request)
    for server in servers:
        no_traceback(server)


@pytest.mark.parametrize("kind", PENDING_KINDS)
def test_replica_killed_with_the_pending_action_in_flight(
    start_servers: StartServers, own_redis: list[RedisServer], kind: str
) -> None:
    """The replica holding the answer or raise (Redis stopped, so the call waits) is SIGKILLed:
    the call fails UNAVAILABLE, and the other replica settles its retried request_id once."""
    killed, survivor = start_servers(2, SCOPA_REDIS_TIMEOUT_S="20")
    with stubs_of(killed.target, survivor.target) as (dead, live):
        game = pending(live, kind)
        request = request_of(game)
        with stopped(own_redis[0]):
            call = in_flight(dead, game, request)
            time.sleep(0.5)  # the call reaches the stopped Redis (no timing is asserted)
            killed.process.kill()
            assert killed.process.wait(timeout=TIMEOUT_S) == -signal.SIGKILL
            call["thread"].join(TIMEOUT_S)
        assert "error" in call, call
        assert call["error"].code() is grpc.StatusCode.UNAVAILABLE, call["error"]
        applied_once([live], game, kind, request)
    no_traceback(survivor)


@pytest.mark.parametrize("kind", PENDING_KINDS)
def test_sigterm_while_a_stream_waits_on_the_pending_action(
    start_servers: StartServers, kind: str
) -> None:
    """SIGTERM ends a WatchGame stream waiting on the claim or farm UNAVAILABLE /
    SERVER_SHUTTING_DOWN and the replica exits 0; the other replica still has the game waiting,
    and its stream sees the action once taken there."""
    drained, survivor = start_servers(2, SCOPA_DRAIN_DELAY_S="0.5", SCOPA_GRACE_S="20")
    with stubs_of(drained.target, survivor.target) as (going, staying):
        game = pending(going, kind)
        before = view(staying, game.name, game.tokens[game.seat])
        watch = pb.WatchGameRequest(name=game.name, from_version=game.version)
        stream: Any = going.WatchGame(watch, timeout=TIMEOUT_S)
        drained.process.send_signal(signal.SIGTERM)
        with pytest.raises(grpc.RpcError) as ended:
            for message in stream:
                assert message.version == game.version, message  # nothing happened yet
        assert ended.value.code() is grpc.StatusCode.UNAVAILABLE, ended.value
        assert reason_of(ended.value) == "SERVER_SHUTTING_DOWN"
        assert drained.process.wait(timeout=TIMEOUT_S) == 0
        assert view(staying, game.name, game.tokens[game.seat]) == before
        seen: Any = staying.WatchGame(watch, timeout=TIMEOUT_S)
        request = request_of(game)
        reply = retried(staying, game, request)
        events = []
        for message in seen:
            events += [e for e in message.events if e.version > game.version]
            if message.version >= reply.view.version:
                seen.cancel()
                break
        assert settled(kind, events), events
        play_to_end([staying], game)
    assert_clean_log(drained)
    assert_clean_log(survivor)
