"""Tests of declarations as a move type (scopa.rules._moves_declare): listed, made once,
refused out of turn or in a ruleset without them."""

from __future__ import annotations

import random

import pytest
from rules_helpers import cards, of_type, play, ruleset, situation

from scopa.rules import (
    ActionNotLegal,
    Declare,
    Declared,
    HandScored,
    Move,
    NotYourTurn,
    apply_action,
    legal_actions,
    observe,
)


def test_a_declaration_is_listed_scored_and_made_once_per_deal() -> None:
    """Bazzica: a full hand with a combination may declare once; its points reach the sheet."""
    state = situation(ruleset("bazzica"), hands=["1C 2C 3S", "7C 7D 7S"], table="10B", stock="")
    declare = Declare("accusa", cards("3S 1C 2C"))  # any order of the shown cards
    assert Declare("accusa", cards("1C 2C 3S")) in legal_actions(state)
    assert legal_actions(state, seat=1) == []
    state, events = apply_action(state, 0, declare, random.Random(1))
    assert events == [Declared(0, "accusa", cards("1C 2C 3S"), 2)]
    assert state.specials[0] == (("accusa", 2),) and state.turn == 0
    assert not [a for a in legal_actions(state) if isinstance(a, Declare)]
    with pytest.raises(ActionNotLegal):
        apply_action(state, 0, declare, random.Random(1))
    state, _ = play(state, 0, "1C", "")
    assert Declare("accusa", cards("7C 7D 7S")) in observe(state, 1).legal_actions
    state, _ = apply_action(state, 1, Declare("accusa", cards("7C 7D 7S")), random.Random(1))
    for seat, card in ((1, "7C"), (0, "2C"), (1, "7D"), (0, "3S")):
        state, events = play(state, seat, card, None)
    state, events = play(state, 1, "7S", None)
    (scored,) = of_type(events, HandScored)
    accuse = next(c for c in scored.result.score.components if c.name == "accuse")
    assert accuse.points == (2, 7)


def test_a_declaration_needs_a_full_hand_and_the_turn() -> None:
    """Only the seat to play, before playing a card of the deal, may declare."""
    state = situation(ruleset("bazzica"), hands=["1C 2C", "7C 7D 7S"], table="10B", stock="")
    assert not [a for a in legal_actions(state) if isinstance(a, Declare)]
    with pytest.raises(ActionNotLegal):
        apply_action(state, 0, Declare("accusa", cards("1C 2C")), None)
    with pytest.raises(NotYourTurn):
        apply_action(state, 1, Declare("accusa", cards("7C 7D 7S")), None)


def test_a_ruleset_without_declarations_has_no_declare_action() -> None:
    """Scopa's action table has plays only: a declaration is ACTION_NOT_LEGAL."""
    state = situation(ruleset("scopa"), hands=["7C 7D 7S", "1C 2C 3S"], table="10B", stock="")
    assert all(isinstance(a, Move) for a in legal_actions(state))
    with pytest.raises(ActionNotLegal) as err:
        apply_action(state, 0, Declare("accusa", cards("7C 7D 7S")), None)
    assert err.value.reason == "ACTION_NOT_LEGAL"
