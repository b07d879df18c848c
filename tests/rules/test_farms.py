"""Tests of farms (Scopa della fattoria, it.wikipedia) as rules (scopa.rules._farms), scored and
stored; the move types are tested in test_moves_farm.py."""

from __future__ import annotations

import random

from rules_helpers import cards, of_type, play, ruleset, situation, stacked

from scopa.rules import (
    Build,
    BuildOnCard,
    HandScored,
    OwnerTakesNextTurn,
    RaiseFarm,
    TakeFarmByValue,
    apply_action,
    build_rules,
    dump_state,
    farm_duty_rules,
    farm_take_rules,
    load_state,
    make_ruleset,
    new_match,
    observe,
    seen_cards,
    state_from_view,
)
from scopa.rules._compress import decompress


def card(code: str) -> int:
    """One card from its code."""
    return cards(code)[0]


def test_the_fattoria_preset_lists_the_farm_rules() -> None:
    """Preset fattoria builds, raises, takes farms by value and makes the owner take its farm."""
    options = make_ruleset("fattoria").options
    assert [type(r) for r in build_rules(options)] == [BuildOnCard, RaiseFarm]
    assert [type(r) for r in farm_take_rules(options)] == [TakeFarmByValue]
    assert [type(r) for r in farm_duty_rules(options)] == [OwnerTakesNextTurn]
    no_raise = make_ruleset("fattoria", {"farm_raise": False, "farm_owner_takes": False}).options
    assert [type(r) for r in build_rules(no_raise)] == [BuildOnCard]
    assert farm_duty_rules(no_raise) == ()
    scopa = make_ruleset("scopa").options
    assert (build_rules(scopa), farm_take_rules(scopa), farm_duty_rules(scopa)) == ((), (), ())


def test_fattoria_scores_no_primiera_and_the_two_of_denari() -> None:
    """it.wikipedia: "nu se ia în considerare prima, dar 2 ♦ valorează 1 punct"."""
    state = situation(ruleset("fattoria"), hands=["2B", ""], table="2D", piles=((), ()))
    state, events = play(state, 0, "2B", "2D")
    lines = {c.name: c.points for c in of_type(events, HandScored)[0].result.score.components}
    assert lines["two_of_denari"] == (1, 0) and "primiera" not in lines


def test_farms_round_trip_the_codec_and_views() -> None:
    """Farms and farm plays load back equal; seats see farm cards, and determinise with them."""
    deck = stacked("3C 1D 7S 6B 9B 10C 4D 9C 1S 8S")
    state, _ = new_match(ruleset("fattoria"), decks=(deck,))
    state, _ = apply_action(state, 0, Build(card("3C"), (card("4D"),), 7), None)
    assert load_state(dump_state(state)) == state
    view = observe(state, 1)
    assert view.farms == state.farms and set(cards("4D 3C")) <= seen_cards(view)
    again = state_from_view(view, random.Random(3))
    assert again.farms == state.farms and observe(again, 1) == view
    plain = situation(ruleset("fattoria"), hands=["3C", "1D"], table="4D")
    assert b"farms" not in decompress(dump_state(plain)[1:], dump_state(plain)[0])
