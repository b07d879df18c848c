"""Tests of the observer (scopa.rules._observer): no seat sees another's hand or the stock."""

from __future__ import annotations

import random

import pytest
from rules_helpers import cards, check_views, play, play_out, situation, stacked

from scopa.bots import random_move as engine_random_move
from scopa.rules import (
    PRESETS,
    CardPlayed,
    CardsDealt,
    Declare,
    HandStarted,
    MatchState,
    SeatView,
    Steal,
    apply_action,
    legal_actions,
    make_ruleset,
    new_match,
    observe,
    returned_aces,
    seen_cards,
    shown_cards,
    state_from_view,
    unseen_cards,
    visible_events,
)


def test_a_seat_sees_its_own_hand_and_counts_of_the_others() -> None:
    """common.md no hidden information: a view holds the own hand and only sizes of the rest."""
    state, _ = new_match(make_ruleset("scopa4"), rng=random.Random(8))
    view = observe(state, 2)
    assert view.hand == state.hands[2]
    assert view.hand_sizes == (3, 3, 3, 3)
    assert view.stock_size == len(state.stock) == 24
    assert view.table == state.table
    assert view.side_of_seat == (0, 1, 0, 1)


def test_legal_moves_are_shown_only_to_the_seat_to_play() -> None:
    """docs/rules.md capturing 4: every legal set is listed to the player whose turn it is, only."""
    state, _ = new_match(make_ruleset("scopa"), rng=random.Random(9))
    assert observe(state, 0).legal_moves
    assert {m.card for m in observe(state, 0).legal_moves} == set(state.hands[0])
    assert observe(state, 1).legal_moves == ()
    assert observe(state, None).legal_moves == ()


def test_a_spectator_sees_no_hand() -> None:
    """A spectator (seat None) sees no cards in hand at all."""
    state, _ = new_match(make_ruleset("scopone"), rng=random.Random(10))
    view = observe(state, None)
    assert isinstance(view, SeatView) and view.seat is None
    assert view.hand == () and view.hand_sizes == (9, 9, 9, 9)


def test_view_holds_no_hidden_card_anywhere() -> None:
    """No field of any seat's view names a card of another hand or of the stock."""
    state, _ = new_match(make_ruleset("scopa3"), rng=random.Random(6))
    check_views(state)


def test_dealt_cards_of_other_seats_become_counts() -> None:
    """CardsDealt shows its cards only to the seat dealt to; others see the count."""
    _, events = new_match(make_ruleset("scopa"), rng=random.Random(7))
    for seat in (0, 1, None):
        dealt = [e for e in visible_events(events, seat) if isinstance(e, CardsDealt)]
        assert sorted(e.seat for e in dealt) == [0, 1], f"seat {seat} sees {dealt}"
        for event in dealt:
            assert event.n_cards == 3
            assert (event.cards != ()) == (event.seat == seat)
    assert visible_events(events, 0)[0] == events[0]
    assert isinstance(events[0], HandStarted)


def test_finished_game_view_shows_results_and_winners() -> None:
    """After the game every view shows the same winners, scores and hand results."""
    state, _ = new_match(make_ruleset("scopa"), rng=random.Random(13))
    state, _ = play_out(state, random.Random(14))
    views = [observe(state, s) for s in (0, 1, None)]
    assert {v.winners for v in views} == {state.winners}
    assert all(v.turn == -1 and v.results == state.results for v in views)


# --- state_from_view ------------------------------------------------------------------------


def midgame(preset: str, seed: int, plays: int) -> MatchState:
    """A live match of ``preset`` after ``plays`` random plays (fewer if it ends first)."""
    rng = random.Random(seed)
    state, _ = new_match(make_ruleset(preset), rng=rng)
    for _ in range(plays):
        after, _ = apply_action(state, state.turn, engine_random_move(state, rng), rng)
        if after.finished:
            break
        state = after
    return state


CASES = [(preset, seed, plays) for preset in sorted(PRESETS) for seed in (1, 2) for plays in (0, 7)]


@pytest.mark.parametrize(("preset", "seed", "plays"), CASES)
def test_unseen_cards_are_exactly_the_hidden_cards(preset: str, seed: int, plays: int) -> None:
    """The unseen cards are the other hands plus the stock, and nothing the seat has seen."""
    state = midgame(preset, seed, plays)
    seat = state.turn
    view = observe(state, seat)
    hidden = {c for s, h in enumerate(state.hands) if s != seat for c in h} | set(state.stock)
    assert set(unseen_cards(view)) == hidden
    assert not hidden & seen_cards(view)


@pytest.mark.parametrize(("preset", "seed", "plays"), CASES)
def test_state_from_view_matches_every_public_part(preset: str, seed: int, plays: int) -> None:
    """A sampled state keeps the seat's hand and every public field, and is a playable state."""
    state = midgame(preset, seed, plays)
    seat = state.turn
    view = observe(state, seat)
    rng = random.Random(seed)
    det = state_from_view(view, rng)
    assert observe(det, seat) == view
    assert [sorted(p) for p in det.piles] == [sorted(p) for p in state.piles]
    assert (det.last_capturer, det.last_laid) == (state.last_capturer, state.last_laid)
    assert legal_actions(det) == list(view.legal_actions)
    while not det.finished:
        det, _ = apply_action(det, det.turn, engine_random_move(det, rng), rng)


@pytest.mark.parametrize("plays", [0, 5])
def test_the_dealers_table_bonus_is_public_and_rebuilt(plays: int) -> None:
    """Cirulla (seed 11 opens with a 15 table): every seat sees the bonus, and a determinised
    state puts its cards in the dealer's side's pile and its point in that side's specials."""
    state = midgame("cirulla", 11, plays)
    (bonus,) = state.bonuses
    for seat in (0, 1, None):
        assert observe(state, seat).bonuses == (bonus,)
    view = observe(state, state.turn)
    assert set(bonus.cards) <= seen_cards(view)
    det = state_from_view(view, random.Random(2))
    assert observe(det, state.turn) == view
    assert set(bonus.cards) <= set(det.piles[bonus.side])
    assert dict(det.specials[bonus.side])["dealer_bonus"] == bonus.points


def test_a_stolen_pile_leaves_its_side_in_a_determinised_state() -> None:
    """Rubamazzo: after a steal the rebuilt piles are the true ones (the victim's pile is
    empty, the thief's holds it under the stealing card), so the view is reproduced."""
    rng = random.Random(0)
    state, _ = new_match(make_ruleset("rubamazzo"), rng=rng)
    steals = 0
    while not state.finished:
        taken = [a for a in legal_actions(state) if isinstance(a, Steal)]
        action = taken[0] if taken else engine_random_move(state, rng)
        after, _ = apply_action(state, state.turn, action, rng)
        if taken and not after.finished and after.hand_number == state.hand_number:
            steals += 1
            view = observe(after, after.turn)
            det = state_from_view(view, random.Random(steals))
            assert det.piles == after.piles
            assert observe(det, after.turn) == view
        state = after
    assert steals > 0


def test_state_from_view_deals_different_hidden_cards() -> None:
    """Two RNG seeds give different hidden hands (the sample is random, not the truth)."""
    state = midgame("scopa", 3, 4)
    view = observe(state, state.turn)
    first = state_from_view(view, random.Random(1))
    second = state_from_view(view, random.Random(2))
    assert first.hands != second.hands


def test_a_spectator_view_is_not_determinised() -> None:
    """A spectator has no seat to determinise for: ValueError."""
    with pytest.raises(ValueError, match="only a seat"):
        state_from_view(observe(midgame("scopa", 1, 3), None), random.Random(0))


def declared_then_played(seed: int) -> tuple[MatchState, int]:
    """A bazzica match where one seat declared and the other is to play; (state, declarer)."""
    rng = random.Random(seed)
    state, _ = new_match(make_ruleset("bazzica"), rng=rng)
    while not state.finished:
        declaring = [a for a in legal_actions(state) if isinstance(a, Declare)]
        seat = state.turn
        action = declaring[0] if declaring else engine_random_move(state, rng)
        state, _ = apply_action(state, seat, action, rng)
        if declaring and state.turn == seat:  # declared: now play a card of the shown hand
            state, _ = apply_action(state, seat, engine_random_move(state, rng), rng)
            if state.turn != seat and state.declarations:
                return state, seat
    raise AssertionError("no declaration in this match")


@pytest.mark.parametrize("seed", range(6))
def test_cards_shown_in_a_declaration_stay_in_the_declarers_hand(seed: int) -> None:
    """Every sample gives the declarer the shown cards it has not played, and no one else."""
    state, declarer = declared_then_played(seed)
    viewer = state.turn
    view = observe(state, viewer)
    shown = shown_cards(view)[declarer]
    assert shown and set(shown) <= set(state.hands[declarer])  # the truth agrees
    assert not set(shown) & set(unseen_cards(view))
    for sample in range(30):
        det = state_from_view(view, random.Random(sample))
        assert set(shown) <= set(det.hands[declarer])
        assert observe(det, viewer) == view
        assert det.declared == state.declared
        assert det.specials == state.specials


def ace_returned_match(seed: int, players: int = 2) -> MatchState:
    """A scopa match (aces_on_table=return) whose first deal sent the 1S under the stock."""
    hands = [c for c in stacked() if c not in cards("1S 8D 9D 10D 2S") and c % 10][: 3 * players]
    top = (*hands, *cards("1S 8D 9D 10D 2S"))
    rest = [c for c in stacked() if c not in top]
    random.Random(seed).shuffle(rest)
    options = {"aces_on_table": "return", "players": players}
    state, _ = new_match(make_ruleset("scopa", options), decks=((*top, *rest),))
    assert state.stock[-1] == cards("1S")[0] and state.returned == cards("1S")
    return state


def test_a_returned_ace_stays_at_the_bottom_of_a_determinised_stock() -> None:
    """Every sample keeps the returned ace where every seat knows it is: under the stock."""
    state = ace_returned_match(1)
    rng = random.Random(7)
    while state.stock:
        view = observe(state, state.turn)
        assert returned_aces(view) == (cards("1S"), ())
        for _ in range(10):
            det = state_from_view(view, rng)
            assert det.stock[-1] == cards("1S")[0]
            assert observe(det, state.turn) == view
        state, _ = apply_action(state, state.turn, engine_random_move(state, rng), rng)


@pytest.mark.parametrize("seed", range(1, 6))
def test_a_dealt_returned_ace_is_in_the_hand_the_deal_gave_it(seed: int) -> None:
    """Once the last deal gives the returned ace out, samples put it in that seat's hand (with
    four seats the other two hands could hold it too, by the unseen cards alone)."""
    ace = cards("1S")[0]
    state = ace_returned_match(seed, players=4)
    rng = random.Random(seed)
    while state.stock:
        state, _ = apply_action(state, state.turn, engine_random_move(state, rng), rng)
    holder = next(s for s, hand in enumerate(state.hands) if ace in hand)
    viewer = (holder + 1) % 4
    view = observe(state, viewer)
    assert returned_aces(view) == ((), ((holder, ace),))
    for _ in range(10):
        det = state_from_view(view, rng)
        assert ace in det.hands[holder]
        assert observe(det, viewer) == view


@pytest.mark.parametrize(("preset", "swept"), [("scopa", True), ("rubamazzo", False)])
def test_a_clearing_shows_a_sweep_only_where_sweeps_score(preset: str, swept: bool) -> None:
    """Issue 27: Rubamazzo scores no sweep, so taking the last table card is no sweep in the
    state, the play, the seats' views and the events they are shown."""
    rules = make_ruleset(preset)
    state = situation(rules, hands=["5D 7C", "2S 3S"], table="5C", stock="4B 6B 4S 6S")
    state, events = play(state, 0, "5D", "5C")
    (played,) = [e for e in events if isinstance(e, CardPlayed)]
    assert played.taken and not state.table
    assert played.sweep is swept
    assert state.sweeps == ((1, 0) if swept else (0, 0))
    for seat in (0, 1, None):
        view = observe(state, seat)
        assert view.sweeps == state.sweeps
        assert [p.sweep for p in view.history] == [swept]
        shown = [e for e in visible_events(events, seat) if isinstance(e, CardPlayed)]
        assert [p.sweep for p in shown] == [swept]
