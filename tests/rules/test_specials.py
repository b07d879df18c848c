"""Tests of special plays and declarations as rules (scopa.rules._specials) and the action table."""

from __future__ import annotations

import random

import pytest
from rules_helpers import cards, of_type, play, ruleset, situation

from scopa.rules import (
    Accusa,
    ActionNotLegal,
    Bagher,
    CardPlayed,
    CirullaDeclaration,
    Component,
    Declare,
    Declared,
    HandScore,
    HandScored,
    Move,
    NapoleoneWins,
    NotYourTurn,
    Options,
    Picula,
    PileSteal,
    Steal,
    Tuzzulicchio,
    TwinSweep,
    apply_action,
    declaration_rules,
    instant_win_rules,
    legal_actions,
    make_ruleset,
    observe,
    special_rules,
    steal_rules,
)


@pytest.mark.parametrize(
    ("hand", "points"),
    [
        ("7C 7D 7S", 7),  # three of a rank
        ("1C 1D 1S", 7),
        ("2C 3C 4S", 2),  # adding up to 9, all ranks different
        ("1C 3D 5S", 2),
        ("3C 3D 2S", 3),  # adding up to 8, with a pair
        ("4C 4D 1S", 3),
    ],
)
def test_accusa_scores_the_combinations_of_seed_004(hand: str, points: int) -> None:
    """Seed 004, Bazzica: three of a rank 7; sum <= 9 gives 2, or 3 with two of a rank."""
    shown = tuple(sorted(cards(hand)))
    assert Accusa().declarations(cards(hand), Options()) == [(shown, points)]


@pytest.mark.parametrize(
    ("hand", "shown", "points"),
    [
        ("1C 1D 5S", "1C 1D", 3),  # buongioco: ace + ace
        ("2B 2S 9S", "2B 2S", 3),  # two + two
        ("3C 3D 10S", "3C 3D", 3),  # three + three
        ("1C 1D 1S", "1C 1D 1S", 6),  # ace + ace + ace
        ("2C 2D 2S", "2C 2D 2S", 6),
        ("1D 2D 9S", "1D 2D", 3),  # napoli: ace + two of one suit
        ("1S 3S 7C", "1S 3S", 3),  # ace + three
        ("2B 3B 5C", "2B 3B", 3),  # two + three
        ("1C 2C 3C", "1C 2C 3C", 7),  # ace + two + three of one suit
        ("1D 1C 2C", "1C 2C 1D", 6),  # a hybrid: ace + (ace + two of one suit), two tuzzoli
        ("1D 1C 3C", "1C 3C 1D", 6),  # ace + (ace + three of one suit)
        ("2D 2C 3C", "2C 3C 2D", 6),  # two + (two + three of one suit)
    ],
)
def test_tuzzulicchio_scores_the_table_of_seed_004(hand: str, shown: str, points: int) -> None:
    """Seed 004 Tuzzulicchio: buongioco 3 (three alike 6), napoli 3 (ace, 2, 3 of a suit 7)."""
    expected = tuple(sorted(cards(shown)))
    assert Tuzzulicchio().declarations(cards(hand), Options()) == [(expected, points)]


@pytest.mark.parametrize("hand", ["1C 2D 3S", "5C 6C 7C", "4C 4D 9S"])
def test_tuzzulicchio_needs_low_cards_alike_or_of_one_suit(hand: str) -> None:
    """Ace, 2 and 3 of different suits, or pairs above 3, declare nothing."""
    assert Tuzzulicchio().declarations(cards(hand), Options()) == []


def test_cocchiaundici_is_tuzzulicchio_with_captures_to_eleven() -> None:
    """Seed 004: Cocchiaundici keeps Tuzzulicchio's rules and adds captures adding up to 11."""
    tuzzu, cocchia = make_ruleset("tuzzulicchio"), make_ruleset("cocchiaundici")
    assert declaration_rules(tuzzu.options) == declaration_rules(cocchia.options)
    state = situation(cocchia, hands=["8C 5S", "9B"], table="3B 6D")
    _, events = play(state, 0, "8C", "3B")  # fante + 3 = 11
    assert of_type(events, Declared) == [] and state.options.ace_takes_all


@pytest.mark.parametrize(
    ("hand", "points"),
    [
        ("1C 2D 5S", 3),  # adding up to 8: 3 points (Pagat: "9 or less")
        ("2C 3D 4S", 3),  # exactly 9
        ("9C 9D 9S", 10),  # three of a rank
        ("1C 1D 1S", 10),  # three of a rank beats the sum
        ("7C 5D 5S", 10),  # the matta (7 of coppe) takes the rank of the pair
        ("7C 2D 6S", 3),  # the matta counts as an ace: 1 + 2 + 6 = 9
    ],
)
def test_cirulla_declarations_with_the_matta(hand: str, points: int) -> None:
    """Cirulla (Pagat, it.wikipedia): 9 or less scores 3, three alike 10, the 7 of coppe wild."""
    shown = tuple(sorted(cards(hand)))
    assert CirullaDeclaration().declarations(cards(hand), Options()) == [(shown, points)]


@pytest.mark.parametrize("hand", ["2C 3D 5S", "7C 3D 6S", "7D 7S 8B"])
def test_cirulla_declares_nothing_over_nine_without_three_alike(hand: str) -> None:
    """Over 9 (the matta as an ace) and no three alike: nothing; the 7 of denari is no matta."""
    assert CirullaDeclaration().declarations(cards(hand), Options()) == []


@pytest.mark.parametrize("hand", ["2C 3C 5S", "7C 7D 8S", "1C 2D", "10C 10D 9S"])
def test_accusa_needs_a_combination_of_three_cards(hand: str) -> None:
    """A sum over 9 without three of a rank, or fewer than three cards, declares nothing."""
    assert Accusa().declarations(cards(hand), Options()) == []


def test_picula_and_bagher_rules_score_one_capture() -> None:
    """Picula: the card just laid, taken by its rank; bagher: 2+ cards of the played suit."""
    assert Picula().points(cards("5D")[0], cards("5C"), cards("5C")[0], False) == 1
    assert Picula().points(cards("5D")[0], cards("5C"), cards("5B")[0], False) == 0
    assert Bagher().points(cards("7C")[0], cards("5C 2C"), -1, False) == 3
    assert Bagher().points(cards("7C")[0], cards("5C 2B"), -1, False) == 0


def test_rulesets_list_the_rules_their_options_enable() -> None:
    """Spazzino lists picula and bagher, Bazzica the accusa, Scopa none of them."""
    assert [r.name for r in special_rules(make_ruleset("spazzino").options)] == ["picula", "bagher"]
    assert [r.name for r in declaration_rules(make_ruleset("bazzica").options)] == ["accusa"]
    scopa = make_ruleset("scopa").options
    assert special_rules(scopa) == () and declaration_rules(scopa) == ()


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


def test_napoleone_is_an_instant_win_rule_of_the_rulesets_that_enable_it() -> None:
    """Scopa with napola lists the napoleone rule; it names the sides holding all ten denari."""
    assert [type(r) for r in instant_win_rules(make_ruleset("scopa_napola").options)] == [
        NapoleoneWins
    ]
    assert instant_win_rules(make_ruleset("scopa").options) == ()
    line = Component("cards", (0, 0), (20.0, 20.0))
    score = HandScore((line,), (0, 0), (False, True))
    assert NapoleoneWins().winners(score) == (1,)
    assert NapoleoneWins().winners(HandScore((line,), (0, 0), (False, False))) == ()


def _piles(*codes: str) -> tuple[tuple[int, ...], ...]:
    return tuple(cards(c) if c else () for c in codes)


def test_pile_steal_takes_a_pile_whose_top_card_has_the_rank() -> None:
    """Rubamazzo's rule: a card steals a pile whose top card shares its rank, suits aside."""
    assert PileSteal().can_steal(cards("5D")[0], cards("5C")[0])
    assert not PileSteal().can_steal(cards("5D")[0], cards("6D")[0])
    assert [type(r) for r in steal_rules(make_ruleset("rubamazzo").options)] == [PileSteal]
    assert steal_rules(make_ruleset("scopa").options) == ()


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


# --- two decks: twins (seed 004, Marescialla with 80 cards) -------------------------------

TWO_DECKS = {"deck_size": 80, "players": 4, "hand_size": 5, "table_cards": 0}


def test_a_twin_sweep_scores_three_and_the_maresciallo_on_its_twin_ten() -> None:
    """Seed 004: a card sweeping its twin scores 3 (+2 beside the sweep), the re of spade 10."""
    rule = TwinSweep()
    assert rule.points(cards("5S")[0], cards("5S'"), -1, True) == 2
    assert rule.points(cards("10S'")[0], cards("10S"), -1, True) == 9
    assert rule.points(cards("5S")[0], cards("5S'"), -1, False) == 0
    assert rule.points(cards("5S")[0], cards("5C"), -1, True) == 0


def test_the_maresciallo_sweeping_its_twin_is_not_penalised_as_a_sweep() -> None:
    """With twin_captures the re of spade on its twin scores 10 in all, not the -3 penalty that a
    sweep of other cards with it still costs."""
    rules = ruleset("marescialla", **TWO_DECKS, twin_captures=True)
    assert [r.name for r in special_rules(rules.options)] == ["maresciallo_sweep", "twin_sweep"]
    state = situation(rules, hands=["10S 1C", "2C", "3C", "4C"], table="10S'", stock="")
    state, events = play(state, 0, "10S", "10S'")
    played = of_type(events, CardPlayed)[0]
    assert played.sweep
    assert dict(state.specials[0]) == {"twin_sweep": 9}
    other = situation(rules, hands=["10S 1C", "2C", "3C", "4C"], table="5C 5B", stock="")
    other, events = play(other, 0, "10S", "5B 5C")
    assert dict(other.specials[0]) == {"maresciallo_sweep": -3}


def test_a_card_that_would_take_its_twin_short_of_a_sweep_is_laid() -> None:
    """Seed 004: 5S cannot take 5S' beside another card; with no other set it is laid."""
    rules = ruleset("marescialla", **TWO_DECKS, twin_captures=True)
    state = situation(rules, hands=["5S 1C", "2C", "3C", "4C"], table="5S' 9C", stock="")
    state, events = play(state, 0, "5S", "")
    assert of_type(events, CardPlayed)[0].captured == ()
    assert sorted(state.table) == sorted(cards("5S 5S' 9C"))
