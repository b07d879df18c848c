"""Tests of bench/anchor.py and of bench/service.py's ``--anchor`` and ``--late`` phases.

The anchors themselves need Node packages from the registry; these tests put a script in their
place that prints an anchor's JSON line, so what is tested is how the bench reads it and divides
by it. The ``late`` phase runs against a real server and Redis.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.python import load_tool
from support.tools import system_tool

ROOT = Path(__file__).resolve().parents[2]
anchor = load_tool("bench/anchor.py")


def _fake_anchor(tmp_path: Path, cpu_us: float, exit_code: int = 0) -> Path:
    """A ``run.sh`` that logs to stderr, prints a line of noise and then the anchor's JSON."""
    line = json.dumps({"kind": "fake", "server_cpu_us_per_move": cpu_us, "moves": 1000})
    folder = tmp_path / "fakeanchor"
    folder.mkdir(parents=True)
    script = folder / "run.sh"
    script.write_text(
        f"echo starting >&2\necho 'npm ci done'\necho '{line}'\nexit {exit_code}\n",
    )
    return script


def test_the_json_line_is_read_and_kept_with_the_matches(tmp_path: Path) -> None:
    """The last JSON line of the script's output is the run; its CPU per move is the figure."""
    run = anchor.run(str(_fake_anchor(tmp_path, 250.5)), matches=4, seconds=1)
    assert run.name == "fakeanchor"
    assert run.cpu_us_per_move == 250.5
    assert run.fields["matches"] == 4
    assert run.line("before").startswith(
        "anchor=fakeanchor when=before server_cpu_us_per_move=250.5 matches=4 moves=1000"
    )
    assert anchor.mean_cpu([run, anchor.run(str(_fake_anchor(tmp_path / "b", 100)), 4, 1)]) == (
        175.25
    )


def test_an_anchor_that_prints_no_json_fails_with_its_stderr(tmp_path: Path) -> None:
    """A broken anchor stops the bench with what it said, not a ratio against nothing."""
    script = tmp_path / "run.sh"
    script.write_text("echo 'npm ERR! no registry' >&2\nexit 1\n")
    with pytest.raises(RuntimeError, match="no registry"):
        anchor.run(str(script), matches=2, seconds=1)


def test_the_shipped_anchors_are_found() -> None:
    """``boardgame.io`` and ``colyseus`` name the scripts under bench/anchors/."""
    for name in anchor.ANCHORS:
        assert anchor.script(name).is_file(), name


_LATE = re.compile(r"rpc=PlayCard .* phase=(early|late) .* hand=(\d+) vs_fakeanchor=([\d.]+)")


def test_service_bench_prints_ratios_to_the_anchor_and_a_late_phase(tmp_path: Path) -> None:
    """``--anchor SCRIPT --late 1``: the anchor runs before and after; every PlayCard and
    GetState line has our CPU per call over the anchor's mean; the late phase plays hand 2 of
    games to 61 and gives its cost over hand 1's (``vs_start``)."""
    system_tool("redis-server")
    script = _fake_anchor(tmp_path, 100.0)
    done = subprocess.run(
        [sys.executable, "bench/service.py", "--seconds", "0.5", "--conc", "2"]
        + ["--anchor", str(script), "--late", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=400,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert [line.split()[1] for line in lines if line.startswith("anchor=")] == [
        "when=before",
        "when=after",
    ]
    for line in lines:
        if line.startswith(("rpc=PlayCard", "rpc=GetState")) and "cpu_attrib=isolated" in line:
            fields = dict(part.split("=", 1) for part in line.split())
            assert float(fields["vs_fakeanchor"]) == pytest.approx(
                float(fields["cpu_us_per_call"]) / 100.0, abs=0.006
            ), line
    phases = [m.groups()[:2] for m in map(_LATE.search, lines) if m]
    assert phases == [("early", "1"), ("late", "2")], done.stdout
    late = next(line for line in lines if "phase=late" in line)
    assert re.search(r" vs_start=[\d.]+", late), late
    assert "calls=0 " not in late, late
