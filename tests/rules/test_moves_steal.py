"""Tests of pile steals as a move type (scopa.rules._moves_steal): Rubamazzo's worked example."""

from __future__ import annotations

import pytest
from rules_helpers import cards, of_type, ruleset, situation

from scopa.rules import (
    ActionNotLegal,
    CardPlayed,
    HandScored,
    NotYourTurn,
    Steal,
    apply_action,
    legal_actions,
)


def _piles(*codes: str) -> tuple[tuple[int, ...], ...]:
    return tuple(cards(c) if c else () for c in codes)


def test_rubamazzo_worked_example_steal_and_steal_back() -> None:
    """docs/rules.md: 5D steals seat 1's pile topped by 5C and lies on top; 5S steals it back."""
    rules = ruleset("rubamazzo")
    state = situation(
        rules,
        hands=["5D 9C", "5S 8C"],
        table="2B 4S",
        stock="",
        piles=_piles("1C 1D", "3C 3D 5C"),
    )
    actions = legal_actions(state)
    assert Steal(cards("5D")[0], 1) in actions
    assert [a for a in actions if isinstance(a, Steal)] == [Steal(cards("5D")[0], 1)]
    state, events = apply_action(state, 0, Steal(cards("5D")[0], 1), None)
    assert events == [CardPlayed(0, cards("5D")[0], cards("3C 3D 5C"), True, False, (), 1)]
    assert state.piles == _piles("1C 1D 3C 3D 5C 5D", "")
    assert state.table == tuple(sorted(cards("2B 4S"), key=lambda c: (c % 10, c // 10)))
    assert (state.turn, state.last_capturer, state.hands[0]) == (1, 0, cards("9C"))
    state, _ = apply_action(state, 1, Steal(cards("5S")[0], 0), None)
    assert state.piles == _piles("", "1C 1D 3C 3D 5C 5D 5S")


def test_a_steal_must_match_the_top_card_of_another_sides_pile() -> None:
    """No steal of an empty pile, of one's own pile, off-rank, or in a ruleset without steals."""
    state = situation(
        ruleset("rubamazzo"), hands=["5D 6C", "8C 9C"], table="2B", piles=_piles("4C 6D", "")
    )
    for action in (Steal(cards("5D")[0], 1), Steal(cards("6C")[0], 0), Steal(cards("5D")[0], 7)):
        with pytest.raises(ActionNotLegal):
            apply_action(state, 0, action, None)
    with pytest.raises(NotYourTurn):
        apply_action(state, 1, Steal(cards("6C")[0], 0), None)
    scopa = situation(ruleset("scopa"), hands=["5D", "6C"], table="2B", piles=_piles("", "5C"))
    assert not [a for a in legal_actions(scopa) if isinstance(a, Steal)]
    with pytest.raises(ActionNotLegal):
        apply_action(scopa, 0, Steal(cards("5D")[0], 1), None)


def test_a_steal_with_the_last_card_ends_the_hand_and_counts_the_cards() -> None:
    """The last card may steal; the side with the most cards wins rubamazzo's one hand."""
    state = situation(
        ruleset("rubamazzo"),
        hands=["7D", ""],
        table="2B",
        stock="",
        piles=_piles("1C", "3C 3D 7C"),
    )
    state, events = apply_action(state, 0, Steal(cards("7D")[0], 1), None)
    scored = of_type(events, HandScored)[0].result
    assert [(c.name, c.values, c.points) for c in scored.score.components] == [
        ("cards", (6.0, 0.0), (1, 0))
    ]
    assert state.finished and state.winners == (0,)
