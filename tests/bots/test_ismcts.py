"""Tests of the information-set Monte Carlo tree search (scopa.bots._ismcts)."""

from __future__ import annotations

import random

import pytest
from bots_helpers import cards, midgame, situation

from scopa.bots import ismcts_action, search
from scopa.rules import Build, Move, apply_action, observe


def never() -> bool:
    """A deadline that never comes."""
    return False


def test_every_iteration_visits_one_root_action() -> None:
    """The root's visit counts add up to the iterations run, over the view's legal actions."""
    state = midgame("scopa", 5, 3)
    view = observe(state, state.turn)
    tallies = search(view, random.Random(1), 40, never)
    assert [t.action for t in tallies] == list(view.legal_actions)
    assert sum(t.visits for t in tallies) == 40
    assert all(0.0 <= t.mean_reward <= 1.0 for t in tallies)


def test_stops_at_the_deadline_after_one_iteration() -> None:
    """A deadline already past still runs exactly one iteration."""
    state = midgame("scopa", 5, 3)
    tallies = search(observe(state, state.turn), random.Random(1), 1000, lambda: True)
    assert sum(t.visits for t in tallies) == 1


def test_finds_the_settebello() -> None:
    """With a few hundred iterations it takes the settebello rather than another seven."""
    view = observe(situation("7B 2C 3C", "7C 7D", "1S 2S 3S"), 0)
    action = ismcts_action(view, random.Random(2), 300, never)
    assert action == Move(cards("7B")[0], cards("7D"))


@pytest.mark.parametrize("preset", ["scopa", "scopone", "scopa15", "asso_piglia_tutto", "bazzica"])
def test_plays_a_legal_action_in_every_kind_of_game(preset: str) -> None:
    """Its choice is one of the view's legal actions."""
    state = midgame(preset, 9, 5)
    view = observe(state, state.turn)
    assert ismcts_action(view, random.Random(3), 30, never) in view.legal_actions


def test_searches_with_a_farm_on_the_table() -> None:
    """In fattoria, with a farm down (rolled out by validated plays), its choice is legal."""
    state = situation("3C 7S 2B", "4D 10C", "1S 5S 6S", preset="fattoria")
    state, _ = apply_action(state, 0, Build(cards("3C")[0], cards("4D"), 7), random.Random(0))
    view = observe(state, 1)
    assert view.farms and ismcts_action(view, random.Random(3), 60, never) in view.legal_actions
