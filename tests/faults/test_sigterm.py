"""SIGTERM on a real server with streams open and a call in flight: a drain clients can follow."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from integration.helpers import auth, create, tokens_of
from support.redis_server import RedisServer, running_redis_server
from support.server_process import GAME_SERVICE, ServerProcess, start_server

from faults.input_helpers import assert_clean_log, reason_of
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc

Stub = scopa_pb2_grpc.GameServiceStub
TIMEOUT_S = 30.0


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    """A redis-server of this test alone (it may be stopped with SIGSTOP)."""
    with running_redis_server() as server:
        yield server


def start(redis: RedisServer, drain_delay_s: float) -> ServerProcess:
    """A server with the given drain delay and a long grace."""
    return start_server(
        redis.url, env={"SCOPA_DRAIN_DELAY_S": str(drain_delay_s), "SCOPA_GRACE_S": "20"}
    )


def health(target: str) -> int | None:
    """The readiness status the health service reports, or None when it does not answer."""
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            request = health_pb2.HealthCheckRequest(service=GAME_SERVICE)
            return int(stub.Check(request, timeout=2).status)
        except grpc.RpcError:
            return None


def wait_until(check: Callable[[], bool], what: str) -> None:
    """Poll ``check`` until it holds (generous timeout; no timing is asserted)."""
    deadline = time.monotonic() + TIMEOUT_S
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


class Watcher(threading.Thread):
    """Reads one WatchGame stream to its end and keeps how it ended."""

    def __init__(self, stub: Stub, name: str) -> None:
        super().__init__(daemon=True)
        self.call = stub.WatchGame(pb.WatchGameRequest(name=name), timeout=TIMEOUT_S)
        self.first = threading.Event()
        self.error: grpc.RpcError | None = None

    def run(self) -> None:
        """Consume messages until the stream ends."""
        try:
            for _ in self.call:
                self.first.set()
        except grpc.RpcError as exc:
            self.error = exc


def sigterm(server: ServerProcess) -> None:
    """Send SIGTERM to the server process."""
    server.process.send_signal(signal.SIGTERM)


def exit_code(server: ServerProcess) -> int:
    """Wait for the process to exit and return its code."""
    return server.process.wait(timeout=TIMEOUT_S)


def test_sigterm_ends_streams_with_a_reconnect_status(own_redis: RedisServer) -> None:
    """Readiness turns NOT_SERVING while the port is open; streams end UNAVAILABLE, then exit 0."""
    server = start(own_redis, drain_delay_s=3.0)
    try:
        with grpc.insecure_channel(server.target) as channel:
            stub = scopa_pb2_grpc.GameServiceStub(channel)
            game = create(stub)
            watchers = [Watcher(stub, game.name) for _ in range(5)]
            for watcher in watchers:
                watcher.start()
                assert watcher.first.wait(TIMEOUT_S)
            sigterm(server)
            wait_until(
                lambda: health(server.target) == health_pb2.HealthCheckResponse.NOT_SERVING,
                "readiness NOT_SERVING while the port still answers",
            )
            for watcher in watchers:
                watcher.join(TIMEOUT_S)
                assert watcher.error is not None
                assert watcher.error.code() is grpc.StatusCode.UNAVAILABLE, watcher.error
                assert reason_of(watcher.error) == "SERVER_SHUTTING_DOWN"
            late: Any = stub.WatchGame(pb.WatchGameRequest(name=game.name), timeout=TIMEOUT_S)
            with pytest.raises(grpc.RpcError) as err:
                next(late)
            assert err.value.code() is grpc.StatusCode.UNAVAILABLE
            assert reason_of(err.value) == "SERVER_SHUTTING_DOWN"
        assert exit_code(server) == 0
    finally:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait()
    assert_clean_log(server)
    drained = [r for r in server.log_records() if r.get("event") == "draining"]
    assert drained and drained[0]["streams_ended"] == 5


def test_in_flight_calls_finish_and_new_ones_get_error_info(own_redis: RedisServer) -> None:
    """A call in flight at SIGTERM completes; calls after the drain delay get ErrorInfo."""
    server = start(own_redis, drain_delay_s=0.5)
    stopped = False
    try:
        with grpc.insecure_channel(server.target) as channel:
            stub = scopa_pb2_grpc.GameServiceStub(channel)
            game = create(stub)
            token = tokens_of(game)[0]
            result: dict[str, Any] = {}

            def in_flight() -> None:
                request = pb.GetStateRequest(name=game.name)
                try:
                    result["view"] = stub.GetState(request, metadata=auth(token), timeout=60)
                except grpc.RpcError as exc:
                    result["error"] = exc

            os.kill(own_redis.process.pid, signal.SIGSTOP)
            stopped = True
            caller = threading.Thread(target=in_flight, daemon=True)
            caller.start()
            time.sleep(0.3)  # let the call reach the stopped Redis (no timing asserted)
            sigterm(server)

            def refused() -> bool:
                try:
                    stub.ListRulesets(pb.ListRulesetsRequest(), timeout=5)
                except grpc.RpcError as exc:
                    assert exc.code() is grpc.StatusCode.UNAVAILABLE, exc
                    assert reason_of(exc) == "SERVER_SHUTTING_DOWN"
                    return True
                return False

            wait_until(refused, "new calls refused with SERVER_SHUTTING_DOWN")
            assert caller.is_alive(), result
            os.kill(own_redis.process.pid, signal.SIGCONT)
            stopped = False
            caller.join(TIMEOUT_S)
            assert "view" in result, result
        assert exit_code(server) == 0
    finally:
        if stopped:
            os.kill(own_redis.process.pid, signal.SIGCONT)
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait()
    assert_clean_log(server)


def _children(pid: int) -> set[int]:
    """The live child processes of ``pid`` (from /proc)."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                state, parent = stat.read().rsplit(") ", 1)[1].split()[:2]
        except OSError:
            continue
        if int(parent) == pid and state != "Z":
            found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(") ", 1)[1][0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_the_bot_search_workers_end_with_the_server(
    own_redis: RedisServer, signum: signal.Signals
) -> None:
    """A bot's turn starts the search workers (SCOPA_BOT_SEARCHES processes); SIGTERM stops them
    with the server, and the workers of a killed server exit by themselves."""
    server = start_server(own_redis.url, env={"SCOPA_BOT_SEARCHES": "2", "SCOPA_GRACE_S": "5"})
    try:
        with grpc.insecure_channel(server.target) as channel:
            stub = scopa_pb2_grpc.GameServiceStub(channel)
            seats = [pb.SeatSpec(display_name="", bot="ismcts"), pb.SeatSpec(display_name="ann")]
            created = stub.CreateGame(pb.CreateGameRequest(preset="scopa", seats=seats))
            assert created.view.version == 2  # the bot played (in a thread: the pool starts)
            wait_until(lambda: len(_children(server.process.pid)) >= 2, "two search workers")
            workers = _children(server.process.pid)
        server.process.send_signal(signum)
        assert exit_code(server) == (0 if signum == signal.SIGTERM else -signal.SIGKILL)
        wait_until(lambda: not any(map(_alive, workers)), "the workers' exit")
    finally:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait()
    if signum == signal.SIGTERM:
        assert_clean_log(server)
