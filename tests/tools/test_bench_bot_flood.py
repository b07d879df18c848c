"""Tests of bench/bot_flood.py: it runs the attack on a real server and prints its lines."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from support.tools import system_tool

ROOT = Path(__file__).resolve().parents[2]
LINE = re.compile(
    r"bot_flood searches=1 queue=0 phase=(quiet|flood) bot_games=(\d+) playcard_calls=(\d+) "
    r"playcard_p50_ms=[\d.]+ playcard_p99_ms=[\d.]+ server_cores=[\d.]+ bot_games_answered=\d+"
)


def test_a_short_flood_prints_both_phases_and_the_bots_move() -> None:
    """One configuration, one second a phase: the quiet phase has no bot game, the flood's are
    created, and the player's PlayCard calls are answered in both."""
    system_tool("redis-server")
    done = subprocess.run(
        [sys.executable, "bench/bot_flood.py", "--seconds", "1", "--players", "1"]
        + ["--bot-games", "3", "--config", "1/0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    matches = [LINE.fullmatch(line) for line in done.stdout.splitlines()]
    assert all(matches), done.stdout
    phases = [(m.group(1), int(m.group(2)), int(m.group(3))) for m in matches if m]
    assert [(phase, games) for phase, games, _ in phases] == [("quiet", 0), ("flood", 3)]
    assert all(calls > 0 for _, _, calls in phases)
