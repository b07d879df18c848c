"""Move pickers for bots and benchmarks: a random legal move, drawn like ``random.choice``.

:func:`random_move` picks a random card of the hand to play, then a random legal capture for
that card, without building every legal move. It draws from the RNG exactly as two
``rng.choice`` calls do (over the hand, then over the card's moves in :func:`legal_moves`
order), so a seeded bot plays the same game whether it is compiled or not.
"""

from __future__ import annotations

import random

from ._cards import _RANKS
from ._draw import randbelow
from ._errors import GameOver
from ._game import (
    _PLANS,
    _PLAYING,
    PLAY,
    Action,
    MatchState,
    Move,
    _actions,
    _new,
    _plan,
    legal_actions,
    legal_moves,
)

__all__ = ["randbelow", "random_action", "random_move", "rollout_move"]


def random_move(state: MatchState, rng: random.Random) -> Move:
    """A random legal move of the seat to play: a random card, then a random capture for it.

    Equal to ``rng.choice`` of a card from the hand, then ``rng.choice`` of one of that card's
    entries of :func:`legal_moves` (a one-element choice, still one draw, when the card must be
    laid). Raises :class:`GameOver` when the game is over.
    """
    if state.finish_reason is not _PLAYING:
        raise GameOver("the game is over")
    if state.farms:  # farm captures and duties (Scopa della fattoria): from the listed moves
        return _by_card(legal_moves(state), rng)
    hand = state.hands[state.turn]
    card = hand[randbelow(rng, len(hand))]
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
        randbelow(rng, 1)  # the one-element choice of laying the card
        return _new(Move, (card, ()))
    chosen = sets[randbelow(rng, len(sets))]
    if len(chosen) == 1:  # the common capture, spelled without a comprehension
        return _new(Move, (card, (table[chosen[0]],)))
    return _new(Move, (card, tuple([table[i] for i in chosen])))


def rollout_move(state: MatchState, rng: random.Random) -> Move:
    """The rollout path's random legal move: one ``rng.random()`` picks a card and its capture.

    ``u * len(hand)`` picks the card by its integer part and, by its fractional part, one of the
    card's legal captures (uniform for both, to 2**-49). A play costs one draw instead of
    :func:`random_move`'s two or more; :func:`~scopa.rules.play_out` plays exactly these moves.
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
    """A random legal action of the seat to play: :func:`random_move`'s move (the same draws)
    unless the ruleset builds farms, then a uniform pick among :func:`legal_actions`.

    Raises :class:`GameOver` when the game is over.
    """
    if state.finish_reason is not _PLAYING:
        raise GameOver("the game is over")
    options = state.ruleset.options
    plan = _PLANS.get(id(options))  # _plan(options), inlined: the benchmark's policy
    if plan is None or plan.options is not options:
        plan = _plan(options)
    if not plan.builds:
        return random_move(state, rng)
    actions = _actions(state, plan) if state.phase == PLAY else legal_actions(state)
    return actions[randbelow(rng, len(actions))]
