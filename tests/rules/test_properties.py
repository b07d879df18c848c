"""Property tests: random full games of every preset keep the engine's invariants."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rules_helpers import check_views, random_move

from scopa.rules import (
    PRESETS,
    CardPlayed,
    CardsDealt,
    Event,
    HandScored,
    LeftoverTaken,
    MatchState,
    apply_move,
    dump_state,
    legal_moves,
    load_state,
    make_ruleset,
    new_match,
    visible_events,
)
from scopa.rules._scoring import hand_points_bound

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
PROPERTY_SETTINGS = settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def in_play(state: MatchState) -> list[int]:
    """Every card held somewhere in the current hand: hands, table, stock and piles."""
    held = [c for h in state.hands for c in h] + list(state.table) + list(state.stock)
    return held + [c for p in state.piles for c in p]


def check_events(events: list[Event], state: MatchState) -> None:
    """Filtered events show dealt cards only to their seat, and own dealt cards match the hand."""
    players = state.ruleset.options.players
    for seat in (*range(players), None):
        for event in visible_events(events, seat):
            if isinstance(event, CardsDealt):
                if event.seat != seat:
                    assert event.cards == ()
                else:
                    assert len(event.cards) == event.n_cards
                    assert set(event.cards) <= set(state.hands[seat]), "dealt cards not in hand"


def check_hand_score(events: list[Event], state: MatchState, before: MatchState) -> None:
    """Every scored hand counts all 40 cards, and each side's points lie in [0, bound]."""
    options = state.ruleset.options
    plays = 40 - options.table_cards
    bound = hand_points_bound(options, plays)
    for event in events:
        if isinstance(event, HandScored):
            score = event.result.score
            cards_line = next(c for c in score.components if c.name == "cards")
            assert sum(cards_line.values) == 40
            assert all(0 <= t <= bound for t in score.totals), (score.totals, bound)
    if any(isinstance(e, HandScored) for e in events):
        captured = {c for e in events if isinstance(e, CardPlayed) for c in (e.card, *e.captured)}
        left = {c for e in events if isinstance(e, LeftoverTaken) for c in e.cards}
        assert set(before.table) <= captured | left


def check_serial(state: MatchState) -> None:
    """The state loads back equal; a 2-player state fits in 2 KiB."""
    blob = dump_state(state)
    if state.ruleset.options.players == 2:
        assert len(blob) <= 2048, len(blob)
    assert load_state(blob) == state


def play_game(preset: str, seed: int) -> None:
    """Play one random game of ``preset``, checking every invariant after every move."""
    rng = random.Random(seed)
    state, events = new_match(make_ruleset(preset), rng=rng)
    check_events(events, state)
    steps = 0
    before = state
    while not state.finished:
        assert sorted(in_play(state)) == list(range(40))
        seat = state.turn
        assert state.hands[seat] and legal_moves(state)
        check_views(state)
        if steps % 4 == 0 or state.hand_number != before.hand_number:
            check_serial(state)
        before = state
        state, events = apply_move(state, seat, random_move(state, rng), rng)
        check_events(events, state)
        check_hand_score(events, state, before)
        steps += 1
        assert steps < 5000, "game does not end"
    check_views(state)
    check_serial(before)
    check_serial(state)
    assert state.winners


@pytest.mark.parametrize("preset", sorted(PRESETS))
@PROPERTY_SETTINGS
@given(seed=SEEDS)
def test_random_games_keep_the_invariants(preset: str, seed: int) -> None:
    """Cards are conserved, a seat to play has moves, views hide cards, scores are bounded."""
    play_game(preset, seed)
