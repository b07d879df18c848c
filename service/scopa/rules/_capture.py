"""Capturing as composable rules.

Each :class:`CaptureRule` proposes the sets of table cards a played card may take; the rules
enabled by a ruleset are asked in order, and the first *overriding* rule that applies (asso
piglia tutto) replaces the others. Subset search works on the table's ranks only and is cached,
so the same table shape is solved once per process.

The table is kept sorted by :func:`table_key` (rank, then suit), so a capture set is a sorted
tuple of cards and every capture option has one canonical spelling.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final, Protocol

from ._cards import Card, rank_of
from ._options import Options

__all__ = [
    "AceTakesAll",
    "CaptureRule",
    "EqualOrSum",
    "SumWithPlayed",
    "capture_options",
    "capture_rules",
    "table_key",
]

Capture = tuple[Card, ...]

_ACE: Final = 1


def table_key(card: Card) -> int:
    """Sort key of table cards: by rank, then by suit."""
    return (card % 10) * 4 + card // 10


@lru_cache(maxsize=1 << 16)
def _subsets(ranks: tuple[int, ...], target: int) -> tuple[tuple[int, ...], ...]:
    """Index sets of ``ranks`` (sorted ascending) whose ranks add up to ``target``."""
    found: list[tuple[int, ...]] = []
    n = len(ranks)

    def walk(start: int, remaining: int, chosen: list[int]) -> None:
        for i in range(start, n):
            r = ranks[i]
            if r > remaining:
                return  # sorted: nothing further fits
            chosen.append(i)
            if r == remaining:
                found.append(tuple(chosen))
            else:
                walk(i + 1, remaining - r, chosen)
            chosen.pop()

    if target > 0:
        walk(0, target, [])
    return tuple(found)


def _pick(table: tuple[Card, ...], index_sets: tuple[tuple[int, ...], ...]) -> list[Capture]:
    return [tuple(table[i] for i in s) for s in index_sets]


class CaptureRule(Protocol):
    """One way of capturing; returns the capture sets it allows, or ``None`` when silent."""

    overriding: bool
    """When true and the rule applies, its sets are the only legal captures."""

    def captures(self, table: tuple[Card, ...], card: Card) -> list[Capture] | None:
        """The capture sets this rule allows for ``card`` on ``table`` (sorted by table_key)."""


class EqualOrSum:
    """Take one equal card, or two or more cards adding up to the played card (seeds 000-004)."""

    overriding = False

    def __init__(self, *, equal_precedence: bool, figures_only_figures: bool) -> None:
        self.equal_precedence = equal_precedence
        self.figures_only_figures = figures_only_figures

    def captures(self, table: tuple[Card, ...], card: Card) -> list[Capture] | None:
        rank = rank_of(card)
        singles: list[Capture] = [(c,) for c in table if rank_of(c) == rank]
        if singles and self.equal_precedence:
            return singles
        if self.figures_only_figures and rank >= 8:
            return singles
        ranks = tuple(rank_of(c) for c in table)
        return [s for s in _pick(table, _subsets(ranks, rank)) if len(s) > 1] + singles


class SumWithPlayed:
    """Take cards that together with the played card add up to ``total`` (Scopa a 15 / a 11)."""

    overriding = False

    def __init__(self, total: int, *, fewest_cards: bool) -> None:
        self.total = total
        self.fewest_cards = fewest_cards

    def captures(self, table: tuple[Card, ...], card: Card) -> list[Capture] | None:
        ranks = tuple(rank_of(c) for c in table)
        sets = _pick(table, _subsets(ranks, self.total - rank_of(card)))
        if self.fewest_cards and sets:
            fewest = min(len(s) for s in sets)
            sets = [s for s in sets if len(s) == fewest]
        return sets


class AceTakesAll:
    """Asso piglia tutto: an ace takes the whole table (seeds 002, 004).

    With ``only_table_ace`` an ace played while aces lie on the table takes just one of them.
    On an empty table the rule is silent: the ace is laid, unless the engine's
    ``ace_on_empty_table_sweeps`` option turns that play into a sweep.
    """

    overriding = True

    def __init__(self, *, only_table_ace: bool) -> None:
        self.only_table_ace = only_table_ace

    def captures(self, table: tuple[Card, ...], card: Card) -> list[Capture] | None:
        if rank_of(card) != _ACE or not table:
            return None
        if self.only_table_ace:
            aces: list[Capture] = [(c,) for c in table if rank_of(c) == _ACE]
            if aces:
                return aces
        return [table]


@lru_cache(maxsize=64)
def capture_rules(options: Options) -> tuple[CaptureRule, ...]:
    """The capture rules a ruleset enables, overriding rules first."""
    rules: list[CaptureRule] = []
    if options.ace_takes_all:
        rules.append(AceTakesAll(only_table_ace=options.ace_takes_only_table_ace))
    if not (options.capture_15 and options.capture_15_only):
        rules.append(
            EqualOrSum(
                equal_precedence=options.equal_card_precedence,
                figures_only_figures=options.figures_capture_only_figures,
            )
        )
    if options.capture_15:
        rules.append(SumWithPlayed(15, fewest_cards=True))
    if options.capture_11:
        rules.append(SumWithPlayed(11, fewest_cards=False))
    return tuple(rules)


def capture_options(options: Options, table: tuple[Card, ...], card: Card) -> list[Capture]:
    """Every legal capture for ``card`` on ``table``; empty when the card must be laid."""
    found: list[Capture] = []
    for rule in capture_rules(options):
        sets = rule.captures(table, card)
        if sets is None:
            continue
        if rule.overriding:
            return sets
        for s in sets:
            if s not in found:
                found.append(s)
    return found
