"""Play random games over random presets and option mixes on every core, checking the engine's
invariants; print each failure as a ready regression test.

Usage (from anywhere; paths are relative to the repository root):

    python tools/fuzz_rules.py --minutes 60         # every core, an hour
    python tools/fuzz_rules.py --games 200 --seed 7 # a fixed number of games, reproducibly

Each game draws a preset, a mix of options (any option, with values from a small domain per
option; a mix make_ruleset refuses loses the option it names until it is accepted), a seed and
a policy (tests/rules/invariants.py: ``mixed``, ``uniform`` over every legal action, or the
``scopa.bots.random_action``), then plays it with ``invariants.play_game``, which checks that
the cards are conserved, the seat to play always has a legal action, the views hide what they
must, the state round-trips through the stored format and the game ends within MAX_HANDS hands.

A game is a function of (preset, overrides, seed, policy): each failure prints those four as an
entry for ``CASES`` in tests/rules/test_fuzz_cases.py, and the run exits 1. The last lines
say how many games, distinct option combinations and hands were played.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import sys
import time
import traceback
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parent.parent
for _path in (ROOT / "service", ROOT / "tests" / "rules"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from invariants import POLICIES, Policy, plain_overrides, play_game  # noqa: E402

from scopa.rules import PRESETS, InvalidOption, Ruleset, list_options, make_ruleset  # noqa: E402

_INTS: Final[dict[str, tuple[int, ...]]] = {
    "players": (2, 3, 4, 6),
    "deck_size": (40, 52, 80),
    "hand_size": (1, 2, 3, 4, 5, 6, 9, 10),
    "table_cards": (0, 1, 2, 4, 6),
    "first_dealer": (-1, 0, 1, 2, 5),
    "kings_redeal": (0, 2, 3, 4),
    "target_score": (1, 5, 11, 16, 21, 31),
    "hand_limit": (0, 1, 2, 5, 60),
}
"""The values drawn for each integer option; any other integer option (points) takes 0-3."""
_POINTS: Final = (0, 1, 2, 3)
_MIXES: Final = (0, 1, 2, 3, 4, 6, 8, 12)
"""How many options a game overrides, one drawn per game."""
_OPTIONS: Final = list_options()


@dataclasses.dataclass
class Tally:
    """What a worker played."""

    games: int = 0
    hands: int = 0
    combinations: set[Ruleset] = dataclasses.field(default_factory=set)
    """The distinct rulesets played (a drawn value equal to the preset's own adds nothing)."""
    failures: list[str] = dataclasses.field(default_factory=list)
    slowest: tuple[float, str] = (0.0, "")
    """The longest game's seconds and its case."""

    def add(self, other: Tally) -> None:
        """Fold ``other`` into this tally."""
        self.games += other.games
        self.hands += other.hands
        self.combinations |= other.combinations
        self.failures += other.failures
        self.slowest = max(self.slowest, other.slowest)


def draw_mix(rng: random.Random) -> tuple[str, dict[str, Any]]:
    """A preset and a random mix of option overrides."""
    preset = rng.choice(sorted(PRESETS))
    overrides: dict[str, Any] = {}
    for info in rng.sample(_OPTIONS, rng.choice(_MIXES)):
        if info.type == "bool":
            overrides[info.name] = rng.random() < 0.5
        elif info.type == "enum":
            overrides[info.name] = rng.choice(info.choices)
        else:
            overrides[info.name] = rng.choice(_INTS.get(info.name, _POINTS))
    return preset, overrides


def accepted(preset: str, overrides: dict[str, Any], rng: random.Random) -> Ruleset:
    """The ruleset of ``overrides`` less the options make_ruleset refuses (the one an error
    names, else one at random): every preset alone is accepted, so one always is."""
    while True:
        try:
            return make_ruleset(preset, overrides)
        except InvalidOption as err:
            drop = err.field if err.field in overrides else rng.choice(sorted(overrides))
            overrides = {k: v for k, v in overrides.items() if k != drop}


def case_line(rules: Ruleset, seed: int, policy: Policy) -> str:
    """The regression-test entry that replays one game (the overrides that rebuild its
    ruleset, no more)."""
    return f"    ({rules.preset!r}, {plain_overrides(rules)!r}, {seed}, {policy!r}),"


def play_one(rules: Ruleset, seed: int, policy: Policy) -> tuple[int, str | None]:
    """Play one game: the hands it played, and its failure as text (the case to paste, then the
    error) or ``None``."""
    try:
        state = play_game(rules, seed, policy)
    except Exception as err:
        where = traceback.extract_tb(err.__traceback__)[-1]
        first = (str(err).splitlines() or [""])[0][:200]
        return 0, (
            f"{case_line(rules, seed, policy)}\n"
            f"    # {type(err).__name__}: {first} ({Path(where.filename).name}:{where.lineno})"
        )
    return state.hand_number, None


def games(rng: random.Random) -> Iterator[tuple[Ruleset, int, Policy]]:
    """Endless game draws: a ruleset, a seed and a policy."""
    while True:
        rules = accepted(*draw_mix(rng), rng)
        yield rules, rng.randrange(2**32), rng.choice(POLICIES)


def work(seed: int, deadline: float, limit: int) -> Tally:
    """Play games until ``deadline`` (time.time()) or ``limit`` games (0: no limit)."""
    tally = Tally()
    for rules, game_seed, policy in games(random.Random(seed)):
        if time.time() >= deadline or (limit and tally.games >= limit):
            break
        tally.combinations.add(rules)
        started = time.monotonic()
        hands, failure = play_one(rules, game_seed, policy)
        took = time.monotonic() - started
        if took > tally.slowest[0]:
            tally.slowest = (took, case_line(rules, game_seed, policy).strip())
        if failure is not None:
            tally.failures.append(failure)
        tally.games += 1
        tally.hands += hands
    return tally


def fuzz(minutes: float, games_limit: int, seed: int, workers: int) -> Tally:
    """Every worker's tally, folded; ``workers`` 1 plays in this process."""
    deadline = time.time() + minutes * 60 if minutes else float("inf")
    share = -(-games_limit // workers) if games_limit else 0
    seeds = [seed * 1000 + w for w in range(workers)]
    total = Tally()
    if workers == 1:
        total.add(work(seeds[0], deadline, share))
        return total
    with ProcessPoolExecutor(workers) as pool:
        for tally in pool.map(work, seeds, [deadline] * workers, [share] * workers):
            total.add(tally)
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=0.0, help="play this long")
    parser.add_argument("--games", type=int, default=0, help="or this many games (all workers)")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (0: from the clock)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    if not args.minutes and not args.games:
        parser.error("give --minutes or --games")
    seed = args.seed or int(time.time())
    started = time.monotonic()
    tally = fuzz(args.minutes, args.games, seed, max(1, args.workers))
    elapsed = time.monotonic() - started
    if tally.failures:
        print(
            f"{len(tally.failures)} failing games; add to CASES in tests/rules/test_fuzz_cases.py:"
        )
        for failure in tally.failures:
            print(failure)
    print(
        f"fuzz_rules: seed {seed}, {args.workers} workers, {elapsed / 60:.1f} min:"
        f" {tally.games} games, {len(tally.combinations)} option combinations,"
        f" {tally.hands} hands, {len(tally.failures)} failures"
    )
    seconds, case = tally.slowest
    print(f"fuzz_rules: the longest game took {seconds:.1f} s: {case}")
    return 1 if tally.failures else 0


if __name__ == "__main__":
    sys.exit(main())
