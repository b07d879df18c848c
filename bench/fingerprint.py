"""Behaviour fingerprint of the rules engine, to check that optimisations change nothing.

For every preset, plays seeded random matches with the policy of ``bench/engine.py`` and hashes
every legal-move list, every event list and the serialised final state. The benchmark's
:func:`pick_move` makes the choices and must pick one of the hashed legal moves, so a match
also shows it plays legal moves (tests/rules/test_bots.py shows it draws like ``rng.choice``). The
hashes only use ``repr`` of plain tuples, ints, floats, strings and enums and the JSON inside
``dump_state``, so they are stable across Python runs. Run from the repository root::

    .venv/bin/python bench/fingerprint.py            # compare with bench/fingerprint.json
    .venv/bin/python bench/fingerprint.py --update   # after an intended behaviour change
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path

from engine import pick_move  # bench/engine.py: the same policy as the benchmark

from scopa.rules import PRESETS, apply_move, dump_state, legal_moves, make_ruleset, new_match

STORED = Path(__file__).with_name("fingerprint.json")


def fingerprint(preset: str, games: int) -> str:
    """SHA-256 over ``games`` seeded random matches of ``preset``."""
    digest = hashlib.sha256()
    ruleset = make_ruleset(preset)
    for seed in range(games):
        rng = random.Random(seed)
        state, events = new_match(ruleset, rng=rng)
        digest.update(repr(events).encode())
        while state.turn >= 0:
            moves = legal_moves(state)
            digest.update(repr(moves).encode())
            move = pick_move(state, rng)
            if move not in moves:
                raise SystemExit(f"{preset}: the policy picked {move}, not a legal move")
            state, events = apply_move(state, state.turn, move, rng)
            digest.update(repr(events).encode())
        digest.update(zlib.decompress(dump_state(state)[1:]))
    return digest.hexdigest()


def main(argv: Sequence[str] | None = None) -> int:
    """Compute the fingerprints and compare them with (or store them in) fingerprint.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="matches per preset")
    parser.add_argument("--preset", action="append", choices=sorted(PRESETS))
    parser.add_argument("--update", action="store_true", help="store the new fingerprints")
    args = parser.parse_args(argv)
    games: int = args.games
    stored: dict[str, str] = json.loads(STORED.read_text()) if STORED.exists() else {}
    key_of = f"{{}}/{games}"
    failed = 0
    for preset in args.preset or list(PRESETS):
        got = fingerprint(preset, games)
        want = stored.get(key_of.format(preset))
        status = "MISSING" if want is None else ("ok" if want == got else "CHANGED")
        failed += status != "ok" and not args.update
        print(f"preset={preset} games={games} {status} {got[:16]}", flush=True)
        if args.update:
            stored[key_of.format(preset)] = got
    if args.update:
        STORED.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
