"""Behaviour fingerprint of the rules engine, to check that optimisations change nothing.

For every preset, plays seeded random matches with the policy of ``bench/engine.py`` and hashes
the outcome of every step: every legal-move list, every event and the final scores. The hash
is over a canonical spelling of those outcomes (:func:`outcome`: card ints, tags and points in
a fixed order), not over the engine's classes or its storage format, so a refactor that keeps
every game the same keeps the fingerprint; change :func:`outcome` together with the engine's
types when they change shape, and the unchanged stored fingerprint shows nothing else did. The
benchmark's :func:`pick_move` makes the choices and must pick one of the hashed legal moves, so
a match also shows it plays legal moves (tests/bots/test_random.py shows it draws like
``rng.choice``). That policy never claims a sweep, so a preset with claimed sweeps (Scopa
fidasse) gets a second line, ``policy=claims`` (stored as ``<preset>+claims/<games>``), played
by the benchmark's claiming policy (``engine.claiming_action``): claims, answers and their
settlement are fingerprinted there. Run from the repository root::

    .venv/bin/python bench/fingerprint.py            # compare with bench/fingerprint.json
    .venv/bin/python bench/fingerprint.py --update   # after an intended behaviour change
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, assert_never

from engine import claiming_action, pick_action, play  # bench/engine.py: its policies

from scopa.rules import (
    PRESETS,
    AceReturned,
    Action,
    Answer,
    BonusScored,
    Build,
    CardPlayed,
    CardsDealt,
    Claim,
    ClaimAnswered,
    ClaimOutcome,
    Declare,
    Declared,
    Event,
    Farm,
    GameFinished,
    HandScored,
    HandStarted,
    LeftoverTaken,
    MatchState,
    Move,
    Redealt,
    SeatResigned,
    Steal,
    SweepClaimed,
    apply_action,
    claim_rules,
    legal_actions,
    legal_moves,
    make_ruleset,
    new_match,
)

STORED = Path(__file__).with_name("fingerprint.json")


def outcome(event: Event) -> tuple[Any, ...]:
    """The canonical spelling of one event: its kind, then its facts in a fixed order."""
    if isinstance(event, HandStarted):
        return ("hand", event.hand_number, event.dealer, event.table)
    if isinstance(event, Redealt):
        return ("redeal", event.hand_number, event.reason, event.table)
    if isinstance(event, AceReturned):
        return ("ace_returned", event.card)
    if isinstance(event, CardsDealt):
        return ("dealt", event.seat, event.n_cards, event.cards)
    if isinstance(event, BonusScored):
        return ("bonus", event.seat, event.side, event.name, event.points, event.cards)
    if isinstance(event, CardPlayed):
        played = (event.seat, event.card, event.captured, event.taken, event.sweep)
        stolen = (event.stolen_from,) if event.stolen_from >= 0 else ()
        farm = (_farm(event.farm),) if event.farm is not None else ()
        claim = (_claim(event.claim),) if event.claim is not None else ()
        return ("played", *played, event.specials, *stolen, *farm, *claim)
    if isinstance(event, SweepClaimed):
        return ("claimed", event.seat, event.table, event.answering)
    if isinstance(event, ClaimAnswered):
        return ("answered", event.seat, event.trust)
    if isinstance(event, Declared):
        return ("declared", event.seat, event.name, event.cards, event.points)
    if isinstance(event, LeftoverTaken):
        return ("leftovers", event.seat, event.cards)
    if isinstance(event, HandScored):
        r = event.result
        lines = tuple((c.name, c.points, c.values) for c in r.score.components)
        return ("scored", r.hand_number, lines, r.score.totals, r.score.napoleone, r.totals)
    if isinstance(event, GameFinished):
        return ("finished", event.winners, event.reason.value, event.scores)
    if isinstance(event, SeatResigned):
        return ("resigned", event.seat)
    raise TypeError(f"unknown event {event!r}")


def _farm(farm: Farm) -> tuple[Any, ...]:
    return ("farm", farm.owner, farm.value, farm.cards)


def _claim(claim: ClaimOutcome) -> tuple[Any, ...]:
    return ("claim", claim.doubter, claim.genuine, claim.doubter_specials)


def _actions(actions: list[Action]) -> tuple[Any, ...]:
    """A play as (card, capture), a declaration as (name, cards), a steal as ("steal", card,
    side)."""
    return tuple(_action(a) for a in actions)


def _action(action: Action) -> tuple[Any, ...]:
    match action:
        case Move():
            return (action.card, action.capture)
        case Declare():
            return (action.name, action.cards)
        case Steal():
            return ("steal", action.card, action.side)
        case Claim():
            return ("claim", action.card)
        case Answer():
            return ("answer", action.trust)
        case Build():
            return ("build", action.card, action.onto, action.value)
        case _:
            assert_never(action)


def _final(state: MatchState) -> tuple[Any, ...]:
    return (state.hand_number, state.scores, state.winners, state.finish_reason.value)


def fingerprint(preset: str, games: int, claims: bool = False) -> str:
    """SHA-256 over ``games`` seeded random matches of ``preset``, played by the benchmark's
    policy, or with ``claims`` by its claiming policy (``engine.claiming_action``)."""
    digest = hashlib.sha256()
    ruleset = make_ruleset(preset)
    pick = claiming_action if claims else pick_action(ruleset)
    for seed in range(games):
        rng = random.Random(seed)
        state, events = new_match(ruleset, rng=rng)
        digest.update(repr([outcome(e) for e in events]).encode())
        while state.turn >= 0:
            actions = legal_actions(state)
            digest.update(repr(_actions(actions)).encode())
            declarations = [a for a in actions if isinstance(a, Declare)]
            if declarations:  # declare whatever may be declared, without drawing from the RNG
                state, events = apply_action(state, state.turn, declarations[0], rng)
                digest.update(repr([outcome(e) for e in events]).encode())
                continue
            moves = legal_moves(state)
            move = pick(state, rng)
            if move not in (moves if type(move) is Move else actions):
                raise SystemExit(f"{preset}: the policy picked {move}, not a legal move")
            state, events = play(state, move, rng)
            digest.update(repr([outcome(e) for e in events]).encode())
        digest.update(repr(_final(state)).encode())
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
    failed = 0
    for preset in args.preset or list(PRESETS):
        lines = [(preset, False)]
        if claim_rules(make_ruleset(preset).options):  # a second line whose policy claims
            lines.append((preset, True))
        for name, claims in lines:
            key = f"{name}+claims/{games}" if claims else f"{name}/{games}"
            got = fingerprint(name, games, claims)
            want = stored.get(key)
            status = "MISSING" if want is None else ("ok" if want == got else "CHANGED")
            failed += status != "ok" and not args.update
            tag = " policy=claims" if claims else ""
            print(f"preset={name} games={games}{tag} {status} {got[:16]}", flush=True)
            if args.update:
                stored[key] = got
    if args.update:
        STORED.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
