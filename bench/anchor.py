"""The game servers a frontend team would otherwise pick, measured on this machine in this run.

``bench/anchors/<name>/run.sh MATCHES SECONDS WARMUP`` plays a 2-player capture card game on
that server (boardgame.io 0.50 over socket.io, or Colyseus 0.18 over its WebSocket; both keep
state in memory: no durability, no tracing) and prints one JSON line; its
``server_cpu_us_per_move`` (the server process's utime+stime over confirmed moves) is the
figure our per-call CPU is divided by. The first run installs the anchor's Node packages from
its lock file (``npm ci``). Run alone::

    .venv/bin/python bench/anchor.py [boardgame.io|colyseus] [--matches 16] [--seconds 10]

``bench/service.py --anchor`` runs the boardgame.io anchor before and after its own phases and
prints ``vs_bgio=`` on its PlayCard and GetState lines.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ANCHORS = ("boardgame.io", "colyseus")
SHORT = {"boardgame.io": "bgio", "colyseus": "colyseus"}
"""The suffix of the ``vs_<short>=`` ratio keys."""
_HERE = Path(__file__).resolve().parent / "anchors"
_TIMEOUT_PAD_S = 240.0
"""Time allowed beyond the measured seconds (``npm ci`` on the first run, start, warm-up)."""


@dataclass(frozen=True)
class AnchorRun:
    """One run of an anchor: its name and its JSON line's fields."""

    name: str
    fields: dict[str, object]

    @property
    def cpu_us_per_move(self) -> float:
        """The anchor server's CPU per confirmed move (µs)."""
        return float(self.fields["server_cpu_us_per_move"])  # type: ignore[arg-type]

    def line(self, when: str) -> str:
        """A ``key=value`` line for the bench's output."""
        keep = ("matches", "moves", "moves_per_s", "p50_ms", "p99_ms", "server_cpu_util")
        parts = [f"anchor={self.name}", f"when={when}"]
        parts.append(f"server_cpu_us_per_move={self.cpu_us_per_move:.1f}")
        parts += [f"{key}={self.fields[key]}" for key in keep if key in self.fields]
        return " ".join(parts)


def script(name: str) -> Path:
    """The anchor's ``run.sh`` (a name from :data:`ANCHORS`, or a path to another script)."""
    if name in ANCHORS:
        return _HERE / name / "run.sh"
    return Path(name)


def run(name: str, matches: int, seconds: float, warmup: float = 3.0) -> AnchorRun:
    """Run one anchor and parse its JSON line (the last line of its output that is JSON)."""
    path = script(name)
    if not path.exists():
        raise SystemExit(f"no anchor at {path}")
    cmd = ["bash", str(path), str(matches), f"{seconds:g}", f"{warmup:g}"]
    done = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=seconds + warmup + _TIMEOUT_PAD_S,
        env={**os.environ, "NODE_ENV": "production"},
        check=False,
    )
    for text in reversed(done.stdout.splitlines()):
        if text.startswith("{"):
            fields = json.loads(text)
            fields.setdefault("matches", matches)
            return AnchorRun(name if name in ANCHORS else path.parent.name, fields)
    raise RuntimeError(
        f"{path} printed no JSON line (exit {done.returncode}): {done.stderr[-2000:]}"
    )


def mean_cpu(runs: Sequence[AnchorRun]) -> float:
    """The mean server CPU per move over ``runs`` (0 when there are none)."""
    return statistics.fmean(r.cpu_us_per_move for r in runs) if runs else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    """Run one anchor and print its line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("anchor", nargs="?", default="boardgame.io", help="|".join(ANCHORS))
    parser.add_argument("--matches", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    ns = parser.parse_args(argv)
    print(run(ns.anchor, ns.matches, ns.seconds, ns.warmup).line("alone"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
