"""What the engine needs from a ruleset, worked out once (:class:`_Plan`), and what its move
types are made of (:class:`MoveType`, the :class:`CardPlay` protocol).

A move type beyond the ordinary card play (a claim, a steal, a build, a declaration) is a
plug-in module ``_moves_*.py`` declaring its :class:`MoveType` values; ``_moves.py``
lists them, and ``_game.py`` builds each ruleset's plan (its action table and the move types it
lists legal actions from) from the ones the ruleset enables. The core flow names none of them.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ._capture import CaptureTable
from ._events import Event
from ._farms import BuildRule, FarmDutyRule, FarmTakeRule
from ._flow import DealRule, LoneTakeRule, SweepRule
from ._matchflow import InstantWinRule, MatchFlow
from ._options import Options
from ._specials import ClaimRule, DeclarationRule, SpecialRule, StealRule, TableBonusRule
from ._state import MatchState, Move

__all__ = ["CardPlay", "MoveType"]


Handler = Callable[
    [MatchState, "_Plan", int, Any, "random.Random | None"], "tuple[MatchState, list[Event]]"
]
"""Applies one kind of action: (state, plan, seat, action, rng) -> (new state, events)."""


@dataclass(frozen=True, slots=True)
class MoveType:
    """One kind of action beyond the ordinary card play, declared by its plug-in module
    (``_moves_*.py``) as its plain functions, e.g.
    ``STEAL = MoveType(PLAY, Steal, steal_rules, _open_steals, _steal)``.

    ``_game.py`` keys the action table by ``(phase, kind)`` for each move type a ruleset
    enables, and lists each one's ``opens`` after the card plays, in ``_moves.py``'s order.
    """

    phase: str
    """The phase it is open in: ``PLAY``, or a phase of its own (a claim's ``answer``)."""
    kind: type
    """The action it applies (a NamedTuple, e.g. ``Claim``)."""
    rules: Callable[[Options], tuple[Any, ...]]
    """The ruleset's rules of this move type: it is enabled when there are some."""
    opens: Callable[[MatchState, _Plan], list[Any]]
    """Its actions open to the seat to play in a state (in its phase, game not over)."""
    apply: Handler
    """Takes an action for a seat: the new state and the events, or a ``RulesError``
    (checking the seat and the turn first, as every action does)."""

    def enabled(self, options: Options) -> bool:
        """Whether a ruleset of ``options`` lists rules of this move type."""
        return bool(self.rules(options))


class CardPlay(Protocol):
    """A move type whose pieces on the table change the ordinary card play while they lie there
    (farms): :func:`legal_moves` and :func:`apply_move` are then its :meth:`moves` and
    :meth:`play`. A ruleset enables at most one."""

    def enabled(self, options: Options) -> bool:
        """Whether a ruleset of ``options`` allows it."""
        ...

    def active(self, state: MatchState) -> bool:
        """Whether its pieces lie on the table of ``state``: the card play is then its own."""
        ...

    def moves(self, state: MatchState, plan: _Plan, seat: int) -> list[Move]:
        """The legal card plays of ``seat``, the seat to play in the ``play`` phase."""
        ...

    def play(
        self, state: MatchState, plan: _Plan, seat: int, move: Move, rng: random.Random | None
    ) -> tuple[MatchState, list[Event]]:
        """:func:`apply_move` of ``move`` for ``seat`` in a game not over."""
        ...


@dataclass(frozen=True, slots=True)
class _Plan:
    """What the hot path needs from a ruleset, worked out once per :class:`Options` object.

    A slotted class, not a NamedTuple: the interpreter specialises reading a slot, not a
    NamedTuple field (a descriptor call each time), and the hot path reads a dozen a play.
    """

    options: Options
    captures: CaptureTable
    players: int
    side_of: tuple[int, ...]
    """The side of each seat."""
    next_seat: tuple[int, ...]
    """The seat after each seat."""
    lone_takes: tuple[LoneTakeRule, ...]
    """The rules under which a card played on an empty table takes itself."""
    sweeps: tuple[SweepRule, ...]
    """The sweep exceptions, asked in order when a play leaves the table empty."""
    deals: tuple[DealRule, ...]
    """The deal exceptions: void starting deals and starting-table fix-ups."""
    specials: tuple[SpecialRule, ...]
    """The special-play rules, asked at every capture."""
    specials_last: tuple[SpecialRule, ...]
    """The special-play rules that also score the hand's final play."""
    laid_survives_deal: bool
    """Whether the last laid card is still "just laid" after a mid-hand re-deal."""
    declarations: tuple[DeclarationRule, ...]
    """The declaration rules, asked on every turn."""
    steals: tuple[StealRule, ...]
    """The pile-steal rules (Rubamazzo), asked on every turn."""
    claims: tuple[ClaimRule, ...]
    """The claimed-sweep rules (Scopa fidasse): who answers a claim and what answers cost."""
    builds: tuple[BuildRule, ...]
    """The farm-building rules (Scopa della fattoria), asked on every turn."""
    farm_takes: tuple[FarmTakeRule, ...]
    """How a played card takes a farm, asked while farms lie on the table."""
    farm_duties: tuple[FarmDutyRule, ...]
    """The farms a seat must take on its turn, asked while farms lie on the table."""
    instant_wins: tuple[InstantWinRule, ...]
    """The rules that may end the match after a hand whatever the scores."""
    table_bonuses: tuple[TableBonusRule, ...]
    """The rules scoring the starting table for the dealer (Cirulla), asked at each deal."""
    actions: dict[tuple[str, type], Handler]
    """The action table: (phase, action kind) -> the handler that applies it."""
    play_opens: tuple[MoveType, ...]
    """The enabled move types open in the ``play`` phase, asked after the card plays (none in
    most rulesets: the hot path loops over an empty tuple)."""
    phase_opens: dict[str, tuple[MoveType, ...]]
    """The enabled move types of each other phase (a claim's ``answer``)."""
    card_play: CardPlay | None
    """The move type that plays the cards while its pieces lie on the table (farms), or None."""
    flow: MatchFlow
    """How each hand is dealt and when the match ends."""
    order: tuple[tuple[int, ...], ...]
    """Per leading seat, every seat in playing order from it (no seat out)."""
