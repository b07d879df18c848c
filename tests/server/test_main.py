"""Tests of scopa.server._main: the real process starts, reports health and stops on SIGTERM."""

from __future__ import annotations

import os
import subprocess
import sys

from support.redis_server import RedisServer
from support.server_process import start_server, stop_server, wait_serving

import scopa


def test_process_serves_health_and_exits_cleanly_on_sigterm() -> None:
    """`python -m scopa.server` reports SERVING, then exits 0 within the grace on SIGTERM."""
    server = start_server("", stacked=False, token_secret=None)
    try:
        wait_serving(server.target, "")
        wait_serving(server.target, "readiness")
    finally:
        returncode = stop_server(server)
    assert returncode == 0, server.log_text()
    events = [record["event"] for record in server.log_records()]
    assert "listening" in events and events[-1] == "stopped", events
    assert any("SCOPA_TOKEN_SECRET" in event for event in events), events


def test_invalid_configuration_fails_fast() -> None:
    """An invalid variable stops the process at start with exit code 2 and a clear message."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SCOPA_", "OTEL_", "REDIS_"))}
    result = subprocess.run(
        [sys.executable, "-m", "scopa.server"],
        env={**env, "SCOPA_PORT": "not-a-port"},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 2
    assert "SCOPA_PORT" in result.stderr and "Traceback" not in result.stderr


def test_start_up_line_shows_the_settings_without_secrets(redis_server: RedisServer) -> None:
    """The first line is `starting` with every setting; the token secret and the Redis password
    in REDIS_URL are masked (the password really authenticates: Redis takes any for "default")."""
    url = redis_server.url.replace("redis://", "redis://default:hunter2-pw@")
    server = start_server(url, token_secret="sekrit-token-key-0123456789")
    try:
        wait_serving(server.target, "readiness")
    finally:
        stop_server(server)
    text = server.log_text()
    assert "hunter2" not in text and "sekrit" not in text
    records = server.log_records()
    assert records[0]["event"] == "starting"
    settings = records[0]["settings"]
    assert settings["redis_url"] == url.replace("hunter2-pw", "***")
    assert settings["token_secret"] == "***" and settings["token_secret_generated"] is False
    assert settings["port"] == 0 and records[0]["version"] == scopa.__version__  # a free one
    listening = [r for r in records if r["event"] == "listening" and r["protocol"] == "grpc"]
    assert [r["port"] for r in listening] == [server.port]
    changes = [r for r in records if r["event"] == "readiness_changed"]
    assert [(r["ready"], r["reason"]) for r in changes] == [(True, "check"), (False, "shutdown")]
