"""Pile steals (Rubamazzo, it.wikipedia): the move type :data:`STEAL`.

A seat plays a card of the rank of the top card of another side's pile and takes that whole
pile (:class:`Steal`). The engine lists and applies it through the :class:`~._plan.MoveType`
it declares.
"""

from __future__ import annotations

import random
from typing import Final, NamedTuple

from ._cards import Card, card_code
from ._errors import ActionNotLegal
from ._events import CardPlayed, Event
from ._hand import _after_card, _check_turn, _hands_without
from ._moves_farm import _due_farms
from ._plan import MoveType, _Plan
from ._specials import steal_rules
from ._state import PLAY, MatchState

__all__ = ["STEAL", "Steal"]


class Steal(NamedTuple):
    """Play ``card`` to steal the whole pile of side ``side``, whose top card is of the played
    card's rank (Rubamazzo, it.wikipedia)."""

    card: Card
    side: int


def _open_steals(state: MatchState, plan: _Plan) -> list[Steal]:
    """The pile steals open to the seat to play: a card of its hand on another side's pile
    whose top card a steal rule lets it take, by card then side."""
    if not plan.steals or _due_farms(plan, state, state.turn):
        return []  # a farm's owner may only take its farm: no card of its value spent on a pile
    own = plan.side_of[state.turn]
    tops = [(side, pile[-1]) for side, pile in enumerate(state.piles) if pile and side != own]
    return [
        Steal(card=card, side=side)
        for card in state.hands[state.turn]
        for side, top in tops
        if any(rule.can_steal(card, top) for rule in plan.steals)
    ]


def _steal(
    state: MatchState, plan: _Plan, seat: int, action: Steal, rng: random.Random | None
) -> tuple[MatchState, list[Event]]:
    """Steal a pile: the played card takes another side's whole pile and lies on top of its own
    side's pile, which the others may steal in turn (Rubamazzo, it.wikipedia)."""
    _check_turn(state, plan, seat)
    if action not in _open_steals(state, plan):
        raise ActionNotLegal(
            f"seat {seat} cannot steal the pile of side {action.side} with"
            f" {card_code(action.card)} now",
            field="action",
        )
    card, target = action
    side = plan.side_of[seat]
    stolen = state.piles[target]
    piles = list(state.piles)
    piles[side] = piles[side] + stolen + (card,)
    piles[target] = ()
    hands = _hands_without(state.hands, seat, card)
    played = CardPlayed(seat, card, stolen, True, False, (), target)
    last_card = not any(hands) and not state.stock
    return _after_card(
        state,
        plan,
        played,
        hands,
        state.table,
        tuple(piles),
        state.sweeps,
        state.specials,
        seat,
        -1,
        last_card,
        rng,
    )


STEAL: Final = MoveType(PLAY, Steal, steal_rules, _open_steals, _steal)
"""Stealing a pile (:class:`Steal`)."""
