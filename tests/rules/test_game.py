"""Tests of the match (scopa.rules._game): dealing, plays, specials, hand end and match flow."""

from __future__ import annotations

import random
from collections.abc import MutableSequence, Sequence
from dataclasses import fields, replace
from typing import Any

import pytest
from rules_helpers import (
    cards,
    of_type,
    play,
    play_out,
    random_move,
    ruleset,
    situation,
    stacked,
)

from scopa.rules import (
    PRESETS,
    AceReturned,
    AcesOnTable,
    BonusScored,
    CaptureChoiceRequired,
    CaptureNotLegal,
    CardNotInHand,
    CardPlayed,
    CardsDealt,
    Declared,
    Event,
    FinishReason,
    GameFinished,
    GameOver,
    HandResult,
    HandScore,
    HandScored,
    HandStarted,
    InvalidDeck,
    InvalidSeat,
    LeftoverTaken,
    MatchState,
    Move,
    NotYourTurn,
    Options,
    Redealt,
    RulesError,
    Ruleset,
    SeatResigned,
    apply_action,
    apply_move,
    check_deck,
    dump_state,
    is_stuck,
    legal_actions,
    legal_moves,
    make_ruleset,
    new_match,
    parse_card,
    rank_of,
    resign,
)
from scopa.rules._capture import table_key


def points(events: Sequence[Event], name: str) -> tuple[int, ...]:
    """The per-side points of component ``name`` in the first HandScored event."""
    score = of_type(events, HandScored)[0].result.score
    return next(c.points for c in score.components if c.name == name)


def only_played(events: Sequence[Event]) -> CardPlayed:
    """The single CardPlayed event of a move."""
    (played,) = of_type(events, CardPlayed)
    return played


# --- conventions: seats, dealer, dealing -------------------------------------------------


@pytest.mark.parametrize(("preset", "players"), [("scopa", 2), ("scopa3", 3), ("scopa6", 6)])
def test_first_dealer_is_the_last_seat_and_seat_zero_leads(preset: str, players: int) -> None:
    """docs/rules.md's conventions: the first dealer is the last seat, so seat 0 leads."""
    state, events = new_match(make_ruleset(preset), rng=random.Random(3))
    assert (state.dealer, state.turn) == (players - 1, 0)
    assert of_type(events, HandStarted)[0].dealer == players - 1


def test_first_dealer_can_be_overridden() -> None:
    """docs/rules.md's conventions: a game may override the first dealer; the next seat leads."""
    state, _ = new_match(ruleset("scopa3", first_dealer=0), decks=(stacked(),))
    assert (state.dealer, state.turn) == (0, 1)
    assert state.hands[1] == tuple(stacked()[0:9:3])


def test_stacked_deck_deals_round_robin_from_the_leader_then_the_table() -> None:
    """docs/rules.md's conventions: index 0 is the top; hands one card at a time, then the table."""
    deck = stacked("1C 2C 3C 4C 5C 6C 7C 8C 9C 10C")
    state, events = new_match(make_ruleset("scopa"), decks=(deck,))
    assert state.hands == (cards("1C 3C 5C"), cards("2C 4C 6C"))
    assert state.table == cards("7C 8C 9C 10C")
    assert state.stock == deck[10:]
    dealt = of_type(events, CardsDealt)
    assert [(d.seat, d.cards) for d in dealt] == [(0, state.hands[0]), (1, state.hands[1])]


def test_three_players_deal_from_seat_zero() -> None:
    """docs/rules.md's conventions: with 3 seats, cards go 0, 1, 2, 0, 1, 2, ..."""
    deck = stacked()
    state, _ = new_match(make_ruleset("scopa3"), decks=(deck,))
    assert state.hands == (deck[0:9:3], deck[1:9:3], deck[2:9:3])
    assert state.table == tuple(sorted(deck[9:13], key=table_key))


def test_later_deals_are_round_robin_from_the_leader() -> None:
    """docs/rules.md's conventions: each later deal again starts with the leading seat."""
    deck = stacked()
    state, _ = new_match(make_ruleset("scopa"), decks=(deck,))
    rng = random.Random(5)
    events: list[Event] = []
    while state.stock == deck[10:]:
        state, new = apply_move(state, state.turn, legal_moves(state)[0], rng)
        events.extend(new)
    assert state.hands == (deck[10:16:2], deck[11:16:2])
    assert state.stock == deck[16:]
    assert [d.seat for d in of_type(events, CardsDealt)] == [0, 1]
    assert state.turn == 0


def test_dealer_moves_on_every_hand() -> None:
    """docs/rules.md's conventions: the dealer moves one seat on each hand, and the lead with it."""
    rules = make_ruleset("scopa3", {"target_score": 99})
    first, second = stacked(), stacked()[::-1]
    state, _ = new_match(rules, decks=(first, second))
    state, events = play_out(state, random.Random(2), stop_after_hand=True)
    assert (state.hand_number, state.dealer, state.turn) == (2, 0, 1)
    started = of_type(events, HandStarted)[-1]
    assert (started.hand_number, started.dealer) == (2, 0)
    assert state.hands == (second[2:9:3], second[0:9:3], second[1:9:3])


@pytest.mark.parametrize(
    ("preset", "deals", "hand", "table"),
    [
        ("scopa", 6, 3, 4),
        ("scopa3", 4, 3, 4),
        ("scopa4", 3, 3, 4),
        ("scopa6", 2, 3, 4),
        ("scopone", 1, 9, 4),
        ("scopone_scientifico", 1, 10, 0),
    ],
)
def test_deals_per_hand_follow_the_preset(preset: str, deals: int, hand: int, table: int) -> None:
    """docs/rules.md Scopa/Scopone: 6, 4, 3, 2 deals of 3; Scopone 9 + 4 table; scientifico 10."""
    state, events = new_match(make_ruleset(preset), rng=random.Random(11))
    assert len(of_type(events, HandStarted)[0].table) == table
    assert {len(h) for h in state.hands} == {hand}
    state, played = play_out(state, random.Random(12), stop_after_hand=True)
    all_events = events + played
    first_hand = all_events[: all_events.index(of_type(all_events, HandScored)[0])]
    assert len([d for d in of_type(first_hand, CardsDealt) if d.seat == 0]) == deals


def test_bad_stacked_deck_is_rejected() -> None:
    """A stacked deck must be a permutation of the 40 cards, and a match needs a deck source."""
    with pytest.raises(InvalidDeck):
        new_match(make_ruleset("scopa"), decks=(stacked()[:-1] + (0,),))
    with pytest.raises(InvalidDeck):
        new_match(make_ruleset("scopa"))


@pytest.mark.parametrize(
    "deck",
    [
        stacked()[:-1],
        stacked()[:-1] + (0,),
        stacked() + (0,),
        stacked()[:-1] + (40,),
    ],
)
def test_check_deck_names_the_given_field(deck: tuple[int, ...]) -> None:
    """check_deck rejects anything but the 40 cards once each, naming the caller's field."""
    with pytest.raises(InvalidDeck) as err:
        check_deck(deck, "stacked_decks[3]")
    assert err.value.field == "stacked_decks[3]"
    with pytest.raises(InvalidDeck) as default:
        check_deck(list(deck))
    assert default.value.field == "stacked_decks"


def test_check_deck_returns_the_deck_as_a_tuple_in_its_order() -> None:
    """A permutation of the 40 cards comes back unchanged, as a tuple."""
    deck = stacked("10B 1C 7D")
    assert check_deck(list(deck)) == deck


# --- deal exceptions ---------------------------------------------------------------------


def test_three_kings_on_the_table_force_a_redeal() -> None:
    """docs/rules.md Scopa options (it.wikipedia): 3 kings on the starting table void the deal."""
    first = stacked("1C 2C 3C 4C 5C 6C 10C 10D 10B 7S")
    second = stacked("1D 2D 3D 4D 5D 6D 7D 8D 9D 7C")
    state, events = new_match(ruleset("scopa", kings_redeal=3), decks=(first, second))
    voided = tuple(sorted(cards("10C 10D 10B 7S"), key=table_key))
    assert of_type(events, Redealt) == [Redealt(1, "kings", voided)]
    assert events.index(of_type(events, Redealt)[0]) < events.index(of_type(events, HandStarted)[0])
    assert state.hands == (cards("1D 3D 5D"), cards("2D 4D 6D"))
    assert state.table == tuple(sorted(cards("7D 8D 9D 7C"), key=table_key))


def test_two_kings_redeal_only_with_the_regional_option() -> None:
    """docs/rules.md Scopa options (the Scopa page): 2 kings redeal regionally, not with the 3-king
    rule."""
    first = stacked("1C 2C 3C 4C 5C 6C 10C 10D 9B 7S")
    two, _ = new_match(ruleset("scopa", kings_redeal=2), decks=(first, stacked()))
    three, _ = new_match(ruleset("scopa", kings_redeal=3), decks=(first, stacked()))
    assert two.hands[0] == stacked()[0:6:2]
    assert three.hands[0] == cards("1C 3C 5C")


def test_an_ace_on_the_starting_table_goes_under_the_stock() -> None:
    """docs/rules.md Scopa options (the Scopa page): a single ace turned up returns to the deck."""
    deck = stacked("2C 3C 4C 5C 6C 7C 1S 8D 9D 10D 2S")
    state, events = new_match(ruleset("scopa", aces_on_table="return"), decks=(deck,))
    assert of_type(events, AceReturned) == [AceReturned(parse_card("1S"))]
    assert state.table == tuple(sorted(cards("8D 9D 10D 2S"), key=table_key))
    assert state.stock[-1] == parse_card("1S")
    assert state.stock[0] == deck[11]
    assert len(state.stock) == 30


def test_two_aces_on_the_starting_table_force_a_redeal() -> None:
    """docs/rules.md Scopa options (the Scopa page): two aces on the starting table: redeal."""
    first = stacked("2C 3C 4C 5C 6C 7C 1S 1D 9D 10D")
    state, events = new_match(ruleset("scopa", aces_on_table="return"), decks=(first, stacked()))
    voided = tuple(sorted(cards("1S 1D 9D 10D"), key=table_key))
    assert of_type(events, Redealt) == [Redealt(1, "aces", voided)]
    assert state.hands[0] == stacked()[0:6:2]


def test_an_ace_with_no_stock_to_replace_it_voids_the_deal() -> None:
    """A ruleset without a stock (built around make_ruleset's check) redeals, never crashes."""
    options = Options(players=4, hand_size=9, aces_on_table=AcesOnTable.RETURN)
    aces = cards("1C 1D 1S 1B")
    others = tuple(c for c in stacked() if c not in aces)
    one_ace_on_table = aces[:3] + others[:33] + aces[3:] + others[33:]
    no_ace_on_table = aces + others
    state, events = new_match(
        Ruleset("scopone", options), decks=(one_ace_on_table, no_ace_on_table)
    )
    voided = tuple(sorted(aces[3:] + others[33:], key=table_key))
    assert of_type(events, Redealt) == [Redealt(1, "aces", voided)]
    assert not of_type(events, AceReturned)
    assert state.stock == ()
    assert state.table == tuple(sorted(others[32:], key=table_key))


class KingsOnTable(random.Random):
    """An RNG whose every shuffle turns the four kings onto a 2-player starting table."""

    def shuffle(self, x: MutableSequence[Any]) -> None:
        """Deal six non-kings, then the four kings to the table, then the rest."""
        kings = [c for c in x if rank_of(c) == 10]
        others = [c for c in x if rank_of(c) != 10]
        x[:] = others[:6] + kings + others[6:]


def test_endless_void_deals_from_the_rng_are_no_stacked_deck_error() -> None:
    """100 void deals shuffled by the RNG raise a plain RulesError without a stacked_decks field."""
    with pytest.raises(RulesError) as err:
        new_match(ruleset("scopa", kings_redeal=2), rng=KingsOnTable(0))
    assert type(err.value) is RulesError and err.value.field is None


def test_endless_void_deals_after_stacked_decks_blame_the_decks() -> None:
    """Void deals that start from stacked decks raise INVALID_DECK on stacked_decks."""
    void = KingsOnTable(0)
    deck = list(stacked())
    void.shuffle(deck)
    with pytest.raises(InvalidDeck) as err:
        new_match(ruleset("scopa", kings_redeal=2), rng=KingsOnTable(0), decks=(tuple(deck),))
    assert err.value.field == "stacked_decks"


def test_endless_void_deals_at_the_next_hand_of_a_play_are_no_stacked_deck_error() -> None:
    """A play that ends a hand and cannot deal the next from the RNG is not a stacked-deck error."""
    rng = KingsOnTable(0)
    rules = ruleset("scopa", kings_redeal=2, target_score=100)
    state, _ = new_match(rules, rng=rng, decks=(stacked(),))
    with pytest.raises(RulesError) as err:
        play_out(state, rng)
    assert type(err.value) is RulesError and err.value.field is None


def test_aces_stay_on_the_table_by_default() -> None:
    """docs/rules.md: keeping aces on the starting table is the default."""
    deck = stacked("2C 3C 4C 5C 6C 7C 1S 1D 9D 10D")
    state, events = new_match(make_ruleset("scopa"), decks=(deck,))
    assert not of_type(events, AceReturned) and not of_type(events, Redealt)
    assert parse_card("1S") in state.table and parse_card("1D") in state.table


# --- plays ---------------------------------------------------------------------------------


def test_a_capture_moves_cards_to_the_side_pile_and_passes_the_turn() -> None:
    """docs/rules.md capturing 1: the card and its capture go to the capturer's pile."""
    state = situation(make_ruleset("scopa"), hands=["7D 9B", "1S 8S"], table="3C 4B 2S", stock="")
    after, events = play(state, 0, "7D", "3C 4B")
    assert only_played(events) == CardPlayed(0, 16, cards("3C 4B"), True, False, ())
    assert set(after.piles[0]) == set(cards("7D 3C 4B"))
    assert after.table == cards("2S")
    assert (after.turn, after.last_capturer) == (1, 0)


def test_a_laid_card_joins_the_table_sorted() -> None:
    """docs/rules.md capturing 2: a card that can take nothing is laid on the table."""
    state = situation(make_ruleset("scopa"), hands=["9B 1C", "1S 8S"], table="3C 4B", stock="")
    after, events = play(state, 0, "9B", "")
    assert not only_played(events).taken
    assert after.table == cards("3C 4B 9B")
    assert after.last_laid == parse_card("9B")


def test_capture_none_takes_the_only_choice_and_any_order_is_accepted() -> None:
    """docs/rules.md capturing 4: the client names the set in any order, or omits a unique one."""
    state = situation(make_ruleset("scopa"), hands=["7D 9B", "1S 8S"], table="3C 4B 9S", stock="")
    auto, _ = play(state, 0, "7D")
    named, _ = play(state, 0, "7D", "4B 3C")
    assert auto == named


def test_a_listed_capture_is_accepted_in_any_spelling_and_a_same_size_stranger_is_not() -> None:
    """The legal_moves tuple and the reversed tuple give one state; 3C 9S is refused."""
    state = situation(make_ruleset("scopa"), hands=["7D 9B", "1S 8S"], table="3C 4B 9S", stock="")
    listed = next(m.capture for m in legal_moves(state) if m.card == parse_card("7D"))
    assert listed is not None
    after, _ = apply_move(state, 0, Move(parse_card("7D"), listed))
    backwards, _ = apply_move(state, 0, Move(parse_card("7D"), listed[::-1]))
    assert after == backwards
    assert after.piles[0] == (*cards("3C 4B"), parse_card("7D"))
    with pytest.raises(CaptureNotLegal):
        apply_move(state, 0, Move(parse_card("7D"), cards("3C 9S")))


def test_partners_share_a_pile() -> None:
    """docs/rules.md's conventions: with 4 players seat 2 captures for team 0+2."""
    state = situation(
        make_ruleset("scopa4"), hands=["9C", "9D", "5B 8C", "9S"], table="5S 1C", turn=2
    )
    after, _ = play(state, 2, "5B", "5S")
    assert set(after.piles[0]) == set(cards("5B 5S")) and after.piles[1] == ()


def test_apply_move_does_not_change_its_input() -> None:
    """apply_move is pure: the state passed in is left exactly as it was."""
    state = situation(make_ruleset("scopa"), hands=["7D 9B", "1S 8S"], table="3C 4B", stock="")
    before = dump_state(state)
    play(state, 0, "7D", "3C 4B")
    assert dump_state(state) == before


# --- illegal moves -------------------------------------------------------------------------

ILLEGAL = [
    (1, "1S", "", NotYourTurn, "NOT_YOUR_TURN"),
    (0, "1S", "", CardNotInHand, "CARD_NOT_IN_HAND"),
    (0, "7D", "3C", CaptureNotLegal, "CAPTURE_NOT_LEGAL"),
    (0, "7D", "", CaptureNotLegal, "CAPTURE_NOT_LEGAL"),
    (0, "9B", "3C", CaptureNotLegal, "CAPTURE_NOT_LEGAL"),
    (0, "7D", None, CaptureChoiceRequired, "CAPTURE_CHOICE_REQUIRED"),
    (5, "7D", None, InvalidSeat, "INVALID_SEAT"),
]


@pytest.mark.parametrize(("seat", "card", "capture", "error", "reason"), ILLEGAL)
def test_illegal_moves_raise_typed_errors_and_leave_the_state(
    seat: int, card: str, capture: str | None, error: type[RulesError], reason: str
) -> None:
    """docs/rules.md capturing 2 and 4: illegal plays raise the error with its reason, state
    intact."""
    state = situation(
        make_ruleset("scopa"), hands=["7D 9B", "1S 8S"], table="3C 4B 2S 5C", stock=""
    )
    before = dump_state(state)
    with pytest.raises(error) as err:
        play(state, seat, card, capture)
    assert err.value.reason == reason
    assert dump_state(state) == before


def test_moves_after_the_game_is_over_raise_game_over() -> None:
    """A finished game refuses every move and resignation with GAME_OVER."""
    state, _ = new_match(make_ruleset("scopa"), rng=random.Random(1))
    over, _ = resign(state, 0)
    with pytest.raises(GameOver) as err:
        apply_move(over, 1, Move(over.hands[1][0], None))
    assert err.value.reason == "GAME_OVER"
    with pytest.raises(GameOver):
        resign(over, 1)


# --- sweeps, leftovers ---------------------------------------------------------------------


def test_clearing_the_table_is_a_sweep() -> None:
    """docs/rules.md capturing 6: a capture that clears the table scores a sweep."""
    state = situation(make_ruleset("scopa"), hands=["7D 9B", "1S 8S"], table="3C 4B", stock="")
    after, events = play(state, 0, "7D", "3C 4B")
    assert only_played(events).sweep
    assert after.sweeps == (1, 0)


def test_sweep_points_are_given_once_per_sweep() -> None:
    """Option sweep_points: one sweep scores sweep_points (it was counted twice: 2 gave 4)."""
    state = situation(ruleset("scopa", sweep_points=2), hands=["7D", "9B"], table="3C 4B")
    after, _ = play(state, 0, "7D", "3C 4B")
    assert after.sweeps == (1, 0)
    _, events = play(after, 1, "9B", "")
    assert points(events, "sweeps") == (2, 0)


@pytest.mark.parametrize(
    ("table", "card", "special"),
    [
        ("1C 3B", "4D", ("traditional_sweep", -1)),  # it.wikipedia: an ace and a 3 taken by a 4
        ("6C 4B", "10D", ("traditional_sweep", -1)),  # a 6 and a 4 taken by a re
        ("6C 10B", "2D", ("modular_sweep", 1)),  # a 2 taking a 6 and a re
        ("7C 9B", "2D", ("modular_sweep", 1)),  # a 2 sweeping a 7 and a cavallo
    ],
)
def test_modulo_sette_sweeps_score_by_their_kind(
    table: str, card: str, special: tuple[str, int]
) -> None:
    """it.wikipedia Modulo sette: a traditional sweep is worth -1, a modular one +1."""
    state = situation(make_ruleset("modulo_sette"), hands=[f"{card} 5S", "8S"], table=table)
    after, events = play(state, 0, card, table)
    played = only_played(events)
    assert played.sweep and played.specials == (special,)
    assert after.specials == ((special,), ())


def test_modulo_sette_seven_sweeping_a_seven_scores_nothing() -> None:
    """it.wikipedia Modulo sette: a sweep taking a 7 with another 7 is the one exception: 0
    points."""
    state = situation(make_ruleset("modulo_sette"), hands=["7D 5S", "5B"], table="7C")
    after, events = play(state, 0, "7D", "7C")
    assert only_played(events).sweep and only_played(events).specials == ()
    state, _ = play(after, 1, "5B", "")
    _, events = play(state, 0, "5S", "5B")  # the last card: an ordinary capture
    assert points(events, "modular_sweeps") == (0, 0)
    assert points(events, "traditional_sweeps") == (0, 0)


def test_no_sweep_on_the_last_card_of_the_hand() -> None:
    """docs/rules.md capturing 6: clearing the table with the hand's final play is no sweep."""
    state = situation(make_ruleset("scopa"), hands=["7D", ""], table="3C 4B", stock="")
    _, events = play(state, 0, "7D", "3C 4B")
    assert not of_type(events, CardPlayed)[0].sweep
    assert points(events, "sweeps") == (0, 0)


def test_sweep_on_last_card_option() -> None:
    """docs/rules.md capturing 6, option sweep_on_last_card: the final clearing play scores."""
    rules = ruleset("scopa", sweep_on_last_card=True)
    state = situation(rules, hands=["7D", ""], table="3C 4B", stock="")
    _, events = play(state, 0, "7D", "3C 4B")
    assert of_type(events, CardPlayed)[0].sweep
    assert points(events, "sweeps") == (1, 0)


def test_leftovers_go_to_the_last_capturer_and_are_no_sweep() -> None:
    """docs/rules.md capturing 7: table cards left at hand end go to the last capturer, no sweep."""
    state = situation(make_ruleset("scopa"), hands=["5C", "9S"], table="3C 2B 8D", stock="")
    state, _ = play(state, 0, "5C", "3C 2B")
    _, events = play(state, 1, "9S", "")
    assert of_type(events, LeftoverTaken) == [LeftoverTaken(0, cards("8D 9S"))]
    assert points(events, "sweeps") == (0, 0)
    cards_line = next(
        c for c in of_type(events, HandScored)[0].result.score.components if c.name == "cards"
    )
    assert cards_line.values == (5.0, 0.0)


def test_leftovers_go_to_the_dealer_when_nobody_captured() -> None:
    """Engine decision (texts silent): with no capture in the hand the dealer takes the table."""
    state = situation(make_ruleset("scopa"), hands=["9S", "8C"], table="1C", stock="")
    assert state.dealer == 1
    state, _ = play(state, 0, "9S", "")
    _, events = play(state, 1, "8C", "")
    assert of_type(events, LeftoverTaken) == [LeftoverTaken(1, cards("1C 8C 9S"))]


def test_partner_leftovers_go_to_the_team_pile() -> None:
    """docs/rules.md capturing 7 with teams: seat 2's leftovers count for team 0+2."""
    state = situation(
        make_ruleset("scopa4"), hands=["", "", "", "9S"], table="8D", stock="", turn=3
    )
    state = replace(state, last_capturer=2)
    _, events = play(state, 3, "9S", "")
    assert of_type(events, LeftoverTaken) == [LeftoverTaken(2, cards("8D 9S"))]
    cards_line = next(
        c for c in of_type(events, HandScored)[0].result.score.components if c.name == "cards"
    )
    assert cards_line.values == (2.0, 0.0)


# --- Spazzino specials ---------------------------------------------------------------------


def test_picula_takes_the_card_the_previous_player_just_laid() -> None:
    """docs/rules.md Spazzino (Lo Spazzino): taking, with an equal card, the card just laid:
    picula."""
    state = situation(make_ruleset("spazzino"), hands=["5C 9B", "5D 8S"], table="2B", stock="")
    state, _ = play(state, 0, "5C", "")
    after, events = play(state, 1, "5D", "5C")
    assert only_played(events).specials == (("picula", 1),)
    assert after.specials == ((), (("picula", 1),))


def test_no_picula_for_a_card_that_was_not_just_laid() -> None:
    """docs/rules.md Spazzino: the picula needs the previous player's uncaptured card."""
    state = situation(make_ruleset("spazzino"), hands=["5C 9B", "2D 8S"], table="2B", stock="")
    state, _ = play(state, 0, "5C", "")
    _, events = play(state, 1, "2D", "2B")
    assert only_played(events).specials == ()


def test_no_picula_in_scopa() -> None:
    """docs/rules.md: the picula is a Spazzino/Spatola special, off in Scopa."""
    state = situation(make_ruleset("scopa"), hands=["5C 9B", "5D 8S"], table="2B", stock="")
    state, _ = play(state, 0, "5C", "")
    _, events = play(state, 1, "5D", "5C")
    assert only_played(events).specials == ()


def test_bagher_scores_every_card_three_points() -> None:
    """docs/rules.md Spazzino (Lo Spazzino): 7 of cups taking 5 and 2 of cups is a bagher of 3."""
    state = situation(make_ruleset("spazzino"), hands=["7C 9B", "8S 9S"], table="5C 2C 10D")
    after, events = play(state, 0, "7C", "5C 2C")
    assert only_played(events).specials == (("bagher", 3),)
    assert after.specials == ((("bagher", 3),), ())


def test_bagher_of_four_points() -> None:
    """docs/rules.md Spazzino: 7 of cups taking 1, 2 and 4 of cups is a bagher of 4."""
    state = situation(make_ruleset("spazzino"), hands=["7C 9B", "8S 9S"], table="1C 2C 4C 10D")
    _, events = play(state, 0, "7C", "1C 2C 4C")
    assert only_played(events).specials == (("bagher", 4),)


def test_no_bagher_unless_all_cards_are_of_the_played_suit() -> None:
    """docs/rules.md Spazzino: a capture with another suit, or of one card, is no bagher."""
    rules = make_ruleset("spazzino")
    mixed = situation(rules, hands=["7C 9B", "8S 9S"], table="5C 2B 10D")
    other = situation(rules, hands=["7B 9B", "8S 9S"], table="5C 2C 10D")
    single = situation(rules, hands=["7C 9B", "8S 9S"], table="7S 10D")
    assert only_played(play(mixed, 0, "7C", "5C 2B")[1]).specials == ()
    assert only_played(play(other, 0, "7B", "5C 2C")[1]).specials == ()
    assert only_played(play(single, 0, "7C", "7S")[1]).specials == ()


def test_no_specials_on_the_last_card_by_default() -> None:
    """docs/rules.md Spazzino: no picula, bagher or spazzino on the hand's last card."""
    rules = make_ruleset("spazzino")
    state = situation(rules, hands=["5C", "5D"], table="2B", stock="")
    state, _ = play(state, 0, "5C", "")
    _, events = play(state, 1, "5D", "5C")
    assert of_type(events, CardPlayed)[0].specials == ()
    bag = situation(rules, hands=["", "7C"], table="5C 2C", stock="", turn=1)
    _, events = play(bag, 1, "7C", "5C 2C")
    played = of_type(events, CardPlayed)[0]
    assert (played.specials, played.sweep) == ((), False)
    assert points(events, "bagher") == (0, 0)


def test_specials_on_last_card_option() -> None:
    """docs/rules.md Spazzino, option specials_on_last_card: picula and bagher score at the end."""
    rules = ruleset("spazzino", specials_on_last_card=True)
    state = situation(rules, hands=["5C", "5D"], table="2B", stock="")
    state, _ = play(state, 0, "5C", "")
    _, events = play(state, 1, "5D", "5C")
    assert of_type(events, CardPlayed)[0].specials == (("picula", 1),)
    assert points(events, "picule") == (0, 1)
    bag = situation(rules, hands=["", "7C"], table="5C 2C", stock="", turn=1)
    _, events = play(bag, 1, "7C", "5C 2C")
    assert points(events, "bagher") == (0, 3)


# --- asso piglia tutto ---------------------------------------------------------------------


def test_asso_piglia_tutto_is_not_a_scopa_by_default() -> None:
    """docs/rules.md asso piglia tutto (the Scopa page): by default the ace's sweep does not
    count."""
    state = situation(make_ruleset("asso_piglia_tutto"), hands=["1D 9B", "8S"], table="2C 5B")
    after, events = play(state, 0, "1D", "2C 5B")
    assert only_played(events).taken and not only_played(events).sweep
    assert after.table == () and after.sweeps == (0, 0)


def test_asso_piglia_tutto_counts_as_scopa_with_the_option() -> None:
    """docs/rules.md asso piglia tutto, option ace_sweep_counts (scopa d'assi): it is a scopa."""
    state = situation(make_ruleset("scopa_d_assi"), hands=["1D 9B", "8S"], table="2C 5B")
    after, events = play(state, 0, "1D", "2C 5B")
    assert only_played(events).sweep and after.sweeps == (1, 0)


def test_sbarazzino_ace_capture_is_not_a_scopa_and_the_game_is_to_41() -> None:
    """it.wikipedia Sbarazzino: the ace takes the whole table, "this taking does not count as a
    scopa"; the aim is 41 points."""
    rules = make_ruleset("sbarazzino")
    state = situation(rules, hands=["1D 9B", "8S"], table="2C 5B 7S")
    after, events = play(state, 0, "1D", "2C 5B 7S")
    assert only_played(events).taken and not only_played(events).sweep
    assert after.table == () and after.sweeps == (0, 0)
    assert rules.options.target_score == 41


def test_ace_taking_the_lone_table_ace_is_an_ordinary_sweep() -> None:
    """docs/rules.md asso piglia tutto: an ace taking the only (ace) card clears the table: a
    scopa."""
    state = situation(make_ruleset("asso_piglia_tutto"), hands=["1D 9B", "8S"], table="1C")
    _, events = play(state, 0, "1D", "1C")
    assert only_played(events).sweep


def test_ace_on_an_empty_table_is_laid_by_default() -> None:
    """docs/rules.md asso piglia tutto: on an empty table the ace is laid (default)."""
    state = situation(make_ruleset("asso_piglia_tutto"), hands=["1D 9B", "8S"], table="")
    after, events = play(state, 0, "1D", "")
    assert not only_played(events).taken and after.table == cards("1D")


def test_ace_on_an_empty_table_sweeps_with_the_option() -> None:
    """Option ace_on_empty_table_sweeps: the ace on an empty table takes itself and sweeps."""
    rules = ruleset("asso_piglia_tutto", ace_on_empty_table_sweeps=True)
    state = situation(rules, hands=["1D 9B", "8S"], table="")
    after, events = play(state, 0, "1D", "")
    assert only_played(events).sweep and after.table == () and after.piles[0] == cards("1D")


# --- match flow ----------------------------------------------------------------------------


def _end_of_hand(
    preset: str, scores: tuple[int, int], side0: str, last_capturer: int
) -> tuple[MatchState, list[Event]]:
    """Seat 1 plays the hand's last card; side 0 holds ``side0``, side 1 everything else."""
    rules = make_ruleset(preset)
    mine = cards(side0)
    theirs = tuple(c for c in range(40) if c not in mine and c != parse_card("10S"))
    state = situation(rules, hands=["", "10S"], table="", stock="", turn=1)
    state = replace(state, scores=scores, piles=(mine, theirs), last_capturer=last_capturer)
    return play(state, 1, "10S", "")


SIDE0_THREE_POINTS = "1D 2D 3D 4D 5D 6D 7D 8D 9D 10D 7C 7B 7S"  # denari, settebello, primiera


def test_reaching_the_target_wins() -> None:
    """docs/rules.md Scopa: the game to 11 ends when a side reaches it at the end of a hand."""
    state, events = _end_of_hand("scopa", (9, 0), SIDE0_THREE_POINTS, 1)
    assert of_type(events, GameFinished) == [GameFinished((0,), FinishReason.TARGET, (12, 1))]
    assert state.finished and state.turn == -1 and state.winners == (0,)


def test_a_tie_at_the_top_plays_on() -> None:
    """docs/rules.md Spazzino/Scopa: if the top scores tie past the target, another hand is
    played."""
    state, events = _end_of_hand("scopa", (8, 10), SIDE0_THREE_POINTS, 1)
    assert state.scores == (11, 11)
    assert not of_type(events, GameFinished) and not state.finished
    assert state.hand_number == 2 and of_type(events, HandStarted)


def test_the_highest_of_several_past_the_target_wins() -> None:
    """docs/rules.md Spazzino/Scopa: if several reach the target the highest wins."""
    _, events = _end_of_hand("scopa", (9, 10), SIDE0_THREE_POINTS, 1)
    assert of_type(events, GameFinished)[0].winners == (0,)
    assert of_type(events, GameFinished)[0].scores == (12, 11)


def test_napoleone_wins_at_once() -> None:
    """docs/rules.md Scopa options (the Scopa page): all ten denari win the game at once."""
    _, events = _end_of_hand("scopa_napola", (0, 0), "1D 2D 3D 4D 5D 6D 7D 8D 9D 10D", 1)
    assert of_type(events, GameFinished)[0].reason is FinishReason.NAPOLEONE
    assert of_type(events, GameFinished)[0].winners == (0,)


def test_napoleone_without_the_option_is_only_points() -> None:
    """Without napoleone_wins, ten denari are just points (scopa preset: game goes on)."""
    _, events = _end_of_hand("scopa", (0, 0), "1D 2D 3D 4D 5D 6D 7D 8D 9D 10D", 1)
    assert not of_type(events, GameFinished)


def test_resign_ends_the_game_for_the_other_side() -> None:
    """A resigning seat's side loses; with teams the other team wins."""
    state, _ = new_match(make_ruleset("scopa4"), rng=random.Random(4))
    over, events = resign(state, 1)
    assert events == [SeatResigned(1), GameFinished((0,), FinishReason.RESIGNED, (0, 0))]
    assert over.finished and over.winners == (0,)
    with pytest.raises(InvalidSeat):
        resign(state, 4)


def test_resign_with_three_players_leaves_two_winners() -> None:
    """Every side other than the resigning seat's wins."""
    state, _ = new_match(make_ruleset("scopa3"), rng=random.Random(4))
    over, _ = resign(state, 2)
    assert over.winners == (0, 1)


def test_an_ordinary_play_keeps_every_unchanged_field_in_its_place() -> None:
    """A play built positionally (_after_card) carries each field the play leaves alone."""
    start, _ = new_match(make_ruleset("scopa"), rng=random.Random(3))
    shown = Declared(seat=1, name="accusa", cards=(1, 2, 3), points=3)
    state = replace(
        start,
        hand_number=7,
        dealer=0,
        declared=(1,),
        declarations=(shown,),
        scores=(5, 6),
        results=(HandResult(6, HandScore((), (5, 6), (False, False)), (5, 6)),),
        winners=(8,),
        decks=(tuple(range(40)),),
        out=(9,),
        returned=(10,),
    )
    seat = state.turn
    move = legal_moves(state)[0]
    new, _ = apply_move(state, seat, move)
    changed = {"turn", "hands", "table", "piles", "sweeps", "specials", "last_capturer"}
    changed |= {"last_laid", "history"}
    kept = [f.name for f in fields(MatchState) if f.name not in changed]
    assert {name: getattr(new, name) for name in kept} == {
        name: getattr(state, name) for name in kept
    }
    assert new.turn == 1 - seat
    assert len(new.hands[seat]) == len(state.hands[seat]) - 1
    assert [played.card for played in new.history] == [move.card]


# --- games played to lose (it.wikipedia) -------------------------------------------------------


@pytest.mark.parametrize(("players", "hand", "table"), [(4, 10, 0), (6, 6, 4)])
def test_a_non_prendere_deals_every_card_to_players_alone(
    players: int, hand: int, table: int
) -> None:
    """it.wikipedia A non prendere: four or six, each for himself, all the cards dealt at once."""
    rules = make_ruleset("a_non_prendere", {"players": players})
    state, _ = new_match(rules, rng=random.Random(5))
    assert rules.options.sides == players
    assert [len(h) for h in state.hands] == [hand] * players
    assert len(state.table) == table and state.stock == ()


def test_a_non_prendere_first_to_11_loses_and_the_lowest_wins() -> None:
    """it.wikipedia: the match ends when a player reaches 11; the lowest score wins."""
    rules = make_ruleset("a_non_prendere")
    state = situation(rules, hands=["7D", "", "", ""], table="3C 4B", scores=(10, 4, 2, 6), turn=0)
    after, events = play(state, 0, "7D", "3C 4B")
    (finished,) = of_type(events, GameFinished)
    assert after.scores[0] >= 11
    assert finished.winners == (2,) and finished.reason is FinishReason.LOWEST


def test_scopone_al_contrario_skips_and_deals_nothing_to_a_seat_out() -> None:
    """it.wikipedia al contrario: a seat at 21 leaves; the three left get 6 cards, 4 on the
    table."""
    rules = make_ruleset("scopone_al_contrario")
    state = situation(rules, hands=["7D", "", "", ""], table="3C 4B", scores=(0, 30, 0, 0))
    state = replace(state, dealer=3)
    after, _ = play(state, 0, "7D", "3C 4B")
    assert after.out == (1,) and not after.finished
    assert [len(h) for h in after.hands] == [6, 0, 6, 6]
    assert len(after.table) == 4 and len(after.stock) == 40 - 4 - 18
    assert after.dealer == 0 and after.turn == 2  # the dealer moves on past the seat out
    seen = set()
    rng = random.Random(4)
    while after.out == (1,) and after.hand_number == state.hand_number + 1:
        seen.add(after.turn)
        after, _ = apply_move(after, after.turn, random_move(after, rng), rng)
    assert seen == {0, 2, 3}


# --- Spazzino local choices (issue 13, from games against Cuperativa) ---------------------


def test_picula_and_bagher_each_have_their_own_last_card_option() -> None:
    """picula_on_last_card scores the final play's picula only; bagher_on_last_card the bagher."""
    for option, scored in (("picula_on_last_card", "picule"), ("bagher_on_last_card", "bagher")):
        rules = ruleset("spazzino", **{option: True})
        state = situation(rules, hands=["5C", "5D"], table="2B", stock="")
        state, _ = play(state, 0, "5C", "")
        _, events = play(state, 1, "5D", "5C")
        assert points(events, "picule") == ((0, 1) if scored == "picule" else (0, 0))
        bag = situation(rules, hands=["", "7C"], table="5C 2C", stock="", turn=1)
        _, events = play(bag, 1, "7C", "5C 2C")
        assert points(events, "bagher") == ((0, 3) if scored == "bagher" else (0, 0))


@pytest.mark.parametrize(("after_redeal", "specials"), [(True, (("picula", 1),)), (False, ())])
def test_a_picula_across_a_mid_hand_re_deal_follows_its_option(
    after_redeal: bool, specials: tuple[tuple[str, int], ...]
) -> None:
    """Lo Spazzino keeps the card laid before a re-deal takeable as a picula; Cuperativa forgets
    it."""
    rules = ruleset("spazzino", picula_after_redeal=after_redeal)
    state = situation(rules, hands=["2B", "5D"], table="10C", stock="5C 1S 2S 3C 4S 6S")
    state, _ = play(state, 0, "2B", "")
    state, events = play(state, 1, "5D", "")  # the deal's last card; the stock is dealt again
    assert of_type(events, CardsDealt) and state.turn == 0
    _, events = play(state, 0, "5C", "5D")
    assert only_played(events).specials == specials


def test_marescialla_sweeping_with_the_maresciallo_costs_four() -> None:
    """it.wikipedia Marescialla: the re of spade used to make a sweep costs 4 points, not 1."""
    state = situation(make_ruleset("marescialla"), hands=["10S", "9B"], table="4C 6B")
    after, events = play(state, 0, "10S", "4C 6B")
    assert only_played(events).sweep
    assert only_played(events).specials == (("maresciallo_sweep", -3),)
    _, events = play(after, 1, "9B", "")
    assert points(events, "maresciallo") == (-1, 0)
    assert points(events, "maresciallo_sweeps") == (-3, 0)
    assert points(events, "sweeps") == (1, 0)


# --- Cirulla's starting table: the dealer's bonus and the aces' redeal --------------------


def test_a_starting_table_of_15_goes_to_the_dealer_for_a_point() -> None:
    """Cirulla (regoledelgioco): 5C 2D 3S 5B on the table add up to 15: the dealer (seat 1)
    takes them for a scopa, 1 point on the dealer_bonus line, and seat 0 leads on an empty
    table."""
    deck = stacked("2C 3C 4C 6C 8C 9C 5C 2D 3S 5B")
    state, events = new_match(ruleset("cirulla"), decks=(deck,))
    table = tuple(sorted(cards("5C 2D 3S 5B"), key=table_key))
    assert of_type(events, HandStarted)[0].table == table
    assert of_type(events, BonusScored) == [BonusScored(1, 1, "dealer_bonus", 1, table)]
    assert type(events[-1]) is BonusScored
    assert state.table == () and state.turn == 0
    assert state.piles == ((), table)
    assert state.specials == ((), (("dealer_bonus", 1),))
    assert state.bonuses == tuple(of_type(events, BonusScored))
    state, events = play_out(state, random.Random(3), stop_after_hand=True)
    assert points(events, "dealer_bonus") == (0, 1)


def test_a_starting_table_of_30_scores_two_and_the_matta_is_wild() -> None:
    """Cirulla (Parlett): 30 scores 2 scope; the 7 of coppe counts as any value, so 7C 10D 9S 4B
    (7 + 23) makes 30 with the matta as a 7 and 7C 2D 3S 4B (7 + 9) makes 15 with it as a 6."""
    thirty = stacked("2C 3C 4C 6C 8C 9C 7C 10D 9S 4B")
    fifteen = stacked("1C 3C 4C 6C 8C 9C 7C 2D 3S 4B")
    _, events = new_match(ruleset("cirulla"), decks=(thirty,))
    assert [b.points for b in of_type(events, BonusScored)] == [2]
    _, events = new_match(ruleset("cirulla"), decks=(fifteen,))
    assert [b.points for b in of_type(events, BonusScored)] == [1]
    plain = stacked("2C 3C 4C 6C 8C 9C 7D 2D 3S 4B")  # the 7 of denari is not wild: 16
    state, events = new_match(ruleset("cirulla"), decks=(plain,))
    assert of_type(events, BonusScored) == [] and len(state.table) == 4


def test_the_low_table_bonus_is_an_option() -> None:
    """it.wikipedia ("in alcuni casi"): with dealer_bonus_low a table of 9 or less scores 3."""
    deck = stacked("5C 3C 4C 6C 8C 9C 1C 2D 3S 2B")
    _, events = new_match(ruleset("cirulla"), decks=(deck,))
    assert of_type(events, BonusScored) == []
    _, events = new_match(ruleset("cirulla", dealer_bonus_low=True), decks=(deck,))
    assert [b.points for b in of_type(events, BonusScored)] == [3]


def test_without_the_option_a_table_of_15_stays() -> None:
    """Scopa has no dealer's bonus: the same 15 table is played."""
    deck = stacked("2C 3C 4C 6C 8C 9C 5C 2D 3S 5B")
    state, events = new_match(ruleset("scopa"), decks=(deck,))
    assert of_type(events, BonusScored) == [] and len(state.table) == 4


def test_two_aces_on_a_cirulla_table_redeal_and_one_stays() -> None:
    """Cirulla (regoledelgioco, Parlett): two or more aces on the starting table void the deal;
    a single ace stays on the table (aces_on_table=redeal)."""
    two = stacked("2C 3C 4C 6C 8C 9C 1S 1D 9D 10D")
    state, events = new_match(ruleset("cirulla"), decks=(two, stacked()))
    voided = tuple(sorted(cards("1S 1D 9D 10D"), key=table_key))
    assert of_type(events, Redealt) == [Redealt(1, "aces", voided)]
    assert state.hands[0] == stacked()[0:6:2]
    one = stacked("2C 3C 4C 6C 8C 9C 1S 2D 9D 10D")
    state, events = new_match(ruleset("cirulla"), decks=(one,))
    assert of_type(events, Redealt) == [] and of_type(events, AceReturned) == []
    assert parse_card("1S") in state.table


def test_two_aces_on_the_table_may_score_the_dealer_a_sweep() -> None:
    """aces_on_table=sweep (issue 27, some engines): the two aces' table goes to the dealer's
    side (seat 1) for a sweep, 1 point on the line aces_sweep, instead of a redeal."""
    two = stacked("2C 3C 4C 6C 8C 9C 1S 1D 9D 10D")
    state, events = new_match(ruleset("cirulla", aces_on_table="sweep"), decks=(two,))
    table = tuple(sorted(cards("1S 1D 9D 10D"), key=table_key))
    assert of_type(events, Redealt) == []
    assert of_type(events, BonusScored) == [BonusScored(1, 1, "aces_sweep", 1, table)]
    assert state.table == () and state.piles == ((), table) and state.turn == 0
    state, events = play_out(state, random.Random(3), stop_after_hand=True)
    assert points(events, "aces_sweep") == (0, 1)
    one = stacked("2C 3C 4C 6C 8C 9C 1S 2D 9D 10D")
    state, events = new_match(ruleset("cirulla", aces_on_table="sweep"), decks=(one,))
    assert of_type(events, BonusScored) == [] and parse_card("1S") in state.table


def test_the_bonus_of_the_next_hand_follows_the_last_play() -> None:
    """A hand's last play deals the next hand; its 15 table goes to the new dealer (seat 0)."""
    second = stacked("2C 3C 4C 6C 8C 9C 5C 2D 3S 5B")
    state, _ = new_match(ruleset("cirulla"), decks=(stacked(), second))
    state, events = play_out(state, random.Random(5), stop_after_hand=True)
    assert not state.finished, "the first hand ended the match: the bonus is never dealt"
    assert of_type(events, BonusScored) == [
        BonusScored(0, 0, "dealer_bonus", 1, tuple(sorted(cards("5C 2D 3S 5B"), key=table_key)))
    ]
    assert state.table == () and state.piles[0] == of_type(events, BonusScored)[0].cards
    assert state.specials[0] == (("dealer_bonus", 1),)


def test_a_team_dealer_s_bonus_scores_for_its_side() -> None:
    """Cirulla for four in pairs: the first dealer (seat 3, side 1) takes a 15 table; the cards
    go to side 1's pile, the point to side 1's dealer_bonus line, and seat 0 leads."""
    deck = stacked("1C 2C 3C 4C 6C 8C 9C 1D 3D 4D 6D 8D 5C 2D 3S 5B")
    state, events = new_match(ruleset("cirulla", players=4), decks=(deck,))
    table = tuple(sorted(cards("5C 2D 3S 5B"), key=table_key))
    assert of_type(events, BonusScored) == [BonusScored(3, 1, "dealer_bonus", 1, table)]
    assert state.piles == ((), table) and state.turn == 0 and state.table == ()
    state, events = play_out(state, random.Random(4), stop_after_hand=True)
    assert points(events, "dealer_bonus") == (0, 1)


def test_the_matta_makes_the_best_bonus_of_a_low_table() -> None:
    """With dealer_bonus_low, 7C 3D 3S 2B is 15 with the matta as a 7 and 9 with it as an ace:
    the dealer scores the better, 3; without the option, 1."""
    deck = stacked("1C 4C 5C 6C 8C 9C 7C 3D 3S 2B")
    _, events = new_match(ruleset("cirulla"), decks=(deck,))
    assert [b.points for b in of_type(events, BonusScored)] == [1]
    _, events = new_match(ruleset("cirulla", dealer_bonus_low=True), decks=(deck,))
    assert [b.points for b in of_type(events, BonusScored)] == [3]


def test_two_aces_void_a_table_of_15() -> None:
    """docs/rules.md (Cirulla): the void deal is judged before the bonus: 1C 1D 3S 10B adds up
    to 15 but is redealt, with no bonus."""
    deck = stacked("2C 3C 4C 6C 8C 9C 1C 1D 3S 10B")
    plain = stacked("2C 3C 4C 6C 8C 9C 1S 5D 9D 10D")  # 25: no bonus
    _, events = new_match(ruleset("cirulla"), decks=(deck, plain))
    assert [r.reason for r in of_type(events, Redealt)] == ["aces"]
    assert of_type(events, BonusScored) == []


@pytest.mark.parametrize(("players", "deals"), [(2, 2), (3, 4)])
def test_cicera_s_small_forms_deal_the_whole_deck(players: int, deals: int) -> None:
    """Cicera bigia for two (12 each, twice) and three (4 each, four times) with 4 on the table
    deal all 52 cards in one hand, each seat getting every deal."""
    state, first = new_match(ruleset("cicera_bigia", players=players), rng=random.Random(7))
    state, events = play_out(state, random.Random(7), stop_after_hand=True)
    dealt = of_type(first + events, CardsDealt)
    hand_one = dealt[: players * deals]
    assert sorted(d.seat for d in hand_one) == sorted(list(range(players)) * deals)
    table = of_type(first, HandStarted)[0].table
    seen = [c for d in hand_one for c in d.cards] + list(table)
    assert len(seen) == len(set(seen)) == 52


def test_an_optional_capture_may_be_declined_and_a_compulsory_one_may_not() -> None:
    """Cicera with optional_captures=figures: a fante laid beside a fante stays on the table;
    a 10 that can take 4C 6S may not be laid (CAPTURE_NOT_LEGAL)."""
    rules = ruleset("cicera_bigia", players=2, optional_captures="figures")
    state = situation(rules, hands=["11D 10D", "2S 3S"], table="11C 4C 6S", stock="")
    assert Move(parse_card("11D"), ()) in legal_moves(state)
    assert Move(parse_card("10D"), ()) not in legal_moves(state)
    laid, events = play(state, 0, "11D", "")
    assert only_played(events) == CardPlayed(0, parse_card("11D"), (), False, False, ())
    assert parse_card("11D") in laid.table and parse_card("11C") in laid.table
    with pytest.raises(CaptureNotLegal):
        play(state, 0, "10D", "")
    with pytest.raises(CaptureChoiceRequired):
        play(state, 0, "11D")


@pytest.mark.parametrize(
    ("preset", "overrides", "scores", "winners"),
    [
        ("fidasse", {}, (-3, 2), (1,)),  # the highest, below the target
        ("fidasse", {}, (4, 4), (0, 1)),  # a tie at the limit: both win
        ("a_non_prendere", {"hand_limit": 40}, (3, 5, 2, 9), (2,)),  # played to lose
    ],
)
def test_the_hand_limit_ends_the_match_with_the_best_score(
    preset: str, overrides: dict[str, Any], scores: tuple[int, ...], winners: tuple[int, ...]
) -> None:
    """The 40th hand ends the match (hand_limit) below the target, and the best score wins."""
    rules = make_ruleset(preset, overrides)
    assert rules.options.hand_limit == 40
    last = situation(rules, hands=["7D"] + [""] * (rules.options.players - 1), table="3C 4B")
    (scored,) = of_type(play(last, 0, "7D", "3C 4B")[1], HandScored)
    before = tuple([a - b for a, b in zip(scores, scored.result.score.totals, strict=True)])
    for earlier, finishes in ((38, False), (39, True)):
        state = replace(last, scores=before, results=(scored.result,) * earlier)
        after, events = play(state, 0, "7D", "3C 4B")
        assert after.scores == scores and after.finished is finishes
        if finishes:
            (finished,) = of_type(events, GameFinished)
            assert finished.reason is FinishReason.HAND_LIMIT
            assert finished.winners == after.winners == winners


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_is_stuck_is_a_game_in_play_without_legal_actions(preset: str) -> None:
    """is_stuck's shortcut (a card in hand always makes a move) answers as its definition on
    every state of random games, every move type's phase included; and a seat in play with an
    empty hand is stuck."""
    rng = random.Random(7)
    state, _ = new_match(make_ruleset(preset), rng=rng)
    for _ in range(300):
        actions = legal_actions(state)
        playing = state.finish_reason is FinishReason.NONE
        assert is_stuck(state) == (playing and not actions)
        if not actions:
            break
        state, _ = apply_action(state, state.turn, rng.choice(actions), rng)
    state, _ = new_match(make_ruleset(preset), rng=rng)
    hands = list(state.hands)
    hands[state.turn] = ()
    emptied = replace(state, hands=tuple(hands))
    assert is_stuck(emptied) == (state.phase == "play") == (not legal_actions(emptied))
