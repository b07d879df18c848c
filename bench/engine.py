"""Throughput of the pure rules engine: random legal playouts on one core, per preset.

Every play goes through the same validated engine the service uses (``apply_move``, or
``apply_action`` for the actions named below).
The policy, :func:`scopa.bots.random_move` (compiled with the engine), picks a
random card from the hand, then a random legal capture for that card; it draws from the RNG
exactly as ``rng.choice`` over the legal moves grouped by card (tests/bots/test_random.py).
A ruleset that builds farms (``fattoria``) plays :func:`scopa.bots.random_action` instead, a
uniform pick among every legal action (builds and raises too), through ``apply_action``.
Run from the repository root::

    .venv/bin/python bench/engine.py [--seconds 1.5] [--preset scopa ...] [--impl python]

``--impl mypyc`` (or ``both``) also measures the same source compiled by mypyc: build it first
with ``.venv/bin/python tools/build_mypyc.py``; the compiled run is a child process with
``build/mypyc`` first on ``PYTHONPATH`` (see ``bench/compiled.py``) and its lines end with an
``impl=mypyc`` tag (``both`` tags the interpreted lines ``impl=python``). The service image and
``make run-compiled`` run the service on that compiled build.

Rates use CPU time of this process (``time.process_time``), so other load on the machine
disturbs them less. Output: one header line, one ``baseline=`` line (the policy alone,
measured in the same run), then exactly one ``preset=<id> hands_per_s=<n> plays_per_s=<n>
scopa_plays_per_s=<n> plays_vs_scopa=<x>`` line per preset (and implementation): each preset is
measured in ten slices alternating with slices of scopa (after one warm-up), and
``plays_vs_scopa`` is its plays per second over scopa's of those slices, a figure that carries
from one machine to another where hands per second do not, and holds while the machine's speed
drifts during a run (``scopa_plays_per_s`` from line to line shows how far it drifts). A
preset with claimed sweeps (Scopa fidasse) gets a second line tagged ``policy=claims``, whose
policy also claims a sweep at one turn in ten (when it may) and answers each claim at random,
through :func:`scopa.rules.apply_action` (the plain line never claims).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Final

from compiled import CHILD_MARK, is_compiled, run_compiled  # bench/compiled.py

from scopa.bots import play_out, random_action, random_move
from scopa.rules import (
    PLAY,
    PRESETS,
    Action,
    Answer,
    Claim,
    Event,
    HandScored,
    MatchState,
    Move,
    Ruleset,
    apply_action,
    apply_move,
    build_rules,
    claim_rules,
    legal_actions,
    make_ruleset,
    new_match,
)

__all__ = [
    "Tally",
    "claiming_action",
    "pick_action",
    "pick_move",
    "play",
    "play_for",
    "play_hands_for",
    "run_claiming_match",
    "run_match",
]


class Tally:
    """Counts of plays and completed hands (smazzate)."""

    __slots__ = ("hands", "plays")

    def __init__(self) -> None:
        self.plays = 0
        self.hands = 0


pick_move: Final = random_move
"""The benchmark's policy, :func:`scopa.bots.random_move`: a random card, then a random legal
capture for it (tests/bots/test_random.py shows it draws like ``rng.choice`` over legal moves)."""


def pick_action(ruleset: Ruleset) -> Callable[[MatchState, random.Random], Move | Action]:
    """The policy for ``ruleset``: :func:`pick_move`, or :func:`scopa.bots.random_action` (a
    uniform legal action, builds included) where the ruleset builds farms (Scopa della fattoria).
    """
    return random_action if build_rules(ruleset.options) else pick_move


def play(
    state: MatchState, action: Move | Action, rng: random.Random
) -> tuple[MatchState, list[Event]]:
    """The seat to move takes ``action``: a :class:`Move` through ``apply_move``, any other
    action through ``apply_action`` (the one dispatch of the benchmark and the fingerprint)."""
    if type(action) is Move:
        return apply_move(state, state.turn, action, rng)
    return apply_action(state, state.turn, action, rng)


def claiming_action(state: MatchState, rng: random.Random) -> Move | Action:
    """The claiming policy: answer a pending claim at random; else at one turn in ten claim a
    sweep (a random claim, when one may be made); else :func:`pick_move`."""
    if state.phase != PLAY:
        return Answer(trust=rng.random() < 0.5)
    if rng.random() < 0.1:
        claims = [a for a in legal_actions(state) if isinstance(a, Claim)]
        if claims:
            return rng.choice(claims)
    return pick_move(state, rng)


def run_match(ruleset: Ruleset, rng: random.Random, tally: Tally) -> MatchState:
    """Play one whole match with the random policy; returns its final state."""
    state, _ = new_match(ruleset, rng=rng)
    pick = pick_action(ruleset)
    while state.turn >= 0:
        state, events = play(state, pick(state, rng), rng)
        tally.plays += 1
        for event in events:
            if type(event) is HandScored:
                tally.hands += 1
    return state


def run_claiming_match(ruleset: Ruleset, rng: random.Random, tally: Tally) -> MatchState:
    """One whole match with :func:`claiming_action` (only its moves count as plays)."""
    state, _ = new_match(ruleset, rng=rng)
    while state.turn >= 0:
        action = claiming_action(state, rng)
        state, events = play(state, action, rng)
        tally.plays += type(action) is Move
        for event in events:
            if type(event) is HandScored:
                tally.hands += 1
    return state


def play_for(
    ruleset: Ruleset, seconds: float, seed: int = 1, match: Callable[..., MatchState] = run_match
) -> tuple[Tally, float]:
    """Play matches until ``seconds`` have passed; returns the tally and the time taken."""
    rng = random.Random(seed)
    tally = Tally()
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        match(ruleset, rng, tally)
    return tally, time.process_time() - start


def play_hands_for(ruleset: Ruleset, seconds: float, seed: int = 1) -> tuple[Tally, float]:
    """The rollout path: deal a hand (``new_match``) and :func:`play_out` it, until ``seconds``."""
    rng = random.Random(seed)
    tally = Tally()
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        for _ in range(20):
            state, _ = new_match(ruleset, rng=rng)
            # every card not on the table is played
            tally.plays += ruleset.options.deck_size - len(state.table)
            play_out(state, rng)
            tally.hands += 1
    return tally, time.process_time() - start


def _baseline(seconds: float) -> float:
    """Plays per second of the policy alone, over states recorded from real play."""
    rng = random.Random(2)
    state, _ = new_match(make_ruleset("scopa"), rng=rng)
    recorded: list[MatchState] = []
    while state.turn >= 0 and len(recorded) < 2000:
        recorded.append(state)
        state, _ = apply_move(state, state.turn, pick_move(state, rng), rng)
    done = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        for state in recorded:
            pick_move(state, rng)
        done += len(recorded)
    return done / (time.process_time() - start)


REFERENCE: Final = "scopa"
"""The preset every line's ``plays_vs_scopa`` divides by, measured in slices beside each preset."""


SLICES: Final = 10
"""Rounds a preset's time is cut into, each a slice of the reference then one of the preset."""


def _paired(
    ruleset: Ruleset, seconds: float, match: Callable[..., MatchState] = run_match
) -> tuple[Tally, float, float]:
    """``ruleset`` and the reference (scopa) in alternating slices of ``seconds / SLICES``, so a
    drift of the machine's speed within the run hits both alike; the preset's tally and time, and
    scopa's plays a second. Each slice plays its own seeds."""
    tally, elapsed, reference, spent = Tally(), 0.0, 0, 0.0
    reference_rules = make_ruleset(REFERENCE)
    for index in range(SLICES):
        done, took = play_for(reference_rules, seconds / SLICES, seed=1000 + index)
        reference, spent = reference + done.plays, spent + took
        done, took = play_for(ruleset, seconds / SLICES, seed=1 + index, match=match)
        tally.plays, tally.hands, elapsed = (
            tally.plays + done.plays,
            tally.hands + done.hands,
            elapsed + took,
        )
    return tally, elapsed, reference / spent


def _line(preset: str, tally: Tally, elapsed: float, reference: float) -> str:
    """A preset's line: hands and plays per second, scopa's beside it and the ratio of the two."""
    plays = tally.plays / elapsed
    return (
        f"preset={preset} hands_per_s={tally.hands / elapsed:.0f} plays_per_s={plays:.0f} "
        f"scopa_plays_per_s={reference:.0f} plays_vs_scopa={plays / reference:.2f}"
    )


def _measure(presets: Sequence[str], seconds: float, impl: str, tagged: bool) -> None:
    """Print the header, the baseline and one line per preset for the engine imported here."""
    tag = f" impl={impl}" if tagged else ""
    print(
        f"python={platform.python_version()} impl={platform.python_implementation()} "
        f"machine={platform.machine()} clock=process_time seconds_per_preset={seconds}"
        f" rules={impl}"
    )
    rate = _baseline(min(seconds, 0.5))
    print(f"baseline=random_choice_only plays_per_s={rate:.0f}")
    play_for(make_ruleset(REFERENCE), min(seconds, 0.5))  # warm: its caches, the interpreter's
    for preset in presets:
        tally, elapsed, reference = _paired(make_ruleset(preset), seconds)
        print(_line(preset, tally, elapsed, reference) + tag, flush=True)
        if claim_rules(make_ruleset(preset).options):
            tally, elapsed, reference = _paired(make_ruleset(preset), seconds, run_claiming_match)
            print(_line(preset, tally, elapsed, reference) + f" policy=claims{tag}", flush=True)
    if impl != "mypyc":
        return
    for preset in presets:
        tally, elapsed = play_hands_for(make_ruleset(preset), seconds)
        print(
            f"preset={preset} hands_per_s={tally.hands / elapsed:.0f} "
            f"plays_per_s={tally.plays / elapsed:.0f} impl=rollout",
            flush=True,
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the arguments and print one line per preset (and implementation)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds",
        type=float,
        default=1.5,
        help="time per preset (as much again goes to the scopa slices beside it)",
    )
    parser.add_argument(
        "--preset", action="append", choices=sorted(PRESETS), help="preset(s) to run"
    )
    parser.add_argument(
        "--impl",
        choices=["python", "mypyc", "both"],
        default="python",
        help="the interpreted engine, the mypyc build of the same source, or both",
    )
    args = parser.parse_args(argv)
    presets: list[str] = args.preset or list(PRESETS)
    seconds: float = args.seconds
    impl: str = args.impl
    if is_compiled():  # build/mypyc on PYTHONPATH: say so on every line
        _measure(presets, seconds, "mypyc", tagged=True)
        return 0
    if impl == "mypyc" and os.environ.get(CHILD_MARK):
        raise SystemExit("scopa.rules did not import compiled in the child process")
    if impl != "mypyc":
        _measure(presets, seconds, "python", tagged=impl == "both")
    if impl == "python":
        return 0
    child = ["--seconds", str(seconds), "--impl", "mypyc"]
    for preset in presets:
        child += ["--preset", preset]
    sys.stdout.flush()
    return run_compiled("engine.py", child)


if __name__ == "__main__":
    sys.exit(main())
