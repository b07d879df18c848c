"""Property tests: random full games of every preset keep the engine's invariants."""

from __future__ import annotations

import os
import random
from typing import Any, Final

import invariants
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from invariants import POLICIES, Policy, play_game, replay_line
from rules_helpers import random_move

from scopa.rules import (
    PLAY,
    PRESETS,
    Answer,
    BonusScored,
    Claim,
    InvalidOption,
    MatchState,
    Ruleset,
    apply_action,
    apply_move,
    legal_actions,
    make_ruleset,
    new_match,
)

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
PROPERTY_SETTINGS = settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@pytest.mark.parametrize("preset", sorted(PRESETS))
@PROPERTY_SETTINGS
@given(seed=SEEDS)
def test_random_games_keep_the_invariants(preset: str, seed: int) -> None:
    """Cards are conserved, a seat to play has moves, views hide cards, scores are bounded."""
    play_game(make_ruleset(preset), seed)


FREE_OPTIONS: dict[str, st.SearchStrategy[Any]] = {
    **{
        name: st.booleans()
        for name in (
            "equal_card_precedence",
            "figures_capture_only_figures",
            "ace_takes_all",
            "ace_sweep_counts",
            "ace_takes_only_table_ace",
            "ace_on_empty_table_sweeps",
            "capture_15",
            "capture_15_only",
            "capture_11",
            "sweep_on_last_card",
            "picula",
            "bagher",
            "accusa",
            "pile_steal",
            "farms",
            "farm_raise",
            "farm_owner_takes",
            "two_of_denari",
            "specials_on_last_card",
            "re_bello",
            "rosmarino",
            "two_of_spade",
            "denari_each",
            "settanta",
            "napola_denari",
            "napola_spade",
            "napoleone_wins",
            "partnerships",
            "denari_figures",
            "frac_points",
            "frac_tie_re_bello",
            "modular_captures",
            "modular_sweeps",
            "lowest_wins",
            "tuzzulicchio_declarations",
            "maresciallo",
            "polacca",
            "saponaro",
            "cirulla_declarations",
            "grande",
            "capture_15_fewest",
            "elimination",
            "sweep_claims",
            "dealer_bonus",
            "dealer_bonus_low",
            "table_ace_15",
            "ace_takes_15",
            "suit_capture",
            "three_card_capture",
        )
    },
    "claim_answers": st.sampled_from(["opponents", "next"]),
    "false_claim_points": st.integers(0, 2),
    "wrong_doubt_points": st.integers(0, 2),
    "kings_redeal": st.sampled_from([0, 2, 3, 4]),
    "aces_on_table": st.sampled_from(["keep", "return", "redeal", "sweep"]),
    "mazzo_ties": st.sampled_from(["unassigned", "split", "all"]),
    "primiera_method": st.sampled_from(["standard", "veneto", "milan"]),
    "capture_arithmetic": st.sampled_from(["sum", "difference", "sum_or_difference", "signed"]),
    "optional_captures": st.sampled_from(["none", "figures", "all"]),
    "sweep_points": st.integers(0, 3),
    "spade_points": st.integers(0, 2),
    "target_score": st.integers(1, 21),
    "hand_limit": st.integers(0, 4),
}
"""Options that combine freely with any preset, each with the values it may take."""


@PROPERTY_SETTINGS
@given(
    preset=st.sampled_from(sorted(PRESETS)),
    overrides=st.fixed_dictionaries({}, optional=FREE_OPTIONS),
    seed=SEEDS,
    policy=st.sampled_from(POLICIES),
)
def test_random_option_combinations_keep_the_invariants(
    preset: str, overrides: dict[str, Any], seed: int, policy: Policy
) -> None:
    """Any preset with any mix of the free options plays to the end keeping every invariant
    (an option drawn without the option it needs is left out, as make_ruleset refuses it)."""
    while True:
        try:
            rules = make_ruleset(preset, overrides)
            break
        except InvalidOption as err:
            if "does nothing here" not in err.message or err.field not in overrides:
                assume(False)
            overrides = {k: v for k, v in overrides.items() if k != err.field}
    play_game(rules, seed, policy)


def claim_at_random(rules: Ruleset, seed: int, hands: int) -> MatchState:
    """A fidasse match where each seat claims a sweep at 40% of its turns (when it may) and every
    answer is a coin toss, played until it ends or has scored ``hands`` hands."""
    rng = random.Random(seed)
    state, _ = new_match(rules, rng=rng)
    while not state.finished and len(state.results) < hands:
        claims = [a for a in legal_actions(state) if isinstance(a, Claim)]
        if state.phase != PLAY:
            state, _ = apply_action(state, state.turn, Answer(trust=rng.random() < 0.5), rng)
        elif claims and rng.random() < 0.4:
            state, _ = apply_action(state, state.turn, rng.choice(claims), rng)
        else:
            state, _ = apply_move(state, state.turn, random_move(state, rng), rng)
    return state


_ENDLESS: Final = [(4, 1), (4, 2), (6, 3)]
"""Seat counts and seeds of fidasse matches that :func:`claim_at_random` keeps going."""


@pytest.mark.parametrize(("players", "seed"), _ENDLESS)
def test_without_a_hand_limit_random_claims_keep_a_fidasse_match_going(
    players: int, seed: int
) -> None:
    """With hand_limit 0 (refused at creation now; a game stored before keeps it), false claims
    and wrong doubts keep every score below the target: these matches are still going after
    100 hands."""
    rules = make_ruleset("fidasse", {"players": players, "hand_limit": 0}, stored=True)
    state = claim_at_random(rules, seed, 100)
    assert not state.finished and len(state.results) == 100
    assert max(state.scores) < rules.options.target_score, state.scores


@pytest.mark.parametrize(("players", "seed"), [*_ENDLESS, (2, 4)])
def test_fidasse_games_end_however_often_seats_claim_and_doubt(players: int, seed: int) -> None:
    """The same matches with the preset's hand_limit (40) end by their 40th hand, the highest
    score winning."""
    rules = make_ruleset("fidasse", {"players": players})
    assert rules.options.hand_limit == 40
    state = claim_at_random(rules, seed, 41)
    assert state.finished and len(state.results) <= 40, state.scores
    assert state.winners and all(state.scores[w] == max(state.scores) for w in state.winners), (
        state.scores
    )


@pytest.mark.parametrize("seed", [11, 18, 31])
def test_cirulla_games_whose_first_table_goes_to_the_dealer_keep_the_invariants(seed: int) -> None:
    """A Cirulla game opening with the dealer's bonus conserves the cards, its pile included."""
    rules = make_ruleset("cirulla")
    _, events = new_match(rules, rng=random.Random(seed))
    assert any(isinstance(e, BonusScored) for e in events)
    play_game(rules, seed)


def test_the_property_suite_draws_the_same_examples_on_every_run() -> None:
    """make test runs hypothesis derandomized and without its database (tests/conftest.py)."""
    if os.environ.get("SCOPA_HYPOTHESIS_PROFILE"):
        pytest.skip("SCOPA_HYPOTHESIS_PROFILE chose another profile")
    current = settings.default
    assert current is not None and current.derandomize and current.database is None


@pytest.mark.parametrize("policy", POLICIES)
def test_a_failing_game_notes_the_call_that_replays_it(
    policy: Policy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever fails in play_game, the error carries the call that replays the game, which
    rebuilds the same ruleset from the same seed."""
    rules = make_ruleset("scopa", {"players": 4, "hand_limit": 3, "primiera_method": "milan"})
    seen: list[MatchState] = []

    def fail_on_the_tenth_view(state: MatchState) -> None:
        seen.append(state)
        assert len(seen) < 10, "a view shows a hidden card"

    monkeypatch.setattr(invariants, "check_views", fail_on_the_tenth_view)
    with pytest.raises(AssertionError) as caught:
        play_game(rules, 12345, policy)
    notes = caught.value.__notes__
    assert notes == [f"replay: {replay_line(rules, 12345, policy)}"]
    call = notes[0].removeprefix("replay: ")
    replayed: list[tuple[Ruleset, int, str]] = []
    eval(
        call,
        {"make_ruleset": make_ruleset, "play_game": lambda *a: replayed.append(a)},
    )
    assert replayed == [(rules, 12345, policy)]
