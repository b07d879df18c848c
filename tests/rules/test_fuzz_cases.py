"""Games the fuzzer (tools/fuzz_rules.py) or the property suite found failing, replayed whole.

Each entry is (preset, overrides, seed, policy), as the fuzzer prints it: the game is a function
of the four, so each keeps the failure it found fixed. The comment above an entry says what
went wrong before its fix.
"""

from __future__ import annotations

from typing import Any, Final

import pytest
from invariants import Policy, play_game

from scopa.rules import make_ruleset

CASES: Final[list[tuple[str, dict[str, Any], int, Policy]]] = [
    # Issue 29: seat 0 spent the 9 its farm needed on a pile steal and had no legal action.
    (
        "a_non_prendere",
        {
            "aces_on_table": "redeal",
            "equal_card_precedence": False,
            "farm_raise": False,
            "farms": True,
            "lowest_wins": False,
            "mazzo_ties": "unassigned",
            "pile_steal": True,
            "sweep_points": 2,
        },
        50,
        "mixed",
    ),
    # Claims answered at random kept every score below 21 after 200 hands: sweep_claims now
    # brings a hand limit of 40 (make_ruleset).
    ("scopa4", {"napola_spade": True, "sweep_claims": True}, 3544971608, "uniform"),
    # A 2-player state of over 2 KiB after 39 hands: each scored hand's result stays in the
    # state, so its bound is 2 KiB plus 64 bytes a hand (it was 2 KiB flat).
    ("fidasse", {"sweep_points": 0}, 1776358113, "uniform"),
    # Only accuse scored, and seats playing the engine's random_action (a timeout bot) never
    # declare: 0-0 after 1,000 hands. A game where only declarations score gets hand_limit 40.
    ("frac", {"accusa": True, "frac_points": False, "pile_steal": True}, 431389031, "engine"),
]


@pytest.mark.parametrize(("preset", "overrides", "seed", "policy"), CASES)
def test_a_game_the_fuzzer_found_keeps_the_invariants(
    preset: str, overrides: dict[str, Any], seed: int, policy: Policy
) -> None:
    """The game plays to its end keeping every invariant of tests/rules/invariants.py."""
    play_game(make_ruleset(preset, overrides), seed, policy)


def test_a_long_game_whose_scores_only_rise_still_ends() -> None:
    """A game the fuzzer found: FRAC scoring sweeps only, to 50, among three seats, plays past
    the flat 200-hand bound the fuzzer first had, and ends within max(200, 20 x target) hands
    keeping every invariant (docs/rules.md, "Hand limits"): a long game is not a stuck one."""
    rules = make_ruleset("frac", {"frac_points": False, "players": 3, "sweep_points": 1})
    state = play_game(rules, 1446995533, "mixed")
    assert state.finished and state.hand_number > 200, state.hand_number
