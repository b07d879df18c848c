"""Match-flow exceptions as rules a ruleset lists: when a clearing is a sweep, when a lone card
is taken, which deals are void and how the starting table is fixed up.

Like the capture, scoring and special rules, each exception is a small class; the functions at
the bottom list the ones a ruleset's options enable, in the order the engine asks them. The
engine (``_game.py``) only asks the listed rules and never looks at the options behind them:

- a :class:`SweepRule` decides whether a play that leaves the table empty is a sweep (the first
  rule with an answer wins; with none, a capture that clears the table is one);
- a :class:`LoneTakeRule` says whether a card played on an empty table takes itself;
- a :class:`DealRule` voids a starting deal (the deal is made again) and may first fix up the
  starting table (a lone ace goes back under the stock).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Protocol

from ._cards import _RANKS, Card, figure_rank
from ._options import SWEEP_SPECIAL_OPTIONS, AcesOnTable, Options

__all__ = [
    "AceOnEmptyTableTakes",
    "AceSweep",
    "AcesRedeal",
    "AcesReturn",
    "DealRule",
    "KingsRedeal",
    "LoneTakeRule",
    "NoSweepOnLastCard",
    "NoSweeps",
    "SweepRule",
    "deal_rules",
    "lone_take_rules",
    "sweep_rules",
    "sweeps_score",
]

_ACE: Final = 1


class SweepRule(Protocol):
    """An exception to "a capture that clears the table is a sweep"."""

    def sweep(
        self, table: tuple[Card, ...], card: Card, capture: tuple[Card, ...], last_card: bool
    ) -> bool | None:
        """Whether taking ``capture`` from ``table`` with ``card`` (clearing it) is a sweep.

        ``last_card``: the play is the last of the hand. ``None``: the rule has no say.
        """
        ...


class NoSweepOnLastCard:
    """A clearing made with the last card of the hand is no sweep (Lo Spazzino, the Scopa page and
    it.wikipedia)."""

    def sweep(
        self, table: tuple[Card, ...], card: Card, capture: tuple[Card, ...], last_card: bool
    ) -> bool | None:
        """False on the last card, otherwise no say."""
        return False if last_card else None


class NoSweeps:
    """A ruleset that scores no sweep records none (Rubamazzo: ``sweep_points`` 0 and no other
    rule scoring a sweep): a play that clears the table is an ordinary capture, so the state's
    sweep counts, the plays and the views show no sweep the score sheet ignores."""

    def sweep(
        self, table: tuple[Card, ...], card: Card, capture: tuple[Card, ...], last_card: bool
    ) -> bool | None:
        """Never a sweep."""
        return False


def sweeps_score(options: Options) -> bool:
    """Whether a sweep can score under ``options``: the sweeps line (``sweep_points``), a claimed
    sweep (``sweep_claims``) or a special rule scoring a sweep (:data:`SWEEP_SPECIAL_OPTIONS`)."""
    if options.sweep_points > 0 or options.sweep_claims:
        return True
    return any([getattr(options, name) for name in SWEEP_SPECIAL_OPTIONS])


class AceSweep:
    """Asso piglia tutto: whether an ace that takes the whole table sweeps (the Scopa page and
    it.wikipedia).

    ``counts``: the ace's clearing scores a sweep (Scopa d'assi) or not (the Scopa page's default).
    With ``only_table_ace`` an ace that took the one ace lying on the table captured by the
    ordinary rule, so it sweeps like any capture. An ace alone on an empty table that takes
    itself (:class:`AceOnEmptyTableTakes`) always sweeps.
    """

    def __init__(self, *, counts: bool, only_table_ace: bool) -> None:
        self.counts = counts
        self.only_table_ace = only_table_ace

    def sweep(
        self, table: tuple[Card, ...], card: Card, capture: tuple[Card, ...], last_card: bool
    ) -> bool | None:
        """The ace's answer; no say for other cards or an ace taking a table ace."""
        if _RANKS[card] != _ACE:
            return None
        if not table:
            return True
        if self.only_table_ace and any(_RANKS[c] == _ACE for c in table):
            return None
        return self.counts


class LoneTakeRule(Protocol):
    """A card played on an empty table that takes itself (a capture of no table card)."""

    def takes_alone(self, card: Card) -> bool:
        """Whether ``card``, played on an empty table, is taken rather than laid."""
        ...


class AceOnEmptyTableTakes:
    """With asso piglia tutto, an ace on an empty table takes itself and sweeps (docs/rules.md)."""

    def takes_alone(self, card: Card) -> bool:
        """True for an ace."""
        return _RANKS[card] == _ACE


VoidCheck = Callable[[list[Card]], str]
"""Every deal rule's :meth:`DealRule.void` asked in order: the first reason, or ``""``."""


class DealRule(Protocol):
    """A starting deal that is void (dealt again), or a starting table to fix up first."""

    def void(self, table: list[Card]) -> str:
        """Why a starting ``table`` voids the deal (``"kings"``, ``"aces"``), or ``""``."""
        ...

    def fix(
        self, table: list[Card], stock: tuple[Card, ...], void: VoidCheck
    ) -> tuple[tuple[Card, ...], list[Card], str]:
        """Fix up the starting ``table`` in place before the deal is judged.

        Returns the new stock, the cards sent back under it (in order) and a void reason when
        the table cannot be fixed (``""`` otherwise). ``void`` asks every deal rule.
        """
        ...


class KingsRedeal:
    """At least ``count`` kings on the starting table void the deal (the Scopa page and
    it.wikipedia)."""

    def __init__(self, count: int, king: int = 10) -> None:
        self.count = count
        self.king = king
        """The king's rank: 10, or 13 in the 52-card deck."""

    def void(self, table: list[Card]) -> str:
        """``"kings"`` when the table holds ``count`` kings or more."""
        kings = 0
        king = self.king
        for c in table:
            if _RANKS[c] == king:
                kings += 1
        return "kings" if kings >= self.count else ""

    def fix(
        self, table: list[Card], stock: tuple[Card, ...], void: VoidCheck
    ) -> tuple[tuple[Card, ...], list[Card], str]:
        """Nothing to fix."""
        return stock, [], ""


def _aces_void(table: list[Card]) -> str:
    """``"aces"`` when two or more aces lie on ``table`` (both aces rules void such a deal)."""
    aces = 0
    for c in table:
        if _RANKS[c] == _ACE:
            aces += 1
    return "aces" if aces > 1 else ""


class AcesReturn:
    """Aces on the starting table (the Scopa page): a lone ace goes under the stock and the next
    card is turned, until no ace is left; two or more aces void the deal."""

    def void(self, table: list[Card]) -> str:
        """``"aces"`` when two or more aces lie on the table."""
        return _aces_void(table)

    def fix(
        self, table: list[Card], stock: tuple[Card, ...], void: VoidCheck
    ) -> tuple[tuple[Card, ...], list[Card], str]:
        """Send lone aces under the stock one by one while the deal is not void.

        ``"aces"`` when no card but aces (or none) is left to turn (``make_ruleset`` rejects
        rulesets without a stock; this is the backstop).
        """
        returned: list[Card] = []
        while not void(table) and any(_RANKS[c] == _ACE for c in table):
            if all(_RANKS[c] == _ACE for c in stock):
                return stock, returned, "aces"
            ace = next(c for c in table if _RANKS[c] == _ACE)
            table.remove(ace)
            table.append(stock[0])
            stock = stock[1:] + (ace,)
            returned.append(ace)
        return stock, returned, ""


class AcesRedeal:
    """Cirulla's misdeal (regoledelgioco, Parlett, sbiro.eu): two or more aces on the starting
    table void the deal ("la mano viene considerata a monte"); a single ace stays."""

    def void(self, table: list[Card]) -> str:
        """``"aces"`` when two or more aces lie on the table."""
        return _aces_void(table)

    def fix(
        self, table: list[Card], stock: tuple[Card, ...], void: VoidCheck
    ) -> tuple[tuple[Card, ...], list[Card], str]:
        """Nothing to fix."""
        return stock, [], ""


def sweep_rules(options: Options) -> tuple[SweepRule, ...]:
    """The sweep exceptions ``options`` enable, in the order they are asked (only
    :class:`NoSweeps` where no sweep can score)."""
    if not sweeps_score(options):
        return (NoSweeps(),)
    rules: list[SweepRule] = []
    if not options.sweep_on_last_card:
        rules.append(NoSweepOnLastCard())
    if options.ace_takes_all:
        rules.append(
            AceSweep(
                counts=options.ace_sweep_counts, only_table_ace=options.ace_takes_only_table_ace
            )
        )
    return tuple(rules)


def lone_take_rules(options: Options) -> tuple[LoneTakeRule, ...]:
    """The rules under which a card on an empty table takes itself."""
    if options.ace_takes_all and options.ace_on_empty_table_sweeps:
        return (AceOnEmptyTableTakes(),)
    return ()


def deal_rules(options: Options) -> tuple[DealRule, ...]:
    """The deal exceptions ``options`` enable, in the order their void reasons are given."""
    rules: list[DealRule] = []
    if options.kings_redeal:
        rules.append(KingsRedeal(options.kings_redeal, figure_rank(options.deck_size) + 2))
    if options.aces_on_table is AcesOnTable.RETURN:
        rules.append(AcesReturn())
    elif options.aces_on_table is AcesOnTable.REDEAL:
        rules.append(AcesRedeal())
    return tuple(rules)
