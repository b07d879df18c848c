"""Tests of bench/late_core.py: PlayCard timed per hand in process, one line per hand."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINE = re.compile(r"hand=(\d+) calls=(\d+) median_us=[\d.]+ mean_us=[\d.]+")


def test_two_games_print_each_hand_and_the_ratio() -> None:
    done = subprocess.run(
        [sys.executable, "bench/late_core.py", "--games", "2", "--hands", "3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    hands = [m.groups() for m in map(LINE.fullmatch, lines[:-1]) if m]
    assert [int(h) for h, _ in hands] == [1, 2, 3], done.stdout
    assert all(int(calls) > 0 for _, calls in hands)
    assert re.fullmatch(r"late_over_first=[\d.]+", lines[-1]), done.stdout
