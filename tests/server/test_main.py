"""Tests of scopa.server._main: the real process starts, reports health and stops on SIGTERM."""

from __future__ import annotations

import os
import subprocess
import sys

from support.server_process import start_server, stop_server, wait_serving


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
