"""Tests of special plays and declarations as rules (scopa.rules._specials) and the action table."""

from __future__ import annotations

import random

import pytest
from rules_helpers import cards, of_type, play, ruleset, situation

from scopa.rules import (
    ANSWER,
    HIDDEN_CARD,
    PLAY,
    Accusa,
    ActionNotLegal,
    Answer,
    Bagher,
    CardNotInHand,
    CardPlayed,
    CirullaDeclaration,
    Claim,
    ClaimAnswered,
    ClaimOutcome,
    DealerTableBonus,
    Declare,
    Declared,
    HandScored,
    InvalidOption,
    MatchState,
    Move,
    NotYourTurn,
    Options,
    PendingClaim,
    Picula,
    PileSteal,
    Steal,
    SuitCapture,
    SweepClaimed,
    ThreeCardCapture,
    Tuzzulicchio,
    TwinSweep,
    apply_action,
    apply_move,
    claim_rules,
    declaration_rules,
    legal_actions,
    legal_moves,
    make_ruleset,
    observe,
    parse_card,
    special_rules,
    steal_rules,
    table_bonus_rules,
    visible_event,
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


# --- claimed sweeps (Scopa fidasse) -----------------------------------------------------------


def _card(code: str) -> int:
    return cards(code)[0]


def _claimed(preset: str = "fidasse", **overrides: object) -> MatchState:
    """Seat 0 has claimed a sweep of 3D 4S with the 2C it played face down (a false claim)."""
    state = situation(
        ruleset(preset, **overrides),
        hands=["2C 9C", "5B 8B"] if preset == "fidasse" else ["2C 9C", "5B 8B", "6B 8C", "1S 2S"],
        table="3D 4S",
        stock="10C 10D",
    )
    state, events = apply_action(state, 0, Claim(_card("2C")), None)
    assert events == [SweepClaimed(seat=0, table=state.table, answering=state.claim.answering)]  # type: ignore[union-attr]
    return state


def test_tifidi_asks_the_opponents_in_playing_order_and_prices_the_answers() -> None:
    """Seed 004's "ti fidate?": every opponent in turn (the next one alone with claim_answers
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


def test_a_claim_awaits_the_opponents_answer_with_its_card_face_down() -> None:
    """After "ti fidi?" the turn is the answering seat's: only it may act, by trust or doubt;
    its view and a spectator's show the claim without its card, the claimer's with it."""
    state = _claimed()
    assert (state.phase, state.turn, state.hands[0]) == (ANSWER, 1, cards("9C"))
    assert state.claim == PendingClaim(seat=0, card=_card("2C"), answering=(1,), trusted=())
    assert legal_actions(state) == [Answer(trust=True), Answer(trust=False)]
    assert legal_actions(state, 0) == [] and legal_moves(state) == []
    with pytest.raises(NotYourTurn):
        apply_action(state, 0, Answer(trust=True), None)
    with pytest.raises(ActionNotLegal):
        apply_action(state, 1, Move(_card("5B"), ()), None)
    with pytest.raises(ActionNotLegal):
        apply_move(state, 1, Move(_card("5B"), ()))
    for seat in (1, None):
        view = observe(state, seat)
        assert view.phase == ANSWER and view.claim is not None
        assert view.claim.card == HIDDEN_CARD and _card("2C") not in view.hand
    assert observe(state, 0).claim.card == _card("2C")  # type: ignore[union-attr]
    assert observe(state, 1).legal_actions == (Answer(trust=True), Answer(trust=False))


def test_a_trusted_claim_sweeps_unseen_even_when_false() -> None:
    """Seed 004: "dacă răspundeți da, mătura rămâne terminată și nu trebuie afișată": 2C takes
    3D 4S as a sweep, and only the claimer ever sees the card."""
    state, events = apply_action(_claimed(), 1, Answer(trust=True), None)
    trusted = CardPlayed(
        0, _card("2C"), cards("3D 4S"), True, True, (), -1, ClaimOutcome(-1, False, ())
    )
    assert events[:2] == [ClaimAnswered(seat=1, trust=True), trusted]
    assert (state.phase, state.claim, state.turn, state.table) == (PLAY, None, 1, ())
    assert state.sweeps == (1, 0) and state.piles[0] == cards("3D 4S 2C")
    hidden = trusted._replace(card=HIDDEN_CARD)
    assert observe(state, 1).history[-1] == hidden and observe(state, None).history[-1] == hidden
    assert observe(state, 0).history[-1] == trusted
    assert visible_event(trusted, 1) == hidden and visible_event(trusted, 0) == trusted


def test_a_doubted_false_claim_is_annulled_and_costs_the_claimer_a_point() -> None:
    """Seed 004, case 1: the sweep is annulled (2C is laid beside 3D 4S) and the claimer's
    side loses a point; the card is shown to everyone."""
    state, events = apply_action(_claimed(), 1, Answer(trust=False), None)
    laid = CardPlayed(
        0, _card("2C"), (), False, False, (("false_claim", -1),), -1, ClaimOutcome(1, False, ())
    )
    assert events[:2] == [ClaimAnswered(seat=1, trust=False), laid]
    assert state.table == tuple(sorted(cards("2C 3D 4S"), key=lambda c: (c % 10, c // 10)))
    assert (state.sweeps, state.specials, state.last_laid) == (
        (0, 0),
        ((("false_claim", -1),), ()),
        _card("2C"),
    )
    assert visible_event(laid, 1) == laid and observe(state, None).history[-1] == laid


def test_a_doubted_true_claim_stands_and_costs_the_doubter_a_point() -> None:
    """Seed 004, case 2: 7C does take 3D 4S, so the sweep stands and the doubter's side loses
    the point (the score sheet's wrong_doubts line)."""
    state = situation(
        ruleset("fidasse"), hands=["7C", "5B"], table="3D 4S", stock="", piles=((), ())
    )
    state, _ = apply_action(state, 0, Claim(_card("7C")), None)
    state, events = apply_action(state, 1, Answer(trust=False), None)
    played = of_type(events, CardPlayed)[0]
    assert played.claim == ClaimOutcome(1, True, (("wrong_doubt", -1),)) and played.sweep
    assert state.sweeps == (1, 0) and state.specials == ((), (("wrong_doubt", -1),))
    state, events = apply_action(state, 1, Move(_card("5B"), ()), random.Random(1))
    lines = {c.name: c.points for c in of_type(events, HandScored)[0].result.score.components}
    assert lines["sweeps"] == (1, 0) and lines["wrong_doubts"] == (0, -1)
    assert lines["false_claims"] == (0, 0)


def test_with_four_players_each_opponent_answers_in_turn_and_the_first_doubt_settles() -> None:
    """Scopone-style teams: seats 1 and 3 are asked (not the partner 2); 1 trusts, the turn goes
    to 3, whose doubt settles the claim; play goes on after the claimer."""
    state = _claimed("scopone", sweep_claims=True)
    assert state.claim.answering == (1, 3) and state.turn == 1  # type: ignore[union-attr]
    state, events = apply_action(state, 1, Answer(trust=True), None)
    assert events == [ClaimAnswered(1, True)] and state.turn == 3
    assert state.claim.trusted == (1,) and legal_actions(state, 1) == []  # type: ignore[union-attr]
    state, events = apply_action(state, 3, Answer(trust=False), None)
    assert of_type(events, CardPlayed)[0].claim == ClaimOutcome(3, False, ())
    assert (state.phase, state.turn) == (PLAY, 1)


def test_no_claim_on_an_empty_table_with_the_last_card_or_without_the_rule() -> None:
    """A claim needs cards on the table and a play that is not the hand's last; plain Scopa
    has none; a card not in the hand is refused."""
    empty = situation(ruleset("fidasse"), hands=["2C 9C", "5B 8B"], table="", stock="10C 10D")
    assert not [a for a in legal_actions(empty) if isinstance(a, Claim)]
    with pytest.raises(ActionNotLegal):
        apply_action(empty, 0, Claim(_card("2C")), None)
    last = situation(ruleset("fidasse"), hands=["2C", ""], table="3D", stock="")
    assert not [a for a in legal_actions(last) if isinstance(a, Claim)]
    open_ = situation(ruleset("fidasse"), hands=["2C 9C", "5B 8B"], table="3D", stock="10C 10D")
    assert [a for a in legal_actions(open_) if isinstance(a, Claim)] == [
        Claim(_card("2C")),
        Claim(_card("9C")),
    ]
    with pytest.raises(CardNotInHand):
        apply_action(open_, 0, Claim(_card("5B")), None)
    scopa = situation(ruleset("scopa"), hands=["2C 9C", "5B 8B"], table="3D", stock="10C 10D")
    assert not [a for a in legal_actions(scopa) if isinstance(a, Claim)]
    with pytest.raises(ActionNotLegal):
        apply_action(scopa, 0, Claim(_card("2C")), None)
    with pytest.raises(InvalidOption):
        make_ruleset("rubamazzo", {"sweep_claims": True})


@pytest.mark.parametrize("counts", [False, True])
def test_a_claim_is_open_only_with_a_card_whose_clearing_would_score_a_sweep(counts: bool) -> None:
    """Under asso piglia tutto an ace's clearing is a sweep only with ace_sweep_counts, so
    only then may an ace be claimed (the sweep rules are asked as for a real sweep)."""
    state = situation(
        ruleset("fidasse", ace_takes_all=True, ace_sweep_counts=counts),
        hands=["1C 9C", "5B 8B"],
        table="3D 4S",
        stock="10C 10D",
    )
    claims = [a for a in legal_actions(state) if isinstance(a, Claim)]
    assert claims == ([Claim(_card("1C"))] if counts else []) + [Claim(_card("9C"))]
    if not counts:
        with pytest.raises(ActionNotLegal):
            apply_action(state, 0, Claim(_card("1C")), None)


def test_a_claim_with_the_hands_last_card_follows_sweep_on_last_card() -> None:
    """The last card's clearing is no sweep by default, so it cannot be claimed; with
    sweep_on_last_card it is one, so the claim is open and, trusted, scores the sweep."""
    for on_last, expected in ((False, []), (True, [Claim(_card("7C"))])):
        state = situation(
            ruleset("fidasse", sweep_on_last_card=on_last),
            hands=["7C", ""],
            table="3D 4S",
            stock="",
            piles=((), ()),
        )
        assert [a for a in legal_actions(state) if isinstance(a, Claim)] == expected
    state, _ = apply_action(state, 0, Claim(_card("7C")), None)
    state, events = apply_action(state, 1, Answer(trust=True), random.Random(1))
    assert of_type(events, CardPlayed)[0].sweep
    lines = {c.name: c.points for c in of_type(events, HandScored)[0].result.score.components}
    assert lines["sweeps"] == (1, 0)


def test_a_trusted_claim_is_a_sweep_only_when_the_sweep_rules_say_so() -> None:
    """A pending claim of an ace under asso piglia tutto without ace_sweep_counts (a state
    saved before such claims were closed) takes the table trusted but scores no sweep, as the
    ace taking the table would not."""
    state = situation(
        ruleset("fidasse", ace_takes_all=True),
        hands=["9C", "5B 8B"],
        table="3D 4S",
        stock="10C 10D",
        turn=1,
        phase=ANSWER,
        claim=PendingClaim(seat=0, card=_card("1C"), answering=(1,), trusted=()),
    )
    state, events = apply_action(state, 1, Answer(trust=True), None)
    played = of_type(events, CardPlayed)[0]
    assert (played.taken, played.sweep, played.captured) == (True, False, cards("3D 4S"))
    assert state.sweeps == (0, 0) and state.piles[0][-3:] == cards("3D 4S 1C")


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
