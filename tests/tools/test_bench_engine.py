"""Tests of bench/engine.py: its lines, each with the scopa rate it is divided by."""

from __future__ import annotations

import re

from support.python import ROOT, run_python

PRESET = re.compile(
    r"preset=(\w+) hands_per_s=(\d+) plays_per_s=(\d+) scopa_plays_per_s=(\d+)"
    r" plays_vs_scopa=(\d+\.\d\d)( policy=claims)?"
)


def test_engine_prints_each_preset_with_scopas_rate_beside_it_and_their_ratio() -> None:
    """A short run prints the header and baseline, then one line per preset (fidasse's claims on a
    second) with scopa's rate of the slices between its own and the ratio of the two."""
    done = run_python(
        "bench/engine.py",
        *("--seconds", "0.05", "--preset", "marescialla_80", "--preset", "fidasse"),
        pythonpath=str(ROOT / "service"),
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("python=") and "rules=python" in lines[0], lines
    assert re.fullmatch(r"baseline=random_choice_only plays_per_s=\d+", lines[1]), lines
    rows = [PRESET.fullmatch(line) for line in lines[2:]]
    assert all(rows), lines
    seen = []
    for row in rows:
        assert row and int(row[2]) > 0 and int(row[4]) > 0
        assert abs(float(row[5]) - int(row[3]) / int(row[4])) <= 0.01, row[0]
        seen.append((row[1], bool(row[6])))
    assert seen == [("marescialla_80", False), ("fidasse", False), ("fidasse", True)]
