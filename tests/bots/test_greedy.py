"""Tests of the one-ply heuristic bot (scopa.bots._greedy)."""

from __future__ import annotations

import random

import pytest
from bots_helpers import cards, situation

from scopa.bots import card_value, greedy_action, score_actions
from scopa.rules import Build, Declare, Move, apply_action, make_ruleset, new_match, observe


def test_takes_the_settebello_over_another_seven() -> None:
    """Of two sevens on the table, it takes the seven of denari."""
    view = observe(situation("7B 2C 3C", "7C 7D", "1S 2S 3S"), 0)
    assert greedy_action(view, random.Random(0)) == Move(cards("7B")[0], cards("7D"))


def test_prefers_a_sweep() -> None:
    """Taking the whole table beats a smaller capture."""
    view = observe(situation("7B 3S 10C", "3C 4C", "1S 2S 5S"), 0)
    assert greedy_action(view, random.Random(0)) == Move(cards("7B")[0], cards("3C 4C"))


def test_does_not_leave_a_sweep_to_the_next_seat() -> None:
    """It lays a costlier card rather than leave a table an unseen nine can sweep."""
    view = observe(situation("4B 7C 8C", "5C", "1S 2S 3S"), 0)
    scores = dict((a, s) for s, a in score_actions(view, random.Random(0)))
    four, seven = Move(cards("4B")[0], ()), Move(cards("7C")[0], ())
    options = view.options
    assert card_value(options, cards("4B")[0]) < card_value(options, cards("7C")[0])
    assert scores[four] < scores[seven]
    assert greedy_action(view, random.Random(0)) == Move(cards("8C")[0], ())


def test_declares_when_it_can() -> None:
    """In bazzica it makes an open declaration before playing (the variant's special points)."""
    ruleset = make_ruleset("bazzica")
    for seed in range(200):
        state, _ = new_match(ruleset, rng=random.Random(seed))
        view = observe(state, state.turn)
        if any(isinstance(a, Declare) for a in view.legal_actions):
            assert isinstance(greedy_action(view, random.Random(0)), Declare)
            return
    pytest.fail("no deal with an open declaration in 200 seeds")


def test_refuses_when_not_its_turn() -> None:
    """A seat that is not to play has nothing to choose: ValueError."""
    with pytest.raises(ValueError, match="not this seat's turn"):
        greedy_action(observe(situation("7B", "7D", "1S"), 1), random.Random(0))


def value(preset: str, code: str) -> float:
    """``card_value`` of one card under a preset's rules."""
    return card_value(make_ruleset(preset).options, cards(code)[0])


def test_card_values_follow_the_variants_scoring_rules() -> None:
    """A card's value comes from the ruleset's lines: a variant's special cards count."""
    assert value("scopa", "7D") > 3 * value("scopa", "7C")  # the settebello line
    assert value("scopa", "7C") > value("scopa", "4C")  # primiera
    assert value("scopa", "10S") < 1.5 * value("scopa", "10C")  # no spade line in scopa
    assert value("spazzino", "10S") > 2.5 * value("spazzino", "10C")  # spade line (2 points)
    assert value("spazzino", "8S") > 1.5 * value("spazzino", "9S")  # rosmarino
    assert value("spazzino", "2S") > value("spazzino", "4S")  # 2 of spade, napola of spade
    assert value("spatola", "10D") > 1.5 * value("scopa", "10D")  # re bello
    assert value("scopone_romano", "7D") > value("scopa", "7D")  # settebello worth 2
    assert value("scopone_romano", "4D") > 2 * value("scopa", "4D")  # every denaro a point


def test_the_variants_card_values_change_its_choice() -> None:
    """Spazzino's rosmarino (8 of spade) is taken over an equal capture that scopa prefers."""
    hand, table, other = "8B 2C 3C", "8S 8D", "1C 4B 5B"
    scopa = greedy_action(observe(situation(hand, table, other), 0), random.Random(0))
    spazzino = greedy_action(
        observe(situation(hand, table, other, "spazzino"), 0), random.Random(0)
    )
    assert scopa == Move(cards("8B")[0], cards("8D"))
    assert spazzino == Move(cards("8B")[0], cards("8S"))


def test_builds_a_farm_it_can_take_and_then_takes_it() -> None:
    """In fattoria it builds 3C on 4D holding 7S rather than lay a card, then takes the farm."""
    state = situation("3C 7S 2B", "4D 10C", "1S 5S 6S", preset="fattoria")
    build = Build(cards("3C")[0], cards("4D"), 7)
    assert build in observe(state, 0).legal_actions
    assert greedy_action(observe(state, 0), random.Random(0)) == build
    state, _ = apply_action(state, 0, build, random.Random(0))
    state, _ = apply_action(state, 1, Move(cards("1S")[0], ()), random.Random(0))
    assert greedy_action(observe(state, 0), random.Random(0)) == Move(
        cards("7S")[0], cards("4D 3C")
    )
