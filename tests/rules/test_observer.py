"""Tests of the observer (scopa.rules._observer): no seat sees another's hand or the stock."""

from __future__ import annotations

import random

from rules_helpers import check_views, play_out

from scopa.rules import (
    CardsDealt,
    HandStarted,
    SeatView,
    make_ruleset,
    new_match,
    observe,
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
    """RULINGS.md capturing 4: every legal set is listed to the player whose turn it is, only."""
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
