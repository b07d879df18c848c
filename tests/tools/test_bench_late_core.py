"""Tests of bench/late_core.py: PlayCard timed per hand in process, one line per hand."""

from __future__ import annotations

import re

from support.python import ROOT, run_python

LINE = re.compile(r"hand=(\d+) calls=(\d+) median_us=[\d.]+ mean_us=[\d.]+")
PYTHONPATH = f"{ROOT / 'service'}:{ROOT / 'clients' / 'python' / 'src'}"


def test_two_games_print_each_hand_and_the_ratio() -> None:
    done = run_python(
        "bench/late_core.py", "--games", "2", "--hands", "3", pythonpath=PYTHONPATH, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    hands = [m.groups() for m in map(LINE.fullmatch, lines[:-1]) if m]
    assert [int(h) for h, _ in hands] == [1, 2, 3], done.stdout
    assert all(int(calls) > 0 for _, calls in hands)
    assert re.fullmatch(r"late_over_first=[\d.]+", lines[-1]), done.stdout
