"""Tests of bench/bots.py: it runs, and prints one well-formed line per pair."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINE = re.compile(
    r"bots=(\w+)-vs-(\w+) games=2 win_rate=(\d\.\d{3}) ci95=(\d\.\d{3})-(\d\.\d{3}) "
    r"move_p50_ms=[\d.]+ move_p99_ms=[\d.]+ cpu_p50_ms=[\d.]+ cpu_p99_ms=[\d.]+"
)


def test_prints_one_line_per_pair() -> None:
    """Two short pairs print a header and two lines whose win rate lies inside its interval."""
    out = subprocess.run(
        [sys.executable, "bench/bots.py", "--games", "2", "--iterations", "3"]
        + ["--pair", "greedy-vs-random", "--pair", "ismcts-vs-greedy"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    ).stdout.splitlines()
    assert out[0].startswith("python=")
    matches = [LINE.fullmatch(line) for line in out[1:]]
    assert [(m.group(1), m.group(2)) for m in matches if m] == [
        ("greedy", "random"),
        ("ismcts", "greedy"),
    ]
    for m in matches:
        assert m is not None
        assert float(m.group(4)) <= float(m.group(3)) <= float(m.group(5))


def test_refuses_an_unknown_level() -> None:
    """A pair naming no level is a usage error (exit 2) that lists the levels."""
    done = subprocess.run(
        [sys.executable, "bench/bots.py", "--pair", "smart-vs-random"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 2
    assert "random, greedy, ismcts" in done.stderr
