"""The OpenAPI document as a Python team would use it: openapi-python-client (pinned in the dev
extra) generates a client from the committed openapi.json, `mypy --strict` checks
clients/openapi/python/game.py against it, and the script plays a whole 2-player game on a real
server (no cast, no `Unset` check or `type: ignore` on a field the server always sends)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.server_process import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = ROOT / "service" / "scopa" / "transport" / "openapi.json"
GAME = ROOT / "clients" / "openapi" / "python" / "game.py"
GENERATOR = Path(sys.executable).parent / "openapi-python-client"
PLAYS_PER_HAND = 36
"""Two players: 40 cards less the 4 turned up on the table."""


def _run(args: list[str], cwd: Path) -> str:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, f"{args[:3]}...:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with the generated package `scopa_rest` and the game script beside it."""
    work = tmp_path_factory.mktemp("openapi-python-client")
    (work / "generator.yaml").write_text("post_hooks: []\n")
    _run(
        [
            str(GENERATOR),
            "generate",
            "--path",
            str(DOCUMENT),
            "--output-path",
            str(work / "scopa_rest"),
            "--meta",
            "none",
            "--config",
            str(work / "generator.yaml"),
        ],
        work,
    )
    shutil.copy(GAME, work / "game.py")
    return work


def test_the_game_script_type_checks_under_mypy_strict(generated: Path) -> None:
    """Required fields, unions for oneofs and a plain Client for calls that need no token."""
    (generated / "mypy.ini").write_text("[mypy]\nstrict = True\n")
    out = _run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            "mypy.ini",
            "--cache-dir",
            str(generated / ".mypy_cache"),
            "game.py",
        ],
        generated,
    )
    assert "Success" in out


def test_the_generated_client_plays_a_whole_game(
    generated: Path, http_server: ServerProcess
) -> None:
    """Create (no token), join, spectate (304 on an unchanged etag) and play to the end."""
    out = _run([sys.executable, "game.py", http_server.http_url], generated)
    summary = json.loads(out.splitlines()[-1])
    assert summary["plays"] >= PLAYS_PER_HAND and summary["plays"] % PLAYS_PER_HAND == 0
    assert len(summary["winners"]) == 1
    assert summary["finish_reason"] != "FINISH_REASON_UNSPECIFIED"
    assert summary["spectator_hand"] == []
    assert summary["spectator_seats"] == ["Ann", "Bob"]
    assert summary["not_modified"] == 304
