"""Tests that the README and docs match what the code does."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.server_process import ServerProcess, start_server, stop_server

from scopa.config import settings_table
from scopa.rules import PRESETS, list_options

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


@pytest.fixture(scope="module")
def embedded_server() -> Iterator[ServerProcess]:
    """A real server process on the embedded store (what `make run` starts)."""
    server = start_server("", stacked=False)
    try:
        yield server
    finally:
        stop_server(server)


def _path_without_venv() -> str:
    venv_bin = str(Path(sys.executable).parent)
    return os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if p != venv_bin)


def _run_http_session(
    script: str, server: ServerProcess, tmp_path: Path
) -> subprocess.CompletedProcess[str]:
    """Run docs/<script> against the server's HTTP port; it must exit 0."""
    done = subprocess.run(
        ["bash", str(ROOT / "docs" / script)],
        env={**os.environ, "BASE": server.http_url},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done


def test_readme_quotes_the_curl_session() -> None:
    """The README quotes docs/curl-session.sh verbatim."""
    assert (ROOT / "docs" / "curl-session.sh").read_text().strip() in README


def test_curl_session_runs(embedded_server: ServerProcess, tmp_path: Path) -> None:
    """The README's curl session creates a game over REST, plays with If-Match, sees 412."""
    done = _run_http_session("curl-session.sh", embedded_server, tmp_path)
    out = done.stdout
    assert "'scopa', 'scopa3'" in out
    assert "game: games/" in out and 'etag: "v' in out
    assert "'cardPlayed'" in out
    assert '"reason":"STALE_ETAG"' in out and "HTTP 412" in out
    assert "\ndata: {" in out


def test_readme_quotes_the_lobby_session() -> None:
    """The README quotes docs/lobby-session.sh verbatim."""
    assert (ROOT / "docs" / "lobby-session.sh").read_text().strip() in README


def test_lobby_session_runs(embedded_server: ServerProcess, tmp_path: Path) -> None:
    """The README's lobby session lists a public game, joins it without a code, sees it leave."""
    done = _run_http_session("lobby-session.sh", embedded_server, tmp_path)
    assert done.stdout.splitlines()[1:] == [
        "[[False, True]]",
        "(1, 'GAME_STATUS_ACTIVE', True)",
        "False",
    ]


def test_grpcurl_session_runs(embedded_server: ServerProcess, tmp_path: Path) -> None:
    """The README's grpcurl session (grpcurl from .venv/bin, not on PATH) plays and is refused."""
    assert (ROOT / ".venv" / "bin" / "grpcurl").exists(), "make test installs grpcurl"
    env = {**os.environ, "ADDR": embedded_server.target, "PATH": _path_without_venv()}
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


def test_readme_counts_presets_and_options() -> None:
    """The README's counts of presets and options are the engine's."""
    assert f"{len(PRESETS)} named presets and {len(list_options())} options" in README
