"""Declarations (accusa, Cirulla's, ...): the move type :data:`DECLARE`.

Before playing the first card of a deal, a seat may show a combination of its hand that a
declaration rule scores (:class:`Declare`). The engine lists and applies it through the
:class:`~._plan.MoveType` it declares.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Final, NamedTuple

from ._cards import Card
from ._errors import ActionNotLegal
from ._events import Declared, Event
from ._hand import _add_specials, _check_turn
from ._plan import MoveType, _Plan
from ._specials import DeclarationRule, declaration_rules
from ._state import PLAY, MatchState

__all__ = ["DECLARE", "Declare"]


class Declare(NamedTuple):
    """Declare the combination ``name`` (e.g. ``"accusa"``) showing ``cards`` of the hand."""

    name: str
    cards: tuple[Card, ...]


def _open_declarations(
    state: MatchState, plan: _Plan
) -> list[tuple[DeclarationRule, tuple[Card, ...], int]]:
    """The declarations the seat to play may make now, with their points.

    Only before it plays a card of the deal (a full hand) and once per deal.
    """
    seat = state.turn
    if not plan.declarations or seat < 0 or seat in state.declared:
        return []
    hand = state.hands[seat]
    if len(hand) != plan.options.hand_size:
        return []
    return [
        (rule, cards, points)
        for rule in plan.declarations
        for cards, points in rule.declarations(hand, plan.options)
    ]


def _declare(
    state: MatchState, plan: _Plan, seat: int, action: Declare, rng: random.Random | None
) -> tuple[MatchState, list[Event]]:
    """Make the declaration ``action``: its points go to the seat's side, its cards are shown."""
    _check_turn(state, plan, seat)
    shown = tuple(sorted(action.cards))
    for rule, cards, points in _open_declarations(state, plan):
        if rule.name == action.name and cards == shown:
            side = plan.side_of[seat]
            declared = Declared(seat=seat, name=rule.name, cards=cards, points=points)
            new = replace(
                state,
                specials=_add_specials(state.specials, side, ((rule.name, points),)),
                declared=(*state.declared, seat),
                declarations=(*state.declarations, declared),
            )
            return new, [declared]
    raise ActionNotLegal(
        f"no declaration {action.name!r} of these cards is open to seat {seat} now",
        field="action",
    )


def _open_declares(state: MatchState, plan: _Plan) -> list[Declare]:
    """The declarations open to the seat to play, as actions."""
    return [
        Declare(name=rule.name, cards=cards)
        for rule, cards, _points in _open_declarations(state, plan)
    ]


DECLARE: Final = MoveType(PLAY, Declare, declaration_rules, _open_declares, _declare)
"""Declaring a combination of the hand (:class:`Declare`)."""
