"""Tests of bench/fingerprint.py's claiming line: claim events are spelled and fingerprinted."""

from __future__ import annotations

import subprocess

from support.python import ROOT, run_python

_COUNT_CLAIMS = """
import random, sys
sys.path.insert(0, "bench")
from engine import claiming_action, play
from fingerprint import outcome
from scopa.rules import make_ruleset, new_match
kinds = set()
ruleset = make_ruleset("fidasse")
for seed in range(8):
    rng = random.Random(seed)
    state, _ = new_match(ruleset, rng=rng)
    while state.turn >= 0:
        state, events = play(state, claiming_action(state, rng), rng)
        for spelled in map(outcome, events):
            kinds.add(spelled[0])
            if spelled[0] == "played" and spelled[-1][:1] == ("claim",):
                kinds.add("trusted" if spelled[-1][1] < 0 else "doubted")
print(" ".join(sorted(kinds)))
"""


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``python *args`` in the repository root on the interpreted engine."""
    return run_python(*args, pythonpath=str(ROOT / "service"))


def test_outcome_spells_claims_answers_and_settled_plays() -> None:
    """The claiming policy's games hold claims, answers and claimed plays, trusted and doubted,
    and outcome spells each (it raised TypeError on a claim before)."""
    done = _run("-c", _COUNT_CLAIMS)
    assert done.returncode == 0, done.stderr
    kinds = set(done.stdout.split())
    assert {"claimed", "answered", "played", "trusted", "doubted"} <= kinds


def test_fidasse_has_a_claiming_line_beside_its_plain_one() -> None:
    """Scopa fidasse prints its plain line and a policy=claims line, both matching the stored
    fingerprints; a preset without claims prints one line."""
    done = _run("bench/fingerprint.py", "--games", "40", "--preset", "fidasse", "--preset", "scopa")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line.rsplit(" ", 1)[0] for line in done.stdout.splitlines()]  # less the hash
    assert lines == [
        "preset=fidasse games=40 ok",
        "preset=fidasse games=40 policy=claims ok",
        "preset=scopa games=40 ok",
    ]
