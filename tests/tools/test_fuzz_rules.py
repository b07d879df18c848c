"""Tests of tools/fuzz_rules.py: its run, its counts, and a failure printed as a test case."""

from __future__ import annotations

import ast
import random
import re
import sys

import pytest
from support.python import ROOT, load_tool, run_python

from scopa.rules import MatchState, make_ruleset

SUMMARY = re.compile(
    r"fuzz_rules: seed 5, 2 workers, [\d.]+ min: (\d+) games, (\d+) option combinations,"
    r" (\d+) hands, 0 failures"
)


FUZZ = load_tool("tools/fuzz_rules.py")
INVARIANTS = sys.modules["invariants"]
"""tests/rules/INVARIANTS.py, as the tool imported it (it puts tests/rules on the path)."""


def test_a_run_on_two_workers_counts_its_games_combinations_and_hands() -> None:
    """--games 40 on two workers plays 40 games of random presets and mixes, none failing."""
    done = run_python(
        *("tools/fuzz_rules.py", "--games", "40", "--seed", "5", "--workers", "2"),
        pythonpath=str(ROOT / "service"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    summary = SUMMARY.search(done.stdout)
    assert summary, done.stdout
    games, combinations, hands = map(int, summary.groups())
    assert games == 40 and 20 <= combinations <= 40 and hands >= games
    assert "the longest game took" in done.stdout


def test_mixes_draw_every_kind_of_option_and_rulesets_accept_them() -> None:
    """Draws name bools, enums and ints over many presets; each mix becomes a ruleset of its
    preset keeping drawn values only (those make_ruleset refuses dropped; a hand limit it adds
    where a match may never end aside)."""
    rng = random.Random(1)
    presets, kinds, dropped = set(), set(), 0
    for _ in range(300):
        preset, overrides = FUZZ.draw_mix(rng)
        presets.add(preset)
        kinds |= {type(v).__name__ for v in overrides.values()}
        rules = FUZZ.accepted(preset, overrides, rng)
        kept = rules.overrides()
        assert rules.preset == preset
        assert all(overrides.get(k) == v for k, v in kept.items() if k != "hand_limit"), kept
        assert rules == make_ruleset(preset, kept)
        dropped += sum(getattr(rules.options, k) != v for k, v in overrides.items())
    assert len(presets) > 25 and kinds == {"bool", "str", "int"} and dropped > 0


def test_a_failing_game_is_printed_as_a_case_that_replays_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game breaking an invariant makes the run exit 1 and prints a CASES entry that
    test_fuzz_cases.py can replay, with the error under it."""
    calls: list[MatchState] = []

    def views_leak_on_the_fifth_state(state: MatchState) -> None:
        calls.append(state)
        assert len(calls) != 5, "seat 1 sees hidden cards"

    monkeypatch.setattr(INVARIANTS, "check_views", views_leak_on_the_fifth_state)
    assert FUZZ.main(["--games", "3", "--seed", "9", "--workers", "1"]) == 1
    out = capsys.readouterr().out
    assert "1 failing games; add to CASES in tests/rules/test_fuzz_cases.py:" in out
    case_line = next(line for line in out.splitlines() if line.startswith("    ("))
    preset, overrides, seed, policy = ast.literal_eval(case_line.strip().rstrip(","))
    assert "# AssertionError: seat 1 sees hidden cards" in out and "1 failures" in out
    calls.clear()
    with pytest.raises(AssertionError, match="hidden cards"):
        INVARIANTS.play_game(make_ruleset(preset, overrides), seed, policy)
