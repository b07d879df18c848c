"""Tests of bench/bot_flood.py: it runs the attack on a real server and prints its lines."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from support.tools import system_tool

ROOT = Path(__file__).resolve().parents[2]
LINE = re.compile(
    r"bot_flood searches=1 queue=0 pool=(threads|processes) phase=(quiet|flood) bot_games=(\d+) "
    r"playcard_calls=(\d+) playcard_p50_ms=[\d.]+ playcard_p99_ms=[\d.]+ server_cores=[\d.]+ "
    r"bot_games_answered=(\d+)"
)


def test_a_short_flood_prints_both_phases_and_the_bots_move() -> None:
    """Two configurations (threads, then processes), one second a phase: the quiet phase has no
    bot game, the flood's are created and answered, and the player's PlayCard calls are
    answered in both."""
    system_tool("redis-server")
    done = subprocess.run(
        [sys.executable, "bench/bot_flood.py", "--seconds", "1", "--players", "1"]
        + ["--bot-games", "3", "--config", "1/0/threads", "--config", "1/0/processes"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    matches = [LINE.fullmatch(line) for line in done.stdout.splitlines()]
    assert all(matches), done.stdout
    rows = [(m.group(1), m.group(2), int(m.group(3)), int(m.group(4))) for m in matches if m]
    assert [(pool, phase, games) for pool, phase, games, _ in rows] == [
        ("threads", "quiet", 0),
        ("threads", "flood", 3),
        ("processes", "quiet", 0),
        ("processes", "flood", 3),
    ]
    assert all(calls > 0 for *_, calls in rows)
    answered = [int(m.group(5)) for m in matches if m and m.group(2) == "flood"]
    assert answered == [3, 3]  # an all-bot CreateGame answers before its bots play
