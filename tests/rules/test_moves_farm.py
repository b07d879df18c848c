"""Tests of farms as move types (scopa.rules._moves_farm): building, raising and taking farms,
the owner's duty, and the card play while farms lie on the table (Scopa della fattoria)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from rules_helpers import cards, of_type, play, ruleset, situation

from scopa.rules import (
    ActionNotLegal,
    Build,
    CaptureChoiceRequired,
    CaptureNotLegal,
    CardPlayed,
    Farm,
    HandScored,
    LeftoverTaken,
    MatchState,
    Move,
    NotYourTurn,
    Steal,
    apply_action,
    dump_state,
    legal_actions,
    legal_moves,
    load_state,
    make_ruleset,
)


def card(code: str) -> int:
    """One card from its code."""
    return cards(code)[0]


def builds(state: MatchState) -> list[Build]:
    """The build actions open to the seat to play."""
    return [a for a in legal_actions(state) if isinstance(a, Build)]


def test_seed_example_build_then_take_both_next_turn() -> None:
    """it.wikipedia: a card goes on a table card when the seat holds a card taking both next
    turn."""
    state = situation(ruleset("fattoria"), hands=["3C 7S 9B", "1D 6B 10C"], table="4D 9C")
    assert builds(state) == [Build(card("3C"), (card("4D"),), 7)]
    state, events = apply_action(state, 0, Build(card("3C"), (card("4D"),), 7), None)
    farm = Farm(owner=0, value=7, cards=cards("4D 3C"))
    assert events == [CardPlayed(0, card("3C"), (), False, False, (), -1, None, farm)]
    assert (state.table, state.farms, state.turn) == (cards("9C"), (farm,), 1)
    state, _ = play(state, 1, "1D", "")
    assert legal_actions(state) == [Move(card("7S"), cards("4D 3C"))]  # the owner must take it
    state, events = play(state, 0, "7S", None)
    assert of_type(events, CardPlayed)[0].farm == farm
    assert state.farms == () and state.piles[0] == cards("4D 3C 7S")
    assert state.table == cards("1D 9C") and state.last_capturer == 0


def test_the_owner_cannot_play_another_card_while_its_farm_lies() -> None:
    """Laying or capturing with another card is refused with the reason; nothing changes."""
    state = situation(
        ruleset("fattoria"), hands=["7S 9B", "1D"], table="9C", farms=(Farm(0, 7, cards("4D 3C")),)
    )
    with pytest.raises(ActionNotLegal, match="must take its farm"):
        play(state, 0, "9B", "9C")
    with pytest.raises(NotYourTurn):
        play(state, 1, "1D", "")
    assert builds(state) == []


def test_others_take_the_farm_with_the_equal_loose_card() -> None:
    """it.wikipedia: a card of the farm's value takes it, and a loose card of that value with it."""
    farm = Farm(0, 7, cards("4D 3C"))
    state = situation(
        ruleset("fattoria"), hands=["7S 2C", "7B 5S"], table="7C 9C", turn=1, farms=(farm,)
    )
    assert Move(card("7B"), cards("4D 3C 7C")) in legal_moves(state)
    assert Move(card("7B"), cards("7C")) in legal_moves(state)  # the loose 7 alone, as in Scopa
    state, events = play(state, 1, "7B", "7C 3C 4D")  # any order names the capture
    played = of_type(events, CardPlayed)[0]
    assert (played.captured, played.farm, played.sweep) == (cards("4D 3C 7C"), farm, False)
    assert state.farms == () and state.table == cards("9C")
    assert state.piles[1] == cards("4D 3C 7C 7B")


def test_a_card_whose_only_capture_the_twin_rule_drops_is_free_to_build() -> None:
    """With two decks and twin_captures 5S takes 5S' only to sweep, so beside 2D it takes
    nothing and is laid; a card that takes nothing may build: 5S onto 2D makes a farm of 7."""
    rules = ruleset("fattoria", deck_size=80, twin_captures=True, table_cards=2)
    state = situation(rules, hands=["5S 7C", "1D 6B"], table="5S' 2D")
    assert [m for m in legal_moves(state) if m.card == card("5S")] == [Move(card("5S"), ())]
    assert builds(state) == [Build(card("5S"), (card("2D"),), 7)]
    state, _ = apply_action(state, 0, Build(card("5S"), (card("2D"),), 7), None)
    assert state.farms == (Farm(owner=0, value=7, cards=cards("2D 5S")),)


def test_a_card_of_a_farms_value_may_not_be_laid() -> None:
    """Capturing is compulsory: a card that can take a farm has only its captures."""
    farm = Farm(0, 6, cards("4D 2C"))
    state = situation(ruleset("fattoria"), hands=["1S", "6B 9S"], table="9C", turn=1, farms=(farm,))
    assert [m for m in legal_moves(state) if m.card == card("6B")] == [
        Move(card("6B"), cards("4D 2C"))
    ]
    with pytest.raises(CaptureNotLegal):
        play(state, 1, "6B", "")


def test_the_farm_and_each_equal_card_are_separate_choices() -> None:
    """Two loose cards of the farm's value: the seat names which one goes with the farm."""
    farm = Farm(0, 5, cards("4D 1C"))
    state = situation(
        ruleset("fattoria"), hands=["1S", "5B 9S"], table="5C 5S", turn=1, farms=(farm,)
    )
    with pytest.raises(CaptureChoiceRequired):
        play(state, 1, "5B", None)
    state, _ = play(state, 1, "5B", "4D 1C 5S")
    assert state.table == cards("5C")


def test_a_raise_makes_the_farm_the_raisers() -> None:
    """it.wikipedia: others may raise a farm holding a card of the new value; it is then theirs."""
    farm = Farm(0, 7, cards("4D 3C"))
    state = situation(
        ruleset("fattoria"), hands=["7S 1C", "2B 9S 5C"], table="10C", turn=1, farms=(farm,)
    )
    raise_ = Build(card("2B"), cards("3C 4D"), 9)  # the farm named in any order
    assert Build(card("2B"), cards("4D 3C"), 9) in builds(state)
    state, events = apply_action(state, 1, raise_, None)
    raised = Farm(1, 9, cards("4D 3C 2B"))
    assert of_type(events, CardPlayed)[0].farm == raised and state.farms == (raised,)
    assert Move(card("7S"), ()) in legal_moves(state)  # seat 0 no longer owns a farm
    assert not [b for b in builds(state) if b.onto == raised.cards]  # 7 + 9 is over 10
    state, _ = play(state, 0, "1C", "")
    assert legal_moves(state) == [Move(card("9S"), cards("4D 3C 2B"))]


def test_the_owner_may_not_raise_its_own_farm_and_raising_can_be_off() -> None:
    """Only other seats raise (it.wikipedia: "Alți jucători"); farm_raise=false allows none."""
    farm = Farm(1, 5, cards("4D 1C"))
    hands = ["2B 7S", "5B 9S"]
    state = situation(ruleset("fattoria"), hands=hands, table="10C", farms=(farm,))
    assert Build(card("2B"), cards("4D 1C"), 7) in builds(state)
    off = situation(ruleset("fattoria", farm_raise=False), hands=hands, table="10C", farms=(farm,))
    assert not [b for b in builds(off) if len(b.onto) > 1]
    with pytest.raises(ActionNotLegal):
        apply_action(off, 0, Build(card("2B"), cards("4D 1C"), 7), None)


@pytest.mark.parametrize(
    ("hand", "build"),
    [
        ("3C 6S", ("3C", "4D", 7)),  # no 7 in the hand
        ("3C 7S", ("3C", "4D", 8)),  # the value is not the sum
        ("9C 7S", ("9C", "4D", 13)),  # over 10
        ("4C 8S", ("4C", "4D", 8)),  # 4C takes 4D: capturing stays compulsory
        ("3C 7S", ("3C", "5B", 8)),  # no 5B on the table
        ("7S 7C", ("7S", "4D", 11)),
    ],
)
def test_a_build_is_refused_unless_the_seed_allows_it(
    hand: str, build: tuple[str, str, int]
) -> None:
    """A build needs a card taking nothing, one table card, the sum as value and a card of it."""
    state = situation(ruleset("fattoria"), hands=[hand, "1D"], table="4D 9C")
    action = Build(card(build[0]), (card(build[1]),), build[2])
    assert action not in builds(state)
    with pytest.raises(ActionNotLegal):
        apply_action(state, 0, action, None)
    assert state.farms == ()


def test_a_ruleset_without_farms_has_no_build_action() -> None:
    """Scopa lists no builds and refuses one."""
    state = situation(ruleset("scopa"), hands=["3C 7S", "1D"], table="4D 9C")
    assert builds(state) == []
    with pytest.raises(ActionNotLegal):
        apply_action(state, 0, Build(card("3C"), (card("4D"),), 7), None)


def test_taking_the_last_farm_off_an_empty_table_is_a_sweep() -> None:
    """A capture leaving no loose card and no farm sweeps; one leaving a farm does not."""
    farm = Farm(0, 7, cards("4D 3C"))
    state = situation(
        ruleset("fattoria"), hands=["7S 1C", "2B"], table="", stock="5C", farms=(farm,)
    )
    state, events = play(state, 0, "7S", None)
    assert of_type(events, CardPlayed)[0].sweep and state.sweeps == (1, 0)
    state = situation(
        ruleset("fattoria"), hands=["7S 9S", "9B 2B"], table="9C", turn=1, farms=(farm,)
    )
    state, events = play(state, 1, "9B", "9C")
    assert not of_type(events, CardPlayed)[0].sweep and state.farms == (farm,)


def test_a_farm_left_at_the_hands_end_goes_with_the_leftovers() -> None:
    """With farm_owner_takes=false a farm may outlive the hand: its cards go to the last taker."""
    farm = Farm(0, 7, cards("4D 3C"))
    state = situation(
        ruleset("fattoria", farm_owner_takes=False),
        hands=["", "9B"],
        table="9C 2S",
        turn=1,
        farms=(farm,),
        last_capturer=0,
    )
    state, events = play(state, 1, "9B", "9C")
    assert of_type(events, LeftoverTaken) == [LeftoverTaken(1, cards("2S 4D 3C"))]
    assert state.farms == () and of_type(events, HandScored)


def test_a_farm_owner_cannot_spend_its_farms_card_on_a_pile_steal() -> None:
    """With pile_steal, the owner of a farm due this turn is offered no steal (its card of the
    farm's value would leave it with no legal action) and one is refused."""
    farm = Farm(owner=0, value=9, cards=cards("7C 2C"))
    piles = (cards("3B"), cards("4B 9B"))
    state = situation(
        ruleset("fattoria", pile_steal=True),
        hands=["9C 5D", "1D 6B"],
        table="4C 8B",
        farms=(farm,),
        piles=piles,
    )
    assert legal_actions(state) == [Move(card("9C"), cards("7C 2C"))]
    with pytest.raises(ActionNotLegal):
        apply_action(state, 0, Steal(card("9C"), 1), None)
    free = replace(state, farms=(farm._replace(owner=1),))  # not its farm: the steal is open
    assert Steal(card("9C"), 1) in legal_actions(free)


def test_an_owner_stored_without_its_farms_card_plays_freely() -> None:
    """The state issue 29 found (a game stored before steals obeyed the duty): seat 0 owns a farm
    of 9 and holds no 9. The duty binds no one, so the seat has moves, and the game plays on."""
    rules = make_ruleset(
        "a_non_prendere",
        {
            "pile_steal": True,
            "farms": True,
            "farm_raise": False,
            "aces_on_table": "redeal",
            "players": 2,
        },
        stored=True,  # two seats, as the game the fuzzer found: a stored game keeps its seats
    )
    farms = (Farm(0, 9, cards("7C 2C")), Farm(1, 7, cards("4S 3S")))
    state = situation(
        rules,
        hands=["6S 5B 5D 10B 1C 1D", "2S 3C 6D 7D 8C 10C"],
        table="4C 8B 10D",
        farms=farms,
        piles=(cards("9B"), ()),
    )
    actions = legal_actions(state)
    assert actions and {m.card for m in legal_moves(state)} == set(state.hands[0])
    state, _ = apply_action(state, 0, actions[0], random.Random(0))
    assert load_state(dump_state(state)) == state
    assert state.turn == 1 and legal_actions(state)
