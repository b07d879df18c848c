"""Tests of special plays and declarations as rules (scopa.rules._specials); the move types they
enable are tested in test_moves_claim.py, test_moves_declare.py and test_moves_steal.py."""

from __future__ import annotations

import pytest
from rules_helpers import cards, of_type, play, ruleset, situation

from scopa.rules import (
    Accusa,
    AcesOnTable,
    AcesTableSweep,
    Bagher,
    CardPlayed,
    CirullaDeclaration,
    DealerTableBonus,
    Declared,
    Options,
    Picula,
    PileSteal,
    SuitCapture,
    ThreeCardCapture,
    Tuzzulicchio,
    TwinSweep,
    claim_rules,
    declaration_rules,
    make_ruleset,
    parse_card,
    special_rules,
    steal_rules,
    table_bonus_rules,
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
    """it.wikipedia, Bazzica: three of a rank 7; sum <= 9 gives 2, or 3 with two of a rank."""
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
    """it.wikipedia Tuzzulicchio: buongioco 3 (three alike 6), napoli 3 (ace, 2, 3 of a suit 7)."""
    expected = tuple(sorted(cards(shown)))
    assert Tuzzulicchio().declarations(cards(hand), Options()) == [(expected, points)]


@pytest.mark.parametrize("hand", ["1C 2D 3S", "5C 6C 7C", "4C 4D 9S"])
def test_tuzzulicchio_needs_low_cards_alike_or_of_one_suit(hand: str) -> None:
    """Ace, 2 and 3 of different suits, or pairs above 3, declare nothing."""
    assert Tuzzulicchio().declarations(cards(hand), Options()) == []


def test_cocchiaundici_is_tuzzulicchio_with_captures_to_eleven() -> None:
    """it.wikipedia: Cocchiaundici keeps Tuzzulicchio's rules and adds captures adding up to 11."""
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


def test_pile_steal_takes_a_pile_whose_top_card_has_the_rank() -> None:
    """Rubamazzo's rule: a card steals a pile whose top card shares its rank, suits aside."""
    assert PileSteal().can_steal(cards("5D")[0], cards("5C")[0])
    assert not PileSteal().can_steal(cards("5D")[0], cards("6D")[0])
    assert [type(r) for r in steal_rules(make_ruleset("rubamazzo").options)] == [PileSteal]
    assert steal_rules(make_ruleset("scopa").options) == ()


# --- two decks: twins (it.wikipedia, Marescialla with 80 cards) -------------------------------

TWO_DECKS = {"deck_size": 80, "players": 4, "hand_size": 5, "table_cards": 0}


def test_a_twin_sweep_scores_three_and_the_maresciallo_on_its_twin_ten() -> None:
    """it.wikipedia: a card sweeping its twin scores 3 (+2 beside the sweep), the re of spade 10."""
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
    """it.wikipedia: 5S cannot take 5S' beside another card; with no other set it is laid."""
    rules = ruleset("marescialla", **TWO_DECKS, twin_captures=True)
    state = situation(rules, hands=["5S 1C", "2C", "3C", "4C"], table="5S' 9C", stock="")
    state, events = play(state, 0, "5S", "")
    assert of_type(events, CardPlayed)[0].captured == ()
    assert sorted(state.table) == sorted(cards("5S 5S' 9C"))


# --- claimed sweeps (Scopa fidasse): the rule; the move types are test_moves_claim.py's ---------


def _card(code: str) -> int:
    return cards(code)[0]


def test_tifidi_asks_the_opponents_in_playing_order_and_prices_the_answers() -> None:
    """it.wikipedia's "ti fidate?": every opponent in turn (the next one alone with claim_answers
    next); a false claim and a wrong doubt cost a point each, or the option's points."""
    rule = claim_rules(make_ruleset("fidasse", {"players": 4}).options)[0]
    assert rule.answering(1, (2, 3, 0), (0, 1, 0, 1)) == (2, 0)
    alone = claim_rules(make_ruleset("fidasse", {"players": 4, "partnerships": False}).options)[0]
    assert alone.answering(1, (2, 3, 0), (0, 1, 2, 3)) == (2, 3, 0)
    nxt = claim_rules(make_ruleset("fidasse", {"claim_answers": "next"}).options)[0]
    assert nxt.answering(0, (1,), (0, 1)) == (1,)
    assert (rule.false_claim(), rule.wrong_doubt()) == (
        (("false_claim", -1),),
        (("wrong_doubt", -1),),
    )
    priced = claim_rules(
        make_ruleset("fidasse", {"false_claim_points": 2, "wrong_doubt_points": 0}).options
    )[0]
    assert (priced.false_claim(), priced.wrong_doubt()) == ((("false_claim", -2),), ())
    assert claim_rules(make_ruleset("scopa").options) == ()


@pytest.mark.parametrize(
    ("table", "low", "points"),
    [
        ("5C 2D 3S 5B", False, 1),  # 15: a scopa (regoledelgioco)
        ("10C 10D 5S 5B", False, 2),  # 30: two (regoledelgioco)
        ("7C 2D 3S 4B", False, 1),  # the matta as a 6 makes 15 (Parlett)
        ("7C 10D 9S 4B", False, 2),  # the matta as a 7 makes 30
        ("7D 2D 3S 4B", False, 0),  # the 7 of denari is not wild: 16
        ("1C 2D 3S 2B", False, 0),  # 8: only with the low table
        ("1C 2D 3S 2B", True, 3),  # it.wikipedia: 9 or less, 3 scope
        ("7C 2D 3S 2B", True, 3),  # the matta as an ace: 8
        ("", False, 0),
    ],
)
def test_the_dealer_table_bonus(table: str, low: bool, points: int) -> None:
    """Cirulla's dealer bonus scores the starting table by its sum, the matta wild."""
    assert DealerTableBonus(low=low).points(cards(table) if table else ()) == points


def test_the_table_bonus_rules_follow_the_options() -> None:
    """dealer_bonus enables the bonus; dealer_bonus_low swaps in the one with the low table."""
    assert table_bonus_rules(Options()) == ()
    (plain,) = table_bonus_rules(Options(dealer_bonus=True))
    (low,) = table_bonus_rules(Options(dealer_bonus=True, dealer_bonus_low=True))
    assert plain.points(cards("1C 2D 3S 2B")) == 0 and low.points(cards("1C 2D 3S 2B")) == 3


@pytest.mark.parametrize(
    ("table", "points"),
    [("1C 1D 9D 10D", 1), ("1C 1D 1S 2B", 1), ("1C 2D 9D 10D", 0), ("", 0)],
)
def test_the_aces_table_sweep(table: str, points: int) -> None:
    """aces_on_table=sweep (issue 27): two or more aces score the dealer a sweep; one does not."""
    assert AcesTableSweep().points(cards(table) if table else ()) == points


def test_the_aces_sweep_is_asked_before_the_dealer_bonus() -> None:
    """aces_on_table=sweep lists its rule first, so a table of two aces adding up to 15 goes to
    the dealer as the aces' sweep (the engine asks the next rule of no table)."""
    options = Options(aces_on_table=AcesOnTable.SWEEP, dealer_bonus=True)
    assert [type(r) for r in table_bonus_rules(options)] == [AcesTableSweep, DealerTableBonus]
    assert [type(r) for r in table_bonus_rules(Options(aces_on_table=AcesOnTable.SWEEP))] == [
        AcesTableSweep
    ]
    assert table_bonus_rules(Options(aces_on_table=AcesOnTable.REDEAL)) == ()


def test_cicera_suit_capture_scores_one_for_a_capture_all_of_one_suit() -> None:
    """Pagat's Cicera: the played card and the cards it takes all of one suit score 1 point."""
    rule = SuitCapture()
    assert rule.points(parse_card("7C"), cards("3C 4C"), -1, False) == 1
    assert rule.points(parse_card("5D"), cards("5D"), -1, False) == 1  # one card is enough
    assert rule.points(parse_card("7C"), cards("3C 4D"), -1, False) == 0
    assert rule.points(parse_card("7C"), (), -1, False) == 0  # laid: no capture


def test_cicera_three_card_capture_scores_one_for_three_table_cards() -> None:
    """Pagat's Cicera: a capture of three or more table cards scores 1 point."""
    rule = ThreeCardCapture()
    assert rule.points(parse_card("10C"), cards("2D 3S 5B"), -1, False) == 1
    assert rule.points(parse_card("10C"), cards("1D 2D 3S 4B"), -1, False) == 1
    assert rule.points(parse_card("10C"), cards("4S 6B"), -1, False) == 0


def test_cicera_in_play_points_reach_the_events_and_the_score_sheet() -> None:
    """With picula, suit_capture and three_card_capture a Cicera play scores each that applies;
    none of them on the hand's last card."""
    rules = make_ruleset(
        "cicera_bigia",
        {"players": 2, "picula": True, "suit_capture": True, "three_card_capture": True},
    )
    state = situation(rules, hands=["10C 9S", "4B 6D"], table="2C 3C 5C 8D", stock="")
    state, events = play(state, 0, "10C", "2C 3C 5C")
    (played,) = [e for e in events if isinstance(e, CardPlayed)]
    assert dict(played.specials) == {"suit_capture": 1, "three_card_capture": 1}
    assert dict(state.specials[0]) == {"suit_capture": 1, "three_card_capture": 1}
