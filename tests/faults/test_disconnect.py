"""Clients that go away mid-stream are cancellations in the log, not server faults."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator

import grpc
import pytest
from integration.helpers import auth, create, tokens_of
from support.redis_server import RedisServer
from support.server_process import ServerProcess, start_server, stop_server

from faults.input_helpers import access_lines, assert_clean_log
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc

WATCH = "/scopa.v1.GameService/WatchGame"
WATCHER = textwrap.dedent(
    """
    import sys, grpc
    from scopa_client.v1 import scopa_pb2 as pb, scopa_pb2_grpc
    channel = grpc.insecure_channel(sys.argv[1])
    stub = scopa_pb2_grpc.GameServiceStub(channel)
    for message in stub.WatchGame(pb.WatchGameRequest(name=sys.argv[2])):
        print("got", message.version, flush=True)
    """
)


@pytest.fixture(scope="module")
def server(redis_server: RedisServer) -> Iterator[ServerProcess]:
    """One server process on the session's Redis."""
    process = start_server(redis_server.url)
    try:
        yield process
    finally:
        stop_server(process)


def play_first_move(stub: scopa_pb2_grpc.GameServiceStub, name: str, token: str) -> None:
    """Play the seat's first legal move (so that watchers get a new version)."""
    view = stub.GetState(pb.GetStateRequest(name=name), metadata=auth(token), timeout=10).view
    move = view.legal_moves[0]
    request = pb.PlayCardRequest(
        name=name, card=move.card, capture=pb.CaptureChoice(cards=move.capture)
    )
    stub.PlayCard(request, metadata=auth(token), timeout=10)


def wait_for_lines(server: ServerProcess, count: int, timeout_s: float = 20.0) -> None:
    """Wait until the server logged ``count`` WatchGame access lines."""
    deadline = time.monotonic() + timeout_s
    while len(access_lines(server, WATCH)) < count:
        assert time.monotonic() < deadline, access_lines(server, WATCH)
        time.sleep(0.05)


def test_killed_and_cancelling_watchers_are_logged_as_cancellations(server: ServerProcess) -> None:
    """A SIGKILLed watcher process and a cancelled stream log CANCELLED at info, no traceback."""
    with grpc.insecure_channel(server.target) as channel:
        stub = scopa_pb2_grpc.GameServiceStub(channel)
        game = create(stub)
        tokens = tokens_of(game)
        watchers = [
            subprocess.Popen(
                [sys.executable, "-c", WATCHER, server.target, game.name],
                stdout=subprocess.PIPE,
            )
            for _ in range(3)
        ]
        try:
            for watcher in watchers:
                assert watcher.stdout is not None
                assert watcher.stdout.readline().startswith(b"got")
            cancelled = stub.WatchGame(pb.WatchGameRequest(name=game.name), timeout=30)
            next(cancelled)
            for watcher in watchers:
                watcher.kill()
                watcher.wait()
            cancelled.cancel()
            play_first_move(stub, game.name, tokens[0])
            play_first_move(stub, game.name, tokens[1])
        finally:
            for watcher in watchers:
                if watcher.poll() is None:
                    watcher.kill()
                    watcher.wait()
        wait_for_lines(server, 4)
    lines = access_lines(server, WATCH)
    assert {line["outcome"] for line in lines} == {"CANCELLED"}, lines
    assert {line["level"] for line in lines} <= {"info", "debug"}
    assert_clean_log(server)
