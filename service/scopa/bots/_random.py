"""Move pickers for bots and benchmarks: a random legal move, drawn like ``random.choice``.

:func:`random_move` picks a random card of the hand to play, then a random legal capture for
that card, without building every legal move. It draws from the RNG exactly as two
``rng.choice`` calls do (over the hand, then over the card's moves in :func:`legal_moves`
order), so a seeded bot plays the same game whether it is compiled or not.

They are bots, not rules (nothing in :mod:`scopa.rules` plays them), but they walk the engine's
own move plans (``scopa.rules._game``) to stay as fast as the engine: tools/build_mypyc.py
compiles this module with it.
"""

from __future__ import annotations

import random

from scopa.rules._cards import _RANKS, Card
from scopa.rules._draw import _BIT_LENGTH, randbelow
from scopa.rules._errors import GameOver
from scopa.rules._farms import _new
from scopa.rules._game import _PLANS, _plan, legal_actions, legal_moves
from scopa.rules._moves import Action
from scopa.rules._moves_farm import _builds_with, _due_farms, _farm_captures, _open_builds
from scopa.rules._plan import _Plan
from scopa.rules._state import _PLAYING, PLAY, MatchState, Move

__all__ = ["random_action", "random_move", "rollout_move"]


def random_move(state: MatchState, rng: random.Random) -> Move:
    """A random legal move of the seat to play: a random card, then a random capture for it.

    Equal to ``rng.choice`` of a card from the hand, then ``rng.choice`` of one of that card's
    entries of :func:`legal_moves` (a one-element choice, still one draw, when the card must be
    laid). Raises :class:`GameOver` when the game is over, :class:`ValueError` when the seat
    holds no card.
    """
    if state.finish_reason is not _PLAYING:
        raise GameOver("the game is over")
    if state.farms:  # farm captures and duties (Scopa della fattoria): from the listed moves
        return _by_card(legal_moves(state), rng)
    hand = state.hands[state.turn]
    n = len(hand)  # randbelow(rng, n), inlined here and below for the card's capture
    if not n:
        raise ValueError(f"seat {state.turn} has no card to play")
    k = _BIT_LENGTH[n] if n < 64 else n.bit_length()
    at = rng.getrandbits(k)
    while at >= n:
        at = rng.getrandbits(k)
    card = hand[at]
    table = state.table
    options = state.ruleset.options
    plan = _PLANS.get(id(options))  # _plan(options), inlined: the benchmark's policy
    if plan is None or plan.options is not options:
        plan = _plan(options)
    captures = plan.captures
    sets = captures.by_rank(table)[_RANKS[card]]
    if captures.card_filter is not None:
        sets = captures.card_filter(table, card, sets)
    if not sets:
        while rng.getrandbits(1):  # randbelow(rng, 1): the one-element choice of laying it
            pass
        return _new(Move, (card, ()))
    n = len(sets)
    k = _BIT_LENGTH[n] if n < 64 else n.bit_length()
    at = rng.getrandbits(k)
    while at >= n:
        at = rng.getrandbits(k)
    chosen = sets[at]
    if len(chosen) == 1:  # the common capture, spelled without a comprehension
        return _new(Move, (card, (table[chosen[0]],)))
    return _new(Move, (card, tuple([table[i] for i in chosen])))


def rollout_move(state: MatchState, rng: random.Random) -> Move:
    """The rollout path's random legal move: one ``rng.random()`` picks a card and its capture.

    ``u * len(hand)`` picks the card by its integer part and, by its fractional part, one of the
    card's legal captures (uniform for both, to 2**-49). A play costs one draw instead of
    :func:`random_move`'s two or more; :func:`~scopa.bots.play_out` plays exactly these moves.
    Raises :class:`GameOver` when the game is over.
    """
    if state.finish_reason is not _PLAYING:
        raise GameOver("the game is over")
    if state.farms:  # farm captures and duties (Scopa della fattoria): from the listed moves
        moves = legal_moves(state)
        return moves[min(int(rng.random() * len(moves)), len(moves) - 1)]
    hand = state.hands[state.turn]
    x = rng.random() * len(hand)
    at = min(int(x), len(hand) - 1)
    card = hand[at]
    table = state.table
    captures = _plan(state.ruleset.options).captures
    sets = captures.by_rank(table)[_RANKS[card]]
    if captures.card_filter is not None:
        sets = captures.card_filter(table, card, sets)
    if not sets:
        return _new(Move, (card, ()))
    chosen = sets[min(int((x - at) * len(sets)), len(sets) - 1)]
    return _new(Move, (card, tuple([table[i] for i in chosen])))


def _by_card(moves: list[Move], rng: random.Random) -> Move:
    """A random card among those ``moves`` play, then a random one of its moves."""
    cards = list(dict.fromkeys([m.card for m in moves]))
    card = cards[randbelow(rng, len(cards))]
    mine = [m for m in moves if m.card == card]
    return mine[randbelow(rng, len(mine))]


def random_action(state: MatchState, rng: random.Random) -> Action:
    """A random legal action of the seat to play: a uniform pick among :func:`legal_actions`
    (one ``randbelow`` over their number, as ``rng.choice`` of the list draws), counted without
    listing them where farms are built, and :func:`random_move`'s move (the same draws) where a
    card play is the only kind of action.

    Raises :class:`GameOver` when the game is over.
    """
    if state.finish_reason is not _PLAYING:
        raise GameOver("the game is over")
    options = state.ruleset.options
    plan = _PLANS.get(id(options))  # _plan(options), inlined: the benchmark's policy
    if plan is None or plan.options is not options:
        plan = _plan(options)
    if state.phase != PLAY or plan.declarations or plan.steals or plan.claims:
        actions = legal_actions(state)  # answers, declarations, steals, claims: listed
        return actions[randbelow(rng, len(actions))]
    if not plan.builds:
        return random_move(state, rng)
    if state.farms:
        return _farm_action(state, plan, rng)
    return _build_action(state, plan, rng)


def _build_action(state: MatchState, plan: _Plan, rng: random.Random) -> Action:
    """:func:`random_action` with no farm on the table: the moves are counted card by card from
    their capture sets and only the one drawn is spelled (the builds are listed: few)."""
    hand = state.hands[state.turn]
    table = state.table
    captures = plan.captures
    by_rank = captures.by_rank(table)
    only = captures.card_filter
    per_card: list[tuple[tuple[int, ...], ...]] = []
    free: list[Card] = []  # the cards that take nothing: the only ones that may build
    count = 0
    for card in hand:
        sets = by_rank[_RANKS[card]]
        if sets and only is not None:
            sets = only(table, card, sets)  # the capture's card_sets, as _open_builds asks
        if sets:
            count += len(sets)
        else:
            free.append(card)
            count += 1  # the one move laying the card
        per_card.append(sets)
    builds = _builds_with(state, plan, tuple(free)) if free else []
    k = randbelow(rng, count + len(builds))
    if k >= count:
        return builds[k - count]
    for at, sets in enumerate(per_card):
        if not sets:
            if k == 0:
                return _new(Move, (hand[at], ()))
            k -= 1
        elif k < len(sets):
            return _new(Move, (hand[at], tuple([table[i] for i in sets[k]])))
        else:
            k -= len(sets)
    raise AssertionError("the drawn index is below the moves counted")  # pragma: no cover


def _farm_action(state: MatchState, plan: _Plan, rng: random.Random) -> Action:
    """:func:`random_action` while farms lie on the table: each card's captures, then the
    builds, drawn from by their count (:func:`legal_actions` lists them in that order)."""
    seat = state.turn
    hand = state.hands[seat]
    due = _due_farms(plan, state, seat)
    per_card = [_farm_captures(plan, state, due, card) for card in hand]
    count = 0
    for choices in per_card:
        count += len(choices)
    builds = _open_builds(state, plan) if count else []
    k = randbelow(rng, count + len(builds))
    if k >= count:
        return builds[k - count]
    for at, choices in enumerate(per_card):
        if k < len(choices):
            return _new(Move, (hand[at], choices[k]))
        k -= len(choices)
    raise AssertionError("the drawn index is below the moves counted")  # pragma: no cover
