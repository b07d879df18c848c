"""Bot strength and speed: games between bot levels, win rates and per-move think times.

Each pair ``<a>-vs-<b>`` plays ``--games`` games of ``--preset`` (2 players), ``a`` taking seat 0
in even games and seat 1 in odd ones, every game from its own seed. Run from the repository
root::

    .venv/bin/python bench/bots.py [--games 40] [--pair greedy-vs-random ...] [--seconds 0.02]
                                   [--clock wall|cpu]

Output: one header line (the budget, the engine implementation, the load average), then per pair
``bots=<a>-vs-<b> games=<n> win_rate=<x> ci95=<lo>-<hi> move_p50_ms=<x> move_p99_ms=<x>
cpu_p50_ms=<x> cpu_p99_ms=<x>``. ``win_rate`` is ``a``'s (a drawn game counts half; the 95%
interval is Wilson's); the move times are ``a``'s moves only, wall clock (what a player waits,
and what a time budget bounds) and CPU time of this process (``time.process_time``: on a shared
machine the wall figures are inflated by other load and the CPU ones show by how much). Goals
(issue 10): greedy beats random in >= 80% of 2-player scopa games; ismcts beats greedy in >= 60%;
ismcts move p99 <= 50 ms at the default budget.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import random
import time
from collections.abc import Sequence
from typing import NamedTuple

from compiled import is_compiled  # bench/compiled.py

from scopa.bots import DEFAULT_BUDGET, Budget, Level, choose
from scopa.rules import PRESETS, apply_action, make_ruleset, new_match, observe

DEFAULT_PAIRS = ("greedy-vs-random", "ismcts-vs-greedy", "ismcts-vs-random")


class PairResult(NamedTuple):
    """What one pair of levels did: ``a``'s score and its per-move times (seconds)."""

    games: int
    score: float
    wall: list[float]
    cpu: list[float]


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's 95% interval of a proportion ``score / n``."""
    if n == 0:
        return 0.0, 1.0
    p = score / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) of ``values``; 0 when empty."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def play_game(
    preset: str, levels: Sequence[Level], seed: int, budget: Budget, tracked: int
) -> PairResult:
    """One game: seat ``tracked``'s score (1 win, shared wins split, 0 loss) and move times."""
    rng = random.Random(seed)
    state, _ = new_match(make_ruleset(preset, {"players": len(levels)}), rng=rng)
    wall: list[float] = []
    cpu: list[float] = []
    while not state.finished:
        seat = state.turn
        started, started_cpu = time.perf_counter(), time.process_time()
        action = choose(observe(state, seat), rng, budget, levels[seat])
        if seat == tracked:
            wall.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
        state, _ = apply_action(state, seat, action, rng)
    side = state.ruleset.options.side_of(tracked)
    winners = state.winners
    score = (1.0 / len(winners)) if side in winners else 0.0
    return PairResult(1, score, wall, cpu)


def play_pair(preset: str, a: Level, b: Level, games: int, budget: Budget, seed: int) -> PairResult:
    """``games`` games of ``a`` against ``b``, ``a`` at seat 0 in even games, seat 1 in odd."""
    score = 0.0
    wall: list[float] = []
    cpu: list[float] = []
    for game in range(games):
        seat = game % 2
        levels = (a, b) if seat == 0 else (b, a)
        result = play_game(preset, levels, seed + game, budget, seat)
        score += result.score
        wall += result.wall
        cpu += result.cpu
    return PairResult(games, score, wall, cpu)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


def report(pair: str, result: PairResult) -> str:
    """The pair's line."""
    lo, hi = wilson(result.score, result.games)
    return (
        f"bots={pair} games={result.games} win_rate={result.score / result.games:.3f} "
        f"ci95={lo:.3f}-{hi:.3f} move_p50_ms={_ms(percentile(result.wall, 0.5))} "
        f"move_p99_ms={_ms(percentile(result.wall, 0.99))} "
        f"cpu_p50_ms={_ms(percentile(result.cpu, 0.5))} "
        f"cpu_p99_ms={_ms(percentile(result.cpu, 0.99))}"
    )


def _level_pair(text: str) -> tuple[str, Level, Level]:
    a, sep, b = text.partition("-vs-")
    if not sep:
        raise argparse.ArgumentTypeError(f"not <a>-vs-<b>: {text!r}")
    try:
        return text, Level(a), Level(b)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"levels are {', '.join(Level)}: {text!r}") from exc


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the arguments, print the header and one line per pair."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per pair")
    parser.add_argument(
        "--pair", action="append", type=_level_pair, help=f"default: {' '.join(DEFAULT_PAIRS)}"
    )
    parser.add_argument("--preset", default="scopa", choices=sorted(PRESETS))
    parser.add_argument(
        "--seconds", type=float, default=DEFAULT_BUDGET.seconds, help="ismcts time per move"
    )
    parser.add_argument(
        "--iterations", type=int, default=DEFAULT_BUDGET.iterations, help="ismcts iterations cap"
    )
    parser.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="what the time budget counts: wall time (the service's), or this process's CPU "
        "time (what the budget buys on an idle core; for a shared machine)",
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    pairs: list[tuple[str, Level, Level]] = args.pair or [_level_pair(t) for t in DEFAULT_PAIRS]
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    budget = Budget(iterations=args.iterations, seconds=args.seconds, clock=clock)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else -1.0
    print(
        f"python={platform.python_version()} preset={args.preset} players=2 "
        f"budget_seconds={budget.seconds} budget_iterations={budget.iterations} "
        f"budget_clock={args.clock} "
        f"rules={'mypyc' if is_compiled() else 'python'} cpus={os.cpu_count()} "
        f"loadavg_1m={load:.2f}",
        flush=True,
    )
    for text, a, b in pairs:
        result = play_pair(args.preset, a, b, args.games, budget, args.seed)
        print(report(text, result), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
