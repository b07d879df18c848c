"""Tests of the policy API (scopa.bots._policy): levels, budgets, and blindness to hidden cards."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

import pytest
from bots_helpers import after_a_declaration, midgame, reshuffled_hidden

from scopa.bots import DEFAULT_BUDGET, Budget, Level, choose, random_move, scaled_budget
from scopa.rules import (
    PRESETS,
    Answer,
    Claim,
    MatchState,
    apply_action,
    legal_actions,
    make_ruleset,
    new_match,
    observe,
)

REPRODUCIBLE = Budget(iterations=40)


@pytest.mark.parametrize("level", list(Level))
@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_choice_does_not_depend_on_hidden_cards(level: Level, preset: str, seed: int) -> None:
    """Two true states the seat cannot tell apart give the same choice for the same RNG seed."""
    state = midgame(preset, seed, 2 + seed)
    seat = state.turn
    other = reshuffled_hidden(state, seat, seed + 100)
    assert other.hands != state.hands or other.stock != state.stock
    assert observe(other, seat) == observe(state, seat)
    first = choose(observe(state, seat), random.Random(seed), REPRODUCIBLE, level)
    second = choose(observe(other, seat), random.Random(seed), REPRODUCIBLE, level)
    assert first == second
    assert first in observe(state, seat).legal_actions


@pytest.mark.parametrize("level", list(Level))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_choice_after_a_declaration_does_not_depend_on_hidden_cards(
    level: Level, seed: int
) -> None:
    """After the other seat declared, states it cannot tell apart (the shown cards kept in the
    declarer's hand, the rest dealt anew) give the same choice."""
    state = after_a_declaration(seed)
    seat = state.turn
    other = reshuffled_hidden(state, seat, seed + 100)
    assert other.hands != state.hands or other.stock != state.stock
    assert observe(other, seat) == observe(state, seat)
    first = choose(observe(state, seat), random.Random(seed), REPRODUCIBLE, level)
    second = choose(observe(other, seat), random.Random(seed), REPRODUCIBLE, level)
    assert first == second


@pytest.mark.parametrize("level", list(Level))
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_whole_game_between_bots_of_one_level(level: Level, preset: str) -> None:
    """Every seat played by the bot finishes a game of every preset with legal actions only."""
    rng = random.Random(7)
    state, _ = new_match(make_ruleset(preset), rng=rng)
    budget = Budget(iterations=4)
    for _ in range(2000):
        if state.finished:
            break
        seat = state.turn
        state, _ = apply_action(state, seat, choose(observe(state, seat), rng, budget, level), rng)
    assert state.finished


def test_refuses_a_seat_not_to_play() -> None:
    """Choosing for a seat whose turn it is not is a ValueError."""
    state = midgame("scopa", 1, 2)
    view = observe(state, (state.turn + 1) % 2)
    with pytest.raises(ValueError, match="not this seat's turn"):
        choose(view, random.Random(0), REPRODUCIBLE, Level.RANDOM)


def ticks(step: float) -> Iterator[float]:
    """A fake clock: 0, step, 2*step, ..."""
    now = 0.0
    while True:
        yield now
        now += step


def test_time_budget_reads_the_clock() -> None:
    """The deadline is up once the injected clock has moved on by ``seconds``."""
    clock = ticks(0.01)
    deadline = Budget(seconds=0.025, clock=lambda: next(clock)).deadline()
    assert [deadline() for _ in range(4)] == [False, False, True, True]


def test_no_seconds_means_no_deadline() -> None:
    """A budget without seconds never times out (reproducible bots)."""
    assert not Budget(iterations=5).deadline()()


def test_scaled_budget_keeps_the_default_rate() -> None:
    """The default's own length gives the default; three times as long allows three times the
    iterations."""
    assert scaled_budget(DEFAULT_BUDGET.seconds) == DEFAULT_BUDGET
    assert scaled_budget(3 * DEFAULT_BUDGET.seconds).iterations == 3 * DEFAULT_BUDGET.iterations
    assert scaled_budget(0.0001).iterations == 5


def _claimed(seed: int, trusted: bool) -> MatchState:
    """A fidasse match where seat 0 claimed a sweep (awaiting seat 1's answer), or where seat 1
    trusted it and is now to play."""
    rng = random.Random(seed)
    state, _ = new_match(make_ruleset("fidasse"), rng=rng)
    while not [a for a in legal_actions(state) if isinstance(a, Claim)] or state.turn != 0:
        state, _ = apply_action(state, state.turn, random_move(state, rng), rng)
    state, _ = apply_action(
        state, 0, rng.choice([a for a in legal_actions(state) if isinstance(a, Claim)]), rng
    )
    if trusted:
        state, _ = apply_action(state, 1, Answer(trust=True), rng)
    return state


def _swap_claimed_card(state: MatchState) -> MatchState:
    """``state`` with the claimed card (pending, or face down in seat 0's pile) swapped with the
    stock's first card: a state seat 1 cannot tell apart."""
    spare = state.stock[0]
    if state.claim is not None:
        card = state.claim.card
        return replace(
            state, claim=state.claim._replace(card=spare), stock=(card, *state.stock[1:])
        )
    play = state.history[-1]
    assert play.claim is not None and play.claim.doubter < 0
    history = (*state.history[:-1], play._replace(card=spare))
    piles = (tuple(spare if c == play.card else c for c in state.piles[0]), *state.piles[1:])
    return replace(state, history=history, piles=piles, stock=(play.card, *state.stock[1:]))


@pytest.mark.parametrize("level", list(Level))
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("trusted", [False, True])
def test_answers_and_plays_after_a_claim_do_not_depend_on_the_claimed_card(
    level: Level, seed: int, trusted: bool
) -> None:
    """The answering seat's answer, and its play after trusting, are the same whichever card
    the claimer played face down (a bot never reads the hidden card, ismcts's determinisations
    included)."""
    state = _claimed(seed, trusted)
    other = _swap_claimed_card(state)
    assert other != state and observe(other, 1) == observe(state, 1)
    first = choose(observe(state, 1), random.Random(seed), REPRODUCIBLE, level)
    second = choose(observe(other, 1), random.Random(seed), REPRODUCIBLE, level)
    assert first == second and first in observe(state, 1).legal_actions
