"""Move pickers for bots and benchmarks: a random legal move, drawn like ``random.choice``.

:func:`random_move` picks a random card of the hand to play, then a random legal capture for
that card, without building every legal move. It draws from the RNG exactly as two
``rng.choice`` calls do (over the hand, then over the card's moves in :func:`legal_moves`
order), so a seeded bot plays the same game whether it is compiled or not.
"""

from __future__ import annotations

import random
from typing import Final

from ._cards import _RANKS
from ._errors import GameOver
from ._game import _PLAYING, MatchState, Move, _new, _plan

__all__ = ["randbelow", "random_move"]

_BIT_LENGTH: Final[tuple[int, ...]] = tuple([n.bit_length() for n in range(64)])


def randbelow(rng: random.Random, n: int) -> int:
    """A random int in ``[0, n)`` (``n > 0``), drawn as ``rng.choice`` over ``n`` items draws it.

    CPython's ``Random.choice(seq)`` is ``seq[rng._randbelow(len(seq))]``, which takes
    ``n.bit_length()`` random bits until they fall below ``n``; this makes the same
    ``getrandbits`` calls through the public API (for ``random.Random`` and subclasses that keep
    its ``random`` and ``getrandbits``).
    """
    if n <= 0:
        raise ValueError("randbelow needs n > 0")
    k = _BIT_LENGTH[n] if n < 64 else n.bit_length()
    r: int = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


def random_move(state: MatchState, rng: random.Random) -> Move:
    """A random legal move of the seat to play: a random card, then a random capture for it.

    Equal to ``rng.choice`` of a card from the hand, then ``rng.choice`` of one of that card's
    entries of :func:`legal_moves` (a one-element choice, still one draw, when the card must be
    laid). Raises :class:`GameOver` when the game is over.
    """
    if state.finish_reason is not _PLAYING:
        raise GameOver("the game is over")
    hand = state.hands[state.turn]
    card = hand[randbelow(rng, len(hand))]
    table = state.table
    sets = _plan(state.ruleset.options).captures.by_rank(table)[_RANKS[card]]
    if not sets:
        randbelow(rng, 1)  # the one-element choice of laying the card
        return _new(Move, (card, ()))
    chosen = sets[randbelow(rng, len(sets))]
    return _new(Move, (card, tuple([table[i] for i in chosen])))
