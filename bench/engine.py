"""Throughput of the pure rules engine: random legal playouts on one core, per preset.

Every play goes through the same validated :func:`scopa.rules.apply_move` the service uses,
after :func:`scopa.rules.legal_moves`. The policy picks a random card from the hand, then a
random legal capture for that card. Run from the repository root::

    .venv/bin/python bench/engine.py [--seconds 1.5] [--preset scopa ...]

Rates use CPU time of this process (``time.process_time``), so other load on the machine
disturbs them less. Output: one header line, one ``baseline=`` line (the policy alone,
measured in the same run), then exactly one
``preset=<id> hands_per_s=<n> plays_per_s=<n>`` line per preset.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from collections.abc import Sequence

from scopa.rules import (
    PRESETS,
    HandScored,
    MatchState,
    Move,
    Ruleset,
    apply_move,
    legal_moves,
    make_ruleset,
    new_match,
)

__all__ = ["Tally", "choose", "play_for", "run_match"]


class Tally:
    """Counts of plays and completed hands (smazzate)."""

    __slots__ = ("hands", "matches", "plays")

    def __init__(self) -> None:
        self.plays = 0
        self.hands = 0
        self.matches = 0


def choose(moves: Sequence[Move], rng: random.Random) -> Move:
    """A random card among the legal moves' cards, then a random legal capture for it."""
    by_card: dict[int, list[Move]] = {}
    for move in moves:
        group = by_card.get(move.card)
        if group is None:
            by_card[move.card] = [move]
        else:
            group.append(move)
    card = rng.choice(list(by_card))
    return rng.choice(by_card[card])


def run_match(ruleset: Ruleset, rng: random.Random, tally: Tally) -> MatchState:
    """Play one whole match with the random policy; returns its final state."""
    state, _ = new_match(ruleset, rng=rng)
    while state.turn >= 0:
        move = choose(legal_moves(state), rng)
        state, events = apply_move(state, state.turn, move, rng)
        tally.plays += 1
        for event in events:
            if type(event) is HandScored:
                tally.hands += 1
    tally.matches += 1
    return state


def play_for(ruleset: Ruleset, seconds: float, seed: int = 1) -> tuple[Tally, float]:
    """Play matches until ``seconds`` have passed; returns the tally and the time taken."""
    rng = random.Random(seed)
    tally = Tally()
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        run_match(ruleset, rng, tally)
    return tally, time.process_time() - start


def _baseline(seconds: float) -> float:
    """Plays per second of the policy alone, over legal-move lists recorded from real play."""
    rng = random.Random(2)
    state, _ = new_match(make_ruleset("scopa"), rng=rng)
    recorded: list[list[Move]] = []
    while state.turn >= 0 and len(recorded) < 2000:
        moves = legal_moves(state)
        recorded.append(moves)
        state, _ = apply_move(state, state.turn, choose(moves, rng), rng)
    done = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        for moves in recorded:
            choose(moves, rng)
        done += len(recorded)
    return done / (time.process_time() - start)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the arguments and print one line per preset."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.5, help="time per preset")
    parser.add_argument(
        "--preset", action="append", choices=sorted(PRESETS), help="preset(s) to run"
    )
    args = parser.parse_args(argv)
    presets: list[str] = args.preset or list(PRESETS)
    seconds: float = args.seconds
    print(
        f"python={platform.python_version()} impl={platform.python_implementation()} "
        f"machine={platform.machine()} clock=process_time seconds_per_preset={seconds}"
    )
    rate = _baseline(min(seconds, 0.5))
    print(f"baseline=random_choice_only plays_per_s={rate:.0f}")
    for preset in presets:
        tally, elapsed = play_for(make_ruleset(preset), seconds)
        print(
            f"preset={preset} hands_per_s={tally.hands / elapsed:.0f} "
            f"plays_per_s={tally.plays / elapsed:.0f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
