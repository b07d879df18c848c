"""The move types beyond the ordinary card play: the plug-ins ``_moves_*.py``, listed.

``_game.py`` builds each ruleset's plan from the ones it enables, in this order: the order
:func:`legal_actions` lists their actions in after the card plays. A new move type is a
plug-in module and a line in each list here (and in :data:`Action` when it adds a kind).
"""

from __future__ import annotations

from typing import Final

from ._farms import Build
from ._moves_claim import ANSWER_CLAIM, CLAIM, Answer, Claim
from ._moves_declare import DECLARE, Declare
from ._moves_farm import BUILD, FARM_PLAY
from ._moves_steal import STEAL, Steal
from ._plan import CardPlay, MoveType
from ._state import Move

__all__ = ["CARD_PLAYS", "MOVE_TYPES", "Action"]

MOVE_TYPES: Final[tuple[MoveType, ...]] = (DECLARE, STEAL, CLAIM, ANSWER_CLAIM, BUILD)
"""Every move type, in the order their actions are listed."""

CARD_PLAYS: Final[tuple[CardPlay, ...]] = (FARM_PLAY,)
"""The move types that play the cards while their pieces lie on the table."""

Action = Move | Declare | Steal | Claim | Answer | Build
"""Every kind of action a seat may take: playing a card, declaring, stealing a pile, claiming a
sweep, answering a claim, and building or raising a farm. A new move type adds its kind here."""
