"""PlayCard's server CPU per call of another commit's server against this tree's, in one run.

Exports ``REF`` (``git archive``) into ``build/compare/<commit>`` (reused when present), then runs
``bench/service.py`` ``--rounds`` times against each server, alternating (REF then this tree in
even rounds, this tree then REF in odd ones, so a drift of the machine's load hits both alike).
Only the server differs: the bench, its clients and its engine mirror are this tree's, and
``--server-path`` gives the server process ``PYTHONPATH`` at the tree's ``service`` and
``clients/python/src``. The server is ``python -m scopa.server`` configured by environment
variables only, so an older tree runs as it is (variables it does not know are left unread).
Run from the repository root::

    .venv/bin/python bench/compare.py d9d6f8c [--rounds 3] [--calls grpc rest connect]
        [--seconds 10] [--conc 64] [--compiled [both|head]]

``--compiled`` (``both``) builds each tree's compiled modules with that tree's
``tools/build_mypyc.py`` (REF's into ``build/compare/mypyc-<commit>``, reused; this tree's into
``build/compare/mypyc-head``, rebuilt) and puts them first on the server's ``PYTHONPATH``, as the
container image runs it. ``--compiled head`` compiles this tree's only: each tree as its own
``make run`` runs it on a machine with a C compiler, for a REF whose ``make run`` was
interpreted.

Output: one progress line per bench run on stderr, then a table on stdout: per protocol, the
median over the rounds of the server's ``cpu_us_per_call`` on the isolated PlayCard line, for
REF and for this tree (``head``, uncommitted changes included), ``head/ref`` (the ratio of the
medians) and the range of the per-round ratios (each round pairs two adjacent runs). Machines
differ up to 4x in these figures; compare ratios measured in one run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Args", "main", "order", "parse_args", "playcard_cpu", "table"]

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build" / "compare"
PROTOCOLS = ("grpc", "rest", "connect")
_EXPORTED = ".exported"
"""Written last into an export, so a half-written one is not reused."""


@dataclass(frozen=True)
class Args:
    """Command-line settings."""

    ref: str
    rounds: int
    calls: tuple[str, ...]
    seconds: float
    conc: int
    compiled: str
    """Which trees run compiled: ``none``, ``both`` or ``head``."""


def parse_args(argv: Sequence[str] | None = None) -> Args:
    """The settings of ``argv``; exits with a usage message when they are wrong."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ref", help="the commit to compare with (any git revision)")
    parser.add_argument("--rounds", type=int, default=3, help="bench runs per tree (default 3)")
    parser.add_argument(
        "--calls",
        nargs="+",
        choices=PROTOCOLS,
        default=list(PROTOCOLS),
        metavar="PROTO",
        help="the PlayCard calls to report: grpc, rest, connect (default: all three)",
    )
    parser.add_argument("--seconds", type=float, default=10.0, help="bench/service.py --seconds")
    parser.add_argument("--conc", type=int, default=64, help="bench/service.py --conc")
    parser.add_argument(
        "--compiled",
        nargs="?",
        const="both",
        default="none",
        choices=["none", "both", "head"],
        help="run the trees compiled by mypyc: both (the default of --compiled) or head only",
    )
    ns = parser.parse_args(argv)
    if ns.rounds < 1:
        parser.error("--rounds must be at least 1")
    if ns.seconds <= 0 or ns.conc <= 0:
        parser.error("--seconds and --conc must be positive")
    calls = tuple(p for p in PROTOCOLS if p in ns.calls)
    return Args(ns.ref, ns.rounds, calls, ns.seconds, ns.conc, ns.compiled)


def order(round_index: int) -> tuple[str, str]:
    """Which tree runs first in a round: REF in even rounds, this tree in odd ones."""
    return ("ref", "head") if round_index % 2 == 0 else ("head", "ref")


def playcard_cpu(output: str) -> dict[str, float]:
    """Server CPU per PlayCard call (us) by protocol, from bench/service.py's isolated lines."""
    found: dict[str, float] = {}
    for line in output.splitlines():
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        if fields.get("rpc") == "PlayCard" and fields.get("cpu_attrib") == "isolated":
            found[fields["proto"]] = float(fields["cpu_us_per_call"])
    return found


def table(
    ref: Mapping[str, Sequence[float]],
    head: Mapping[str, Sequence[float]],
    calls: Sequence[str] = PROTOCOLS,
) -> list[str]:
    """The comparison's lines: per protocol the medians, their ratio and the per-round ratios.

    ``ref[proto][i]`` and ``head[proto][i]`` are round ``i``'s figures (us per call).
    """
    lines = [f"{'proto':<8} {'ref_us':>8} {'head_us':>8} {'head/ref':>8}  round ratios"]
    for proto in calls:
        olds, news = ref[proto], head[proto]
        old, new = statistics.median(olds), statistics.median(news)
        paired = sorted(n / o for o, n in zip(olds, news, strict=True) if o)
        spread = f"{paired[0]:.2f}..{paired[-1]:.2f}" if paired else "-"
        ratio = f"{new / old:.2f}" if old else "-"
        lines.append(f"{proto:<8} {old:>8.0f} {new:>8.0f} {ratio:>8}  {spread}")
    return lines


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip()


def export(commit: str) -> Path:
    """REF's files in ``build/compare/<commit>``: exported once, then reused."""
    tree = BUILD / commit[:12]
    if (tree / _EXPORTED).exists():
        return tree
    BUILD.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f"{commit[:12]}-", dir=BUILD))
    archive = subprocess.Popen(["git", "archive", commit], cwd=ROOT, stdout=subprocess.PIPE)
    untar = subprocess.run(["tar", "-x", "-C", str(staging)], stdin=archive.stdout, check=False)
    if archive.wait() or untar.returncode:
        raise SystemExit(f"could not export {commit} into {staging}")
    (staging / _EXPORTED).write_text(commit + "\n")
    if tree.exists():  # a half-written export of an earlier run
        shutil.rmtree(tree)
    staging.rename(tree)
    return tree


def build_compiled(tree: Path, out: Path, reuse: bool) -> Path:
    """``tree``'s engine compiled by its own tools/build_mypyc.py into ``out``."""
    marker = out / _EXPORTED
    if reuse and marker.exists():
        return out
    env = {**os.environ, "PYTHONPATH": _pythonpath(tree)}
    done = subprocess.run(
        [sys.executable, str(tree / "tools" / "build_mypyc.py"), "--out", str(out)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"mypyc build of {tree} failed:\n{done.stderr[-4000:]}")
    marker.write_text("built\n")
    return out


def _pythonpath(tree: Path, first: Path | None = None) -> str:
    parts = [tree / "service", tree / "clients" / "python" / "src"]
    return os.pathsep.join(str(p) for p in ([first] if first else []) + parts)


def _bench(args: Args, server_path: str) -> dict[str, float]:
    """One bench/service.py run of this tree against the server at ``server_path``."""
    cmd = [
        sys.executable,
        str(ROOT / "bench" / "service.py"),
        "--seconds", str(args.seconds),
        "--conc", str(args.conc),
        "--server-path", server_path,
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": _pythonpath(ROOT)}
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    figures = playcard_cpu(done.stdout)
    missing = [p for p in PROTOCOLS if p not in figures]
    if done.returncode or missing:
        raise SystemExit(
            f"bench/service.py --server-path {server_path} failed (exit {done.returncode}, "
            f"no PlayCard line for {missing}):\n{done.stdout[-2000:]}{done.stderr[-4000:]}"
        )
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    """Export REF, run the bench alternately against both servers, print the table."""
    args = parse_args(argv)
    commit = _git("rev-parse", "--verify", f"{args.ref}^{{commit}}")
    head = _git("rev-parse", "--short=12", "HEAD")
    dirty = "+dirty" if _git("status", "--porcelain", "--untracked-files=no") else ""
    tree = export(commit)
    first: dict[str, Path | None] = {"ref": None, "head": None}
    if args.compiled == "both":
        first["ref"] = build_compiled(tree, BUILD / f"mypyc-{commit[:12]}", reuse=True)
    if args.compiled in ("both", "head"):
        first["head"] = build_compiled(ROOT, BUILD / "mypyc-head", reuse=False)
    paths = {"ref": _pythonpath(tree, first["ref"]), "head": _pythonpath(ROOT, first["head"])}
    figures: dict[str, dict[str, list[float]]] = {
        side: {p: [] for p in PROTOCOLS} for side in paths
    }
    for round_index in range(args.rounds):
        for side in order(round_index):
            got = _bench(args, paths[side])
            for proto, value in got.items():
                figures[side][proto].append(value)
            shown = " ".join(f"{p}={got[p]:.0f}" for p in args.calls)
            print(f"# round {round_index + 1}/{args.rounds} {side}: {shown}", file=sys.stderr)
    print(
        f"compare ref={args.ref} ({commit[:12]}) head={head}{dirty} rounds={args.rounds} "
        f"seconds={args.seconds:g} conc={args.conc} compiled={args.compiled} "
        f"figure=server_cpu_us_per_PlayCard (median of rounds)"
    )
    for line in table(figures["ref"], figures["head"], args.calls):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
