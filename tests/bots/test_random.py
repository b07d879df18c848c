"""Tests of the random move pickers (scopa.bots._random): random_move and random_action."""

from __future__ import annotations

import dataclasses
import random

import pytest

from scopa.bots import random_action, random_move
from scopa.rules import (
    PRESETS,
    Action,
    GameOver,
    MatchState,
    Move,
    apply_action,
    apply_move,
    legal_actions,
    legal_moves,
    make_ruleset,
    new_match,
    resign,
)


def choice_move(state: MatchState, rng: random.Random) -> Move:
    """The reference policy: ``rng.choice`` of a card, then of that card's legal moves."""
    moves = legal_moves(state)
    cards = list(dict.fromkeys(m.card for m in moves))
    card = rng.choice(cards)
    return rng.choice([m for m in moves if m.card == card])


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_random_move_is_legal_and_draws_like_choice(preset: str) -> None:
    """Whole matches: every pick is legal and equal to the choice-based policy's pick."""
    ruleset = make_ruleset(preset)
    for seed in range(3):
        deal, ours, theirs = random.Random(seed), random.Random(seed), random.Random(seed)
        state, _ = new_match(ruleset, rng=deal)
        plays = 0
        while state.turn >= 0:
            move = random_move(state, ours)
            assert move in legal_moves(state)
            assert move == choice_move(state, theirs)
            assert ours.getstate() == theirs.getstate()
            state, _ = apply_move(state, state.turn, move, deal)
            plays += 1
        assert plays > 0


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"players": 4},
        {"farm_raise": False},
        {"farm_owner_takes": False},
        {"deck_size": 80, "twin_captures": True, "table_cards": 2},  # a card filter
    ],
)
def test_random_action_with_farms_draws_like_choice(overrides: dict[str, object]) -> None:
    """Fattoria's whole matches: random_action, which counts the moves instead of listing them,
    picks what ``rng.choice(legal_actions(state))`` picks, builds, raises and farm takes too."""
    ruleset = make_ruleset("fattoria", overrides)
    kinds: set[str] = set()
    for seed in range(4):
        deal, ours, theirs = random.Random(seed), random.Random(seed), random.Random(seed)
        state, _ = new_match(ruleset, rng=deal)
        while state.turn >= 0:
            action: Action = random_action(state, ours)
            assert action == theirs.choice(legal_actions(state))
            assert ours.getstate() == theirs.getstate()
            kinds.add(type(action).__name__ + ("+farms" if state.farms else ""))
            state, _ = apply_action(state, state.turn, action, deal)
    assert {"Move", "Build", "Move+farms"} <= kinds  # builds, and moves beside farms, drawn
    if overrides.get("farm_raise", True):
        assert "Build+farms" in kinds  # raises too


def test_random_move_refuses_a_finished_game() -> None:
    """No move is picked once the game is over."""
    state, _ = new_match(make_ruleset("scopa"), rng=random.Random(3))
    over, _ = resign(state, 0)
    with pytest.raises(GameOver):
        random_move(over, random.Random(3))


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_random_action_is_legal_in_every_phase(preset: str) -> None:
    """Whole matches of random_action: every pick is one of :func:`legal_actions`, in the
    phases where a seat answers a claim or declares too, and every kind the preset opens is
    drawn sometimes (claims and their answers in fidasse, steals in rubamazzo)."""
    ruleset = make_ruleset(preset)
    kinds: set[str] = set()
    for seed in range(3):
        deal, ours = random.Random(seed), random.Random(seed)
        state, _ = new_match(ruleset, rng=deal)
        while state.turn >= 0:
            action = random_action(state, ours)
            assert action in legal_actions(state), (state.phase, action)
            kinds.add(type(action).__name__)
            state, _ = apply_action(state, state.turn, action, deal)
    opened = {"fidasse": {"Claim", "Answer"}, "rubamazzo": {"Steal"}}.get(preset, set())
    assert {"Move"} | opened <= kinds


def test_random_move_refuses_a_seat_with_no_card() -> None:
    """A seat with an empty hand has no card to pick: a clear error, not an endless draw."""
    state, _ = new_match(make_ruleset("scopa"), rng=random.Random(3))
    hands = list(state.hands)
    hands[state.turn] = ()
    empty = dataclasses.replace(state, hands=tuple(hands))
    with pytest.raises(ValueError, match="no card"):
        random_move(empty, random.Random(3))
