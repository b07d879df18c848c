"""Tests of what a seat knows (scopa.bots._knowledge): unseen cards and determinisation."""

from __future__ import annotations

import random

import pytest
from bots_helpers import midgame

from scopa.bots import determinise, seen_cards, unseen_cards
from scopa.rules import PRESETS, apply_action, legal_actions, observe, random_move

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
def test_determinise_matches_every_public_part(preset: str, seed: int, plays: int) -> None:
    """A determinisation keeps the seat's hand and every public field, and is a playable state."""
    state = midgame(preset, seed, plays)
    seat = state.turn
    view = observe(state, seat)
    rng = random.Random(seed)
    det = determinise(view, rng)
    assert observe(det, seat) == view
    assert [sorted(p) for p in det.piles] == [sorted(p) for p in state.piles]
    assert (det.last_capturer, det.last_laid) == (state.last_capturer, state.last_laid)
    assert legal_actions(det) == list(view.legal_actions)
    while not det.finished:
        det, _ = apply_action(det, det.turn, random_move(det, rng), rng)


def test_determinise_deals_different_hidden_cards() -> None:
    """Two RNG seeds give different hidden hands (the sample is random, not the truth)."""
    state = midgame("scopa", 3, 4)
    view = observe(state, state.turn)
    first = determinise(view, random.Random(1))
    second = determinise(view, random.Random(2))
    assert first.hands != second.hands


def test_spectator_view_is_refused() -> None:
    """A spectator has no seat to determinise for: ValueError."""
    with pytest.raises(ValueError, match="only a seat"):
        determinise(observe(midgame("scopa", 1, 3), None), random.Random(0))
