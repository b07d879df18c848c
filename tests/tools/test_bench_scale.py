"""Tests of bench/scale.py: at a tiny scale it measures both stores and the lobby empties."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from support.tools import system_tool

ROOT = Path(__file__).resolve().parents[2]
CALL = re.compile(
    r"scale phase=(small|large) call=(\w+) calls=(\d+) cpu_us_per_call=\d+ "
    r"redis_roundtrips_per_call=([\d.]+)"
)


def _fields(line: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in line.split() if "=" in part)


def test_a_tiny_scale_run_prints_every_figure_and_leaves_no_lobby_entry() -> None:
    """Both phases measure each call (a ListGames page in one store round trip), the ratios
    and the bytes per game are printed, and no lobby entry is left once the games expired."""
    system_tool("redis-server")
    done = subprocess.run(
        [sys.executable, "bench/scale.py", "--games", "400", "--public", "130"]
        + ["--small", "100", "--seconds", "0.5", "--conc", "2", "--waiting-ttl", "30"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert not [line for line in lines if "warning" in line], done.stdout
    calls = [m.groups() for m in map(CALL.fullmatch, lines) if m]
    assert [(phase, call) for phase, call, _, _ in calls] == [
        (phase, call)
        for phase in ("small", "large")
        for call in ("ListGames_page20", "ListGames_page100", "PlayCard", "GetState")
    ], done.stdout
    assert all(int(n) > 0 for _, _, n, _ in calls)
    trips = [float(t) for _, call, _, t in calls if call.startswith("ListGames")]
    assert all(t <= 2 for t in trips), done.stdout
    (ratios,) = [_fields(line) for line in lines if line.startswith("scale ratios ")]
    assert set(ratios) == {
        "listgames_page100_over_page20",
        "listgames_page20_large_over_small",
        "listgames_page100_large_over_small",
        "playcard_large_over_small",
        "getstate_large_over_small",
    } and all(float(v) > 0 for v in ratios.values())
    (memory,) = [_fields(line) for line in lines if line.startswith("scale memory ")]
    assert all(float(memory[f"redis_bytes_per_{k}_game"]) > 0 for k in ("active", "finished"))
    (lobby,) = [_fields(line) for line in lines if line.startswith("scale lobby ")]
    assert lobby["entries_left"] == "0", done.stdout
    (gauge,) = [_fields(line) for line in lines if line.startswith("scale gauge ")]
    assert set(gauge) == {"touch_us_100", "touch_us_400"}
