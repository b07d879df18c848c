"""Capturing as composable rules.

Each :class:`CaptureRule` proposes the sets of table cards a played card may take; the rules
enabled by a ruleset are asked in order, and the first *overriding* rule that applies (asso
piglia tutto) replaces the others. Subset search works on the table's ranks only and is cached,
so the same table shape is solved once per process.

The table is kept sorted by :func:`table_key` (rank, then suit), so a capture set is a sorted
tuple of cards and every capture option has one canonical spelling.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Final, Protocol

from ._cards import _COPIES, _RANKS, _SUITS, COPY_STRIDE, MAX_CARD, Card, figure_rank
from ._kept import ByIdentity
from ._options import CaptureArithmetic, OptionalCaptures, Options

__all__ = [
    "SHAPE_BITS",
    "TABLE_KEY_OF",
    "WIDE_SHAPE_BITS",
    "AceTakesAll",
    "CaptureRule",
    "CaptureTable",
    "EqualOrDifference",
    "EqualOrSum",
    "MayDecline",
    "ModularSum",
    "SumWithPlayed",
    "TwinsOnlySweep",
    "capture_options",
    "capture_rules",
    "capture_table",
    "pick",
    "table_key",
    "table_ranks",
]

Capture = tuple[Card, ...]

_ACE: Final = 1


_TABLE_KEYS: Final[tuple[int, ...]] = tuple(
    [(_RANKS[c] - 1) * 8 + _SUITS[c] * 2 + _COPIES[c] for c in range(MAX_CARD)]
)


def table_key(card: Card) -> int:
    """Sort key of table cards: by rank, then by suit, then first copy before second."""
    return _TABLE_KEYS[card]


TABLE_KEY_OF: Final[Callable[[Card], int]] = _TABLE_KEYS.__getitem__
""":func:`table_key` as a lookup in a tuple of every card's key: a C call, no Python frame, for
sorting and ``insort`` (which call their ``key`` once per comparison)."""


_SUMS_LIMIT: Final = 10
"""The totals one :func:`_sums` walk covers for the 40-card deck (a higher total: up to 15)."""


@lru_cache(maxsize=1 << 12)
def _sums(ranks: tuple[int, ...], limit: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Per total ``0..limit``, the index sets of ``ranks`` (sorted ascending) adding up to it.

    One walk lists every total's sets (in lexicographic order, as a walk for one total would),
    so solving a table for every played rank walks its subsets once, not once per rank.
    """
    found: list[list[tuple[int, ...]]] = [[] for _ in range(limit + 1)]
    _walk(ranks, limit, found, 0, 0, [])
    return tuple([tuple(sets) for sets in found])


def _walk(
    ranks: tuple[int, ...],
    limit: int,
    found: list[list[tuple[int, ...]]],
    start: int,
    total: int,
    chosen: list[int],
) -> None:
    """Add to ``found`` the index sets that extend ``chosen`` (adding up to ``total``) with
    positions from ``start`` on. A module function, not a closure: a nested function calling
    itself is a reference cycle, left for the garbage collector on every call."""
    for i in range(start, len(ranks)):
        reached = total + ranks[i]
        if reached > limit:
            return  # sorted: nothing further fits
        chosen.append(i)
        found[reached].append(tuple(chosen))
        if reached < limit:
            _walk(ranks, limit, found, i + 1, reached, chosen)
        chosen.pop()


def _subsets(ranks: tuple[int, ...], target: int) -> tuple[tuple[int, ...], ...]:
    """Index sets of ``ranks`` (sorted ascending) whose ranks add up to ``target``."""
    if target <= 0:
        return ()
    limit = _SUMS_LIMIT if target <= _SUMS_LIMIT else max(target, 15)
    return _sums(ranks, limit)[target]


IndexSets = tuple[tuple[int, ...], ...]
"""Capture sets as positions in the table (sorted by :func:`table_key`)."""

_TOP_RANK: Final = 13


@lru_cache(maxsize=1 << 12)
def _singles(ranks: tuple[int, ...]) -> tuple[IndexSets, ...]:
    """Per rank ``0..13``, the positions of the cards of that rank in ``ranks``, each alone: one
    pass for every rank a table is solved for."""
    found: list[list[tuple[int, ...]]] = [[] for _ in range(_TOP_RANK + 1)]
    for i, rank in enumerate(ranks):
        found[rank].append((i,))
    return tuple([tuple(sets) for sets in found])


@lru_cache(maxsize=1 << 14)
def _differences(ranks: tuple[int, ...], target: int) -> IndexSets:
    """Index sets of two or more cards whose highest rank minus all the others is ``target``.

    ``ranks`` is sorted ascending, so the cards below position ``top`` are the ones that may be
    subtracted from it (a card of the top's own rank would leave nothing: ``target`` > 0).
    """
    found: list[tuple[int, ...]] = []
    for top, highest in enumerate(ranks):
        for rest in _subsets(ranks[:top], highest - target):
            found.append((*rest, top))
    return tuple(sorted(found))


_SIGN_OFFSET: Final = 1 << 10
"""Where signed sum 0 sits in :func:`_signed`'s bit set of reachable sums (above any table's
total: a whole 80-card deck of ranks 1..10 adds up to 440, a 52-card one to 364)."""


@lru_cache(maxsize=1 << 14)
def _signed(ranks: tuple[int, ...], target: int) -> IndexSets:
    """Index sets of two or more cards whose ranks, each added or subtracted, make ``target``.

    Every subset is walked once, carrying the signed sums its cards reach as a bit set (bit
    ``_SIGN_OFFSET + s`` for the sum ``s``): adding a card of rank ``r`` shifts the set both
    ways by ``r``.
    """
    found: list[tuple[int, ...]] = []
    n = len(ranks)
    goal = 1 << (_SIGN_OFFSET + target)

    def walk(start: int, reach: int, chosen: list[int]) -> None:
        for i in range(start, n):
            r = ranks[i]
            nxt = (reach << r) | (reach >> r)
            chosen.append(i)
            if len(chosen) > 1 and nxt & goal:
                found.append(tuple(chosen))
            walk(i + 1, nxt, chosen)
            chosen.pop()

    if target > 0:
        walk(0, 1 << _SIGN_OFFSET, [])
    return tuple(sorted(found))


@lru_cache(maxsize=1 << 14)
def _residues(ranks: tuple[int, ...], residue: int, modulus: int) -> IndexSets:
    """Non-empty index sets of ``ranks`` whose ranks add up to ``residue`` modulo ``modulus``."""
    found: list[tuple[int, ...]] = []
    n = len(ranks)

    def walk(start: int, total: int, chosen: list[int]) -> None:
        for i in range(start, n):
            chosen.append(i)
            value = (total + ranks[i]) % modulus
            if value == residue:
                found.append(tuple(chosen))
            walk(i + 1, value, chosen)
            chosen.pop()

    walk(0, 0, [])
    return tuple(found)


def table_ranks(table: tuple[Card, ...]) -> tuple[int, ...]:
    """The ranks of ``table``'s cards, in table order."""
    return tuple([_RANKS[c] for c in table])


def pick(table: tuple[Card, ...], index_sets: IndexSets) -> list[Capture]:
    """The table cards at each of ``index_sets``."""
    return [tuple([table[i] for i in s]) for s in index_sets]


class CaptureRule(Protocol):
    """One way of capturing; returns the capture sets it allows, or ``None`` when silent.

    Rules look at ranks only, so :meth:`index_sets` answers for a table's rank shape and the
    answer is cached; :meth:`captures` spells it in cards.
    """

    overriding: bool
    """When true and the rule applies, its sets are the only legal captures."""

    def index_sets(self, ranks: tuple[int, ...], rank: int) -> IndexSets | None:
        """Positions of the capture sets for a card of ``rank`` on a table of ``ranks``."""

    def captures(self, table: tuple[Card, ...], card: Card) -> list[Capture] | None:
        """The capture sets this rule allows for ``card`` on ``table`` (sorted by table_key)."""


class _RankRule:
    """Spells a rule's :meth:`index_sets` answer as table cards."""

    def index_sets(self, ranks: tuple[int, ...], rank: int) -> IndexSets | None:
        raise NotImplementedError

    def captures(self, table: tuple[Card, ...], card: Card) -> list[Capture] | None:
        """The capture sets this rule allows for ``card`` on ``table`` (sorted by table_key)."""
        sets = self.index_sets(table_ranks(table), _RANKS[card])
        return None if sets is None else pick(table, sets)


class EqualOrSum(_RankRule):
    """Take one equal card, or two or more cards adding up to the played card (all four rules
    texts)."""

    overriding = False

    def __init__(
        self, *, equal_precedence: bool, figures_only_figures: bool, figure: int = 8
    ) -> None:
        self.equal_precedence = equal_precedence
        self.figures_only_figures = figures_only_figures
        self.figure = figure
        """The lowest figure rank (8, or 11 in the 52-card deck)."""

    def index_sets(self, ranks: tuple[int, ...], rank: int) -> IndexSets | None:
        singles = _singles(ranks)[rank]
        if singles and self.equal_precedence:
            return singles
        if self.figures_only_figures and rank >= self.figure:
            return singles
        return tuple([s for s in _subsets(ranks, rank) if len(s) > 1]) + singles


class EqualOrDifference(_RankRule):
    """Scopa delle differenze (it.wikipedia): take one equal card, or two or more cards whose
    highest rank minus all the others is the played card's (fante and 2 are taken by a 6: 8 - 2 =
    6; ace, 7 and re by a 2: 10 - 7 - 1 = 2). With ``sums`` the ordinary sums are taken too (the
    hybrid Scopa inversa); with ``signed`` any mix of signs (5 + 3 - 2 = 6), which holds both."""

    overriding = False

    def __init__(
        self,
        *,
        sums: bool,
        equal_precedence: bool,
        figures_only_figures: bool,
        figure: int = 8,
        signed: bool = False,
    ) -> None:
        self.sums = sums
        self.signed = signed
        self.equal_precedence = equal_precedence
        self.figures_only_figures = figures_only_figures
        self.figure = figure
        """The lowest figure rank (8, or 11 in the 52-card deck)."""

    def index_sets(self, ranks: tuple[int, ...], rank: int) -> IndexSets | None:
        singles = tuple([(i,) for i, r in enumerate(ranks) if r == rank])
        if singles and self.equal_precedence:
            return singles
        if self.figures_only_figures and rank >= self.figure:
            return singles
        if self.signed:
            return _signed(ranks, rank) + singles
        sets = _differences(ranks, rank)
        if self.sums:
            sets += tuple([s for s in _subsets(ranks, rank) if len(s) > 1])
        return sets + singles


class ModularSum(_RankRule):
    """Modulo sette (it.wikipedia): ranks and sums count modulo ``modulus`` (7 is 0, fante 1,
    cavallo 2, re 3); a card takes any set of table cards adding up to its own value modulo 7, a
    single card of another rank with the same value included. With ``equal_precedence`` a table
    card of the played card's own rank must be taken alone ("dacă pe teren există o carte egală cu
    cea pe care o aruncăm, suntem obligați să luăm acea carte")."""

    overriding = False

    def __init__(self, modulus: int, *, equal_precedence: bool) -> None:
        self.modulus = modulus
        self.equal_precedence = equal_precedence

    def index_sets(self, ranks: tuple[int, ...], rank: int) -> IndexSets | None:
        if self.equal_precedence:
            singles = tuple([(i,) for i, r in enumerate(ranks) if r == rank])
            if singles:
                return singles
        return _residues(ranks, rank % self.modulus, self.modulus)


class SumWithPlayed(_RankRule):
    """Take cards that together with the played card add up to ``total`` (Scopa a 15 / a 11)."""

    overriding = False

    def __init__(self, total: int, *, fewest_cards: bool) -> None:
        self.total = total
        self.fewest_cards = fewest_cards

    def index_sets(self, ranks: tuple[int, ...], rank: int) -> IndexSets | None:
        sets = _subsets(ranks, self.total - rank)
        if self.fewest_cards and sets:
            fewest = min([len(s) for s in sets])
            sets = tuple([s for s in sets if len(s) == fewest])
        return sets


class AceTakesAll(_RankRule):
    """Asso piglia tutto: an ace takes the whole table (the Scopa page and it.wikipedia).

    With ``only_table_ace`` an ace played while aces lie on the table takes just one of them,
    or, with ``beside_table_ace`` (Cirulla's 15), any set that rule allows it instead. With
    ``beside_whole_table`` (``ace_takes_15``) an ace that takes the whole table may instead take
    any set that rule allows it.
    On an empty table the rule is silent: the ace is laid, unless the engine's
    ``ace_on_empty_table_sweeps`` option turns that play into a sweep.
    """

    overriding = True

    def __init__(
        self,
        *,
        only_table_ace: bool,
        beside_table_ace: CaptureRule | None = None,
        beside_whole_table: CaptureRule | None = None,
    ) -> None:
        self.only_table_ace = only_table_ace
        self.beside_table_ace = beside_table_ace
        self.beside_whole_table = beside_whole_table

    def index_sets(self, ranks: tuple[int, ...], rank: int) -> IndexSets | None:
        if rank != _ACE or not ranks:
            return None
        if self.only_table_ace:
            aces = tuple([(i,) for i, r in enumerate(ranks) if r == _ACE])
            if aces:
                beside = self.beside_table_ace
                more = None if beside is None else beside.index_sets(ranks, rank)
                return aces + tuple([s for s in more or () if s not in aces])
        whole = (tuple(range(len(ranks))),)
        beside = self.beside_whole_table
        if beside is None:
            return whole
        more = beside.index_sets(ranks, rank)
        return whole + tuple([s for s in more or () if s not in whole])


def _ordinary_rule(options: Options) -> CaptureRule | None:
    """The rule of the equal card and the combinations (sum, difference or modulo 7), if any."""
    if options.capture_15 and options.capture_15_only:
        return None
    if options.modular_captures:
        return ModularSum(7, equal_precedence=options.equal_card_precedence)
    arithmetic = options.capture_arithmetic
    if arithmetic is not CaptureArithmetic.SUM:
        return EqualOrDifference(
            sums=arithmetic is CaptureArithmetic.SUM_OR_DIFFERENCE,
            signed=arithmetic is CaptureArithmetic.SIGNED,
            equal_precedence=options.equal_card_precedence,
            figures_only_figures=options.figures_capture_only_figures,
            figure=figure_rank(options.deck_size),
        )
    return EqualOrSum(
        equal_precedence=options.equal_card_precedence,
        figures_only_figures=options.figures_capture_only_figures,
        figure=figure_rank(options.deck_size),
    )


@lru_cache(maxsize=64)
def capture_rules(options: Options) -> tuple[CaptureRule, ...]:
    """The capture rules a ruleset enables, overriding rules first."""
    rules: list[CaptureRule] = []
    if options.ace_takes_all:
        fifteen = SumWithPlayed(15, fewest_cards=options.capture_15_fewest)
        beside = fifteen if options.table_ace_15 and options.capture_15 else None
        instead = fifteen if options.ace_takes_15 and options.capture_15 else None
        rules.append(
            AceTakesAll(
                only_table_ace=options.ace_takes_only_table_ace,
                beside_table_ace=beside,
                beside_whole_table=instead,
            )
        )
    ordinary = _ordinary_rule(options)
    if ordinary is not None:
        rules.append(ordinary)
    if options.capture_15:
        rules.append(SumWithPlayed(15, fewest_cards=options.capture_15_fewest))
    if options.capture_11:
        rules.append(SumWithPlayed(11, fewest_cards=False))
    optional = options.optional_captures
    if optional is not OptionalCaptures.NONE:
        figures = optional is OptionalCaptures.FIGURES
        lowest = figure_rank(options.deck_size) if figures else 1
        return (MayDecline(tuple(rules), lowest, equal_only=figures),)
    return tuple(rules)


class MayDecline(_RankRule):
    """Capturing made optional (Cicera): ``rules``' sets, plus the empty set -- the card laid,
    taking nothing -- for a card of rank ``lowest`` or more that has sets (``lowest`` is the
    deck's lowest figure for regoledelgioco's figures, 1 for every card). With ``equal_only``
    (regoledelgioco's figures) the card may decline only when each of its sets is one equal
    card: a figure declines to take an equal figure, never a sum (in Scopa a fante, 8, must
    still take 5 and 3)."""

    overriding = True

    def __init__(
        self, rules: tuple[CaptureRule, ...], lowest: int, *, equal_only: bool = False
    ) -> None:
        self.rules = rules
        self.lowest = lowest
        self.equal_only = equal_only

    def index_sets(self, ranks: tuple[int, ...], rank: int) -> IndexSets | None:
        sets = _combine(self.rules, ranks, rank)
        if not sets or rank < self.lowest:
            return sets
        if self.equal_only:
            for s in sets:
                if len(s) != 1 or ranks[s[0]] != rank:
                    return sets
        return (*sets, ())


def _combine(rules: tuple[CaptureRule, ...], ranks: tuple[int, ...], rank: int) -> IndexSets:
    """Ask ``rules`` in order: an applying overriding rule wins, else the union of their sets."""
    answers: list[IndexSets] = []
    for rule in rules:
        sets = rule.index_sets(ranks, rank)
        if sets is None:
            continue
        if rule.overriding:
            return sets
        answers.append(sets)
    if len(answers) == 1:
        sets = answers[0]
        if len(sets) < 2 or len(set(sets)) == len(sets):
            return sets  # one rule's answer, no set twice: the union is itself
    found: list[tuple[int, ...]] = []
    for sets in answers:
        for s in sets:
            if s not in found:
                found.append(s)
    return tuple(found)


def _by_rank(
    rules: tuple[CaptureRule, ...], ranks: tuple[int, ...], top: int = 10
) -> tuple[IndexSets, ...]:
    return ((),) + tuple([_combine(rules, ranks, rank) for rank in range(1, top + 1)])


SHAPE_BITS: Final[tuple[int, ...]] = tuple([1 << (3 * (_RANKS[c] - 1)) for c in range(MAX_CARD)])
"""Per card, its rank's unit in a table's shape key (3 bits per rank: at most 4 cards a rank,
as in the 40- and 52-card decks)."""

WIDE_SHAPE_BITS: Final[tuple[int, ...]] = tuple(
    [1 << (4 * (_RANKS[c] - 1)) for c in range(MAX_CARD)]
)
"""The shape units of the 80-card deck (4 bits per rank: 8 cards a rank)."""


_MAX_SHAPES: Final = 1 << 16

_TWINS: Final[tuple[Card, ...]] = tuple(
    [c + COPY_STRIDE if c < COPY_STRIDE else c - COPY_STRIDE for c in range(MAX_CARD)]
)
"""Per card, the other copy of its suit and rank (the 80-card deck's two decks)."""


class TwinsOnlySweep:
    """Marescialla's two decks (it.wikipedia): "Aceeași carte nu poate lua aceeași carte [...] decât
    pentru a face o mătură" -- a card takes its own twin (the other copy of its suit and rank)
    only when that takes the whole table. A set holding the twin is dropped otherwise; a card
    left with no set is laid."""

    def __call__(self, table: tuple[Card, ...], card: Card, sets: IndexSets) -> IndexSets:
        """``sets`` (positions in ``table``) without those that take ``card``'s twin short of
        the whole table."""
        twin = _TWINS[card]
        if not sets or twin not in table:  # most plays: nothing to drop
            return sets
        at = table.index(twin)  # a table holds each card once
        whole = len(table)
        kept = [s for s in sets if len(s) == whole or at not in s]
        return sets if len(kept) == len(sets) else tuple(kept)


CardFilter = TwinsOnlySweep
"""A rule that narrows a card's capture sets by the card itself, not only its rank."""


class CaptureTable:
    """Every legal capture of one ruleset's rules, per table rank multiset (filled lazily).

    Tables are sorted by :func:`table_key`, so a table's rank multiset (packed into one int, the
    shape) fixes its ranks in order and the capture positions; each shape is solved once.
    """

    def __init__(
        self,
        rules: tuple[CaptureRule, ...],
        deck_size: int = 40,
        card_filter: CardFilter | None = None,
    ) -> None:
        self.rules = rules
        self.card_filter = card_filter
        """Narrows one card's sets by the card itself (two decks' twins); None: nothing to do.
        Whoever reads ``by_rank(table)[rank]`` for a card passes it through this."""
        self.solved: dict[int, tuple[IndexSets, ...]] = {}
        """The shapes solved so far (read-only outside this class)."""
        self.top = figure_rank(deck_size) + 2
        """The highest rank of the deck (10, or 13 in the 52-card deck)."""
        self.shape_bits = WIDE_SHAPE_BITS if deck_size == 80 else SHAPE_BITS
        """Per card, its unit in a table's shape key (:data:`SHAPE_BITS` unless two decks)."""
        self.last: tuple[tuple[Card, ...], tuple[IndexSets, ...]] = ((), self.by_shape(0, ()))
        """The table asked last and its answer: a move is picked and then applied on the same
        table object, so the second question is answered by identity. One attribute (set in one
        store), so a reader never pairs one table with another's answer."""

    def by_rank(self, table: tuple[Card, ...]) -> tuple[IndexSets, ...]:
        """Every legal capture, as table positions, by played rank (entry 0 empty)."""
        last = self.last
        if last[0] is table:
            return last[1]
        shape = 0
        bits = self.shape_bits
        for card in table:
            shape += bits[card]
        found = self.solved.get(shape)
        if found is None:
            found = self.by_shape(shape, table)
        self.last = (table, found)
        return found

    def by_shape(self, shape: int, table: Sequence[Card]) -> tuple[IndexSets, ...]:
        """:meth:`by_rank` for a table whose shape (the sum of its cards' ``SHAPE_BITS``) is known.

        The rollout path keeps its table's shape up to date play by play instead of summing it.
        """
        found = self.solved.get(shape)
        if found is None:
            if len(self.solved) >= _MAX_SHAPES:
                self.solved.clear()
            found = _by_rank(self.rules, tuple([_RANKS[c] for c in table]), self.top)
            self.solved[shape] = found
        return found

    def captures(self, table: tuple[Card, ...], card: Card) -> list[Capture]:
        """Every legal capture for ``card`` on ``table`` (sorted by :func:`table_key`)."""
        return pick(table, self.card_sets(table, card))

    def card_sets(self, table: tuple[Card, ...], card: Card) -> IndexSets:
        """Every legal capture for ``card`` on ``table``, as table positions."""
        sets = self.by_rank(table)[_RANKS[card]]
        only = self.card_filter
        return sets if only is None else only(table, card, sets)


_TABLES: Final[ByIdentity[Options, CaptureTable]] = ByIdentity(4096)
"""Capture tables by their options object (a game's is one object from move to move)."""


def capture_table(options: Options) -> CaptureTable:
    """The :class:`CaptureTable` of ``options``, cached by identity (checked with ``is``)."""
    found = _TABLES.get(options)
    if found is not None:
        return found
    only = TwinsOnlySweep() if options.twin_captures else None
    return _TABLES.put(options, CaptureTable(capture_rules(options), options.deck_size, only))


def capture_options(options: Options, table: tuple[Card, ...], card: Card) -> list[Capture]:
    """Every legal capture for ``card`` on ``table``; empty when the card must be laid.

    ``table`` is sorted by :func:`table_key`, as :attr:`MatchState.table` always is.
    """
    return capture_table(options).captures(table, card)
