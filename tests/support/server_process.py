"""Start and stop real `python -m scopa.server` processes (on Redis, or the embedded store)."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

GAME_SERVICE = "scopa.v1.GameService"
TOKEN_SECRET = "integration-test-secret-0123456789"
GRACE_S = 2.0


@dataclass(frozen=True)
class ServerProcess:
    """A running scopa server process, where to reach it and where it logs."""

    process: subprocess.Popen[bytes]
    port: int
    log_path: Path
    http_port: int = 0
    """The HTTP port (REST, Connect, gRPC-Web) the server announced; 0 when it serves none."""

    @property
    def target(self) -> str:
        """The host:port to dial."""
        return f"127.0.0.1:{self.port}"

    @property
    def http_url(self) -> str:
        """The base URL of the HTTP port, e.g. http://127.0.0.1:41234."""
        return f"http://127.0.0.1:{self.http_port}"

    def log_text(self) -> str:
        """Everything the process wrote to stdout and stderr so far."""
        return self.log_path.read_text(errors="replace")

    def log_records(self) -> list[dict[str, Any]]:
        """The JSON log lines written so far, parsed."""
        text = self.log_text()
        complete = text[: text.rfind("\n") + 1]  # a line still being written is not read yet
        return [json.loads(line) for line in complete.splitlines() if line.startswith("{")]


def _env(
    redis_url: str,
    port: int,
    stacked: bool,
    token_secret: str | None,
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SCOPA_", "OTEL_", "REDIS_"))}
    env.update(
        REDIS_URL=redis_url,
        SCOPA_HOST="127.0.0.1",
        SCOPA_PORT=str(port),
        SCOPA_HTTP_PORT="0",  # a free port, announced in the "listening" log line
        SCOPA_LOG_FORMAT="json",
        SCOPA_GRACE_S=str(GRACE_S),
        SCOPA_ALLOW_STACKED_DECKS="true" if stacked else "false",
        SCOPA_DRAIN_DELAY_S="0.5",
        # The suites create games far faster than any person; fault tests turn limits on.
        SCOPA_RATE_LIMIT_CREATE_GAME="off",
        SCOPA_RATE_LIMIT_JOIN_GAME="off",
        # No archive unless a test gives one (tests/faults/test_archive_faults.py does).
        SCOPA_ARCHIVE_URL="off",
    )
    if token_secret is not None:
        env["SCOPA_TOKEN_SECRET"] = token_secret
    env.update(extra or {})
    return env


def wait_serving(target: str, service: str = GAME_SERVICE, timeout_s: float = 20.0) -> None:
    """Block until the health service reports `service` SERVING at `target`."""
    deadline = time.monotonic() + timeout_s
    # A refused connection (the server still importing) would hold the channel in grpc's
    # reconnect backoff, a second at first: retry at the pace of the polls instead.
    options = [
        ("grpc.initial_reconnect_backoff_ms", 50),
        ("grpc.min_reconnect_backoff_ms", 50),
        ("grpc.max_reconnect_backoff_ms", 100),
    ]
    with grpc.insecure_channel(target, options=options) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            try:
                reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"{service!r} not SERVING at {target} within {timeout_s}s")
            time.sleep(0.05)


def start_server(
    redis_url: str,
    *,
    stacked: bool = True,
    token_secret: str | None = TOKEN_SECRET,
    env: Mapping[str, str] | None = None,
) -> ServerProcess:
    """Launch a server process on a free port against `redis_url` and wait until it serves.

    An empty `redis_url` runs it on the embedded store, as `make run` does; a `token_secret`
    of None leaves SCOPA_TOKEN_SECRET unset, so the server generates a random key; `env`
    adds or overrides variables (rate limits are off unless set here).
    """
    log_dir = Path(tempfile.mkdtemp(prefix="scopa-it-"))
    log_path = log_dir / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "scopa.server"],
            # Port 0: the server binds a free port itself and announces it (a port picked here
            # and released could be taken by another test worker before the server binds it).
            env=_env(redis_url, 0, stacked, token_secret, env),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    server = ServerProcess(process, 0, log_path)
    try:
        server = dataclasses.replace(server, port=_wait_announced(server, "grpc", 20.0))
        wait_serving(server.target)
    except AssertionError:
        stop_server(server)
        raise AssertionError(f"server did not start:\n{server.log_text()}") from None
    return dataclasses.replace(server, http_port=announced_http_port(server))


def _announced(server: ServerProcess, protocol: str) -> int:
    """The port of the server's `listening` log line for ``protocol`` (0 when there is none)."""
    for record in server.log_records():
        if record.get("event") == "listening" and record.get("protocol") == protocol:
            return int(record["port"])
    return 0


def _wait_announced(server: ServerProcess, protocol: str, timeout_s: float) -> int:
    """The port the server announces for ``protocol``, once it does (AssertionError if it
    exits or stays silent for ``timeout_s``)."""
    deadline = time.monotonic() + timeout_s
    while not (port := _announced(server, protocol)):
        if server.process.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"no {protocol} port announced")
        time.sleep(0.05)
    return port


def announced_http_port(server: ServerProcess) -> int:
    """The port of the server's `listening` log line for protocol http (0 when there is none)."""
    return _announced(server, "http")


def stop_server(server: ServerProcess, timeout_s: float = GRACE_S + 5) -> int:
    """SIGTERM the process and return its exit code (killing it if it does not stop in time)."""
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGTERM)
        try:
            server.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()
    return server.process.returncode


@contextmanager
def running_replicas(
    redis_url: str, env: Mapping[str, str] | None = None
) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """Two server processes on `redis_url` (with `env` added), stopped on exit, second first."""
    first = start_server(redis_url, env=env)
    try:
        second = start_server(redis_url, env=env)
    except BaseException:
        stop_server(first)
        raise
    try:
        yield first, second
    finally:
        stop_server(second)
        stop_server(first)
