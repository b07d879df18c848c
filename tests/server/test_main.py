"""Tests of scopa.server._main: the real process starts, reports health and stops on SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

GRACE_S = 2.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SCOPA_", "OTEL_", "REDIS_"))}
    env.update(extra)
    return env


def _wait_serving(port: int, service: str, timeout_s: float = 15.0) -> None:
    deadline = time.monotonic() + timeout_s
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            try:
                response = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=1)
                if response.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"{service!r} not SERVING within {timeout_s}s")
            time.sleep(0.1)


def test_process_serves_health_and_exits_cleanly_on_sigterm() -> None:
    """`python -m scopa.server` reports SERVING, then exits 0 within the grace on SIGTERM."""
    port = _free_port()
    env = _env(
        SCOPA_HOST="127.0.0.1",
        SCOPA_PORT=str(port),
        SCOPA_GRACE_S=str(GRACE_S),
        SCOPA_LOG_FORMAT="json",
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "scopa.server"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_serving(port, "")
        _wait_serving(port, "readiness")
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=GRACE_S + 5)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, stderr
    events = [json.loads(line)["event"] for line in stderr.splitlines() if line.startswith("{")]
    assert "listening" in events and events[-1] == "stopped"
    assert any("SCOPA_TOKEN_SECRET" in event for event in events)


def test_invalid_configuration_fails_fast() -> None:
    """An invalid variable stops the process at start with exit code 2 and a clear message."""
    result = subprocess.run(
        [sys.executable, "-m", "scopa.server"],
        env=_env(SCOPA_PORT="not-a-port"),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 2
    assert "SCOPA_PORT" in result.stderr and "Traceback" not in result.stderr
