"""Scoring of one hand (smazzata) as a list of independent scoring rules.

Every line of the score sheet is produced by one :class:`ScoringRule`; :func:`scoring_rules`
picks the rules that an :class:`~scopa.rules._options.Options` value enables, and
:func:`score_hand` runs them over what each side gathered. A new variant's scoring is a new
rule plus a line in :func:`scoring_rules`. The components follow docs/rules.md ("Spazzino
specials", "Spatola specials", "Scopa").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from ._cards import _BASES, _SUIT_NUMS, COPY_STRIDE, MAX_CARD, Card, Suit, card_of, rank_of, suit_of
from ._options import MazzoTies, Options, PrimieraMethod
from ._specials import (
    CLAIM_LINES,
    DECLARATION_RULES,
    SPECIAL_RULES,
    TABLE_BONUS_RULES,
    DeclarationRule,
    PenaltyLine,
    SpecialRule,
    TableBonusRule,
    claim_lines,
    declaration_rules,
    special_rules,
    table_bonus_rules,
)

__all__ = [
    "CardRule",
    "Component",
    "CountRule",
    "HandScore",
    "MostRule",
    "NapolaRule",
    "ScoringRule",
    "SideTally",
    "TieBreakRule",
    "hand_points_bound",
    "napola_length",
    "primiera_value",
    "score_hand",
    "scoring_rules",
]

SETTEBELLO: Final[Card] = card_of(Suit.DENARI, 7)
RE_BELLO: Final[Card] = card_of(Suit.DENARI, 10)
ROSMARINO: Final[Card] = card_of(Suit.SPADE, 8)
TWO_OF_SPADE: Final[Card] = card_of(Suit.SPADE, 2)
TEN_OF_DENARI: Final[Card] = card_of(Suit.DENARI, 10)
"""The 52-card deck's 10 of denari (the int of the 40-card deck's re bello)."""
FANTE_OF_DENARI_52: Final[Card] = card_of(Suit.DENARI, 11)
"""The 52-card deck's fante of denari."""
TWO_OF_DENARI: Final[Card] = card_of(Suit.DENARI, 2)

_STANDARD_VALUES: Final[dict[int, float]] = {
    1: 16, 2: 12, 3: 13, 4: 14, 5: 15, 6: 18, 7: 21, 8: 10, 9: 10, 10: 10, 11: 10, 12: 10, 13: 10,
}  # fmt: skip
_VENETO_VALUES: Final[dict[int, float]] = {
    1: 5.5, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 0.5, 9: 0.5, 10: 0.5, 11: 0.5, 12: 0.5, 13: 0.5,
}  # fmt: skip
_STANDARD_BY_CARD: Final[tuple[float, ...]] = tuple(
    _STANDARD_VALUES[rank_of(c)] for c in range(MAX_CARD)
)
_VENETO_BY_CARD: Final[tuple[float, ...]] = tuple(
    _VENETO_VALUES[rank_of(c)] for c in range(MAX_CARD)
)


@dataclass(frozen=True, slots=True)
class SideTally:
    """What one side (team or single player) gathered in one hand."""

    cards: tuple[Card, ...]
    """Every card the side captured, the table's leftovers included."""
    sweeps: int = 0
    """Sweeps scored (already filtered by the engine, e.g. none on the last card)."""
    specials: tuple[tuple[str, int], ...] = ()
    """Points of special plays and declarations by name (``"picula"``, ``"bagher"``, ...),
    already computed play by play by the engine's special rules."""

    def special(self, name: str) -> int:
        """The points of the special ``name`` (0 when none)."""
        for key, points in self.specials:
            if key == name:
                return points
        return 0


@dataclass(frozen=True, slots=True)
class Component:
    """One line of the score sheet: points and the detail they come from, per side."""

    name: str
    """Stable id, e.g. ``"cards"``, ``"primiera"``, ``"napola_spade"``."""
    points: tuple[int, ...]
    values: tuple[float, ...]
    """Per side: card count, denari count, primiera value, napola run length, sweeps, ..."""


@dataclass(frozen=True, slots=True)
class HandScore:
    """The score sheet of one hand."""

    components: tuple[Component, ...]
    totals: tuple[int, ...]
    """Points per side: the sum of every component's points."""
    napoleone: tuple[bool, ...]
    """Per side: it took all ten denari (the instant win of ``napoleone_wins``)."""


class ScoringRule(Protocol):
    """One line of the score sheet."""

    @property
    def name(self) -> str:
        """The stable id of the component this rule produces."""
        ...

    def score(self, tallies: Sequence[SideTally], options: Options) -> Component:
        """Score the hand's tallies, one per side."""
        ...

    def max_points(self, options: Options, plays_per_hand: int) -> int:
        """An upper bound on the points this rule gives one side in one hand."""
        ...


# --- measures -----------------------------------------------------------------------------


def primiera_value(
    cards: Iterable[Card], method: PrimieraMethod = PrimieraMethod.STANDARD
) -> float:
    """The primiera value of ``cards``; 0 when a suit is missing (STANDARD and VENETO).

    STANDARD sums the best card of each suit, 7=21 6=18 A=16 5=15 4=14 3=13 2=12 figures=10
    (at most 84); VENETO the same with face values, ace 5.5, figures 0.5 (at most 28).
    MILAN compares the number of 7s, then of 6s, then of aces: the value is
    ``100 * sevens + 10 * sixes + aces`` (each count is 0..4, so comparing values compares
    the counts in that order); no suit is required.
    """
    held = tuple(cards)
    if method is PrimieraMethod.MILAN:
        ranks = [rank_of(c) for c in held]
        return float(100 * ranks.count(7) + 10 * ranks.count(6) + ranks.count(1))
    values = _VENETO_BY_CARD if method is PrimieraMethod.VENETO else _STANDARD_BY_CARD
    best = [0.0, 0.0, 0.0, 0.0]  # per suit; every card is worth more than 0
    suits = _SUIT_NUMS
    for card in held:
        value = values[card]
        suit = suits[card]
        if value > best[suit]:  # noqa: PLR1730 - a max() call per card is the hot spot
            best[suit] = value
    if 0.0 in best:
        return 0.0
    return float(sum(best))


def napola_length(cards: Iterable[Card], suit: Suit, top: int = 0) -> int:
    """The napola of ``suit`` in ``cards``: 0 without its ace, 2 and 3, else the run's length,
    counted up to rank ``top`` at most (0: no limit; Cirulla's piccola stops at 7).

    With two decks (80 cards) a second napola counts too: the run of ranks held twice.
    """
    counts = [0] * 14
    for c in cards:
        if _SUIT_NUMS[c] == suit:
            counts[rank_of(c)] += 1
    limit = top if top else 13
    total = 0
    for copies in (1, 2):
        if min(counts[1:4]) < copies:
            break
        length = 3
        while length < limit and counts[length + 1] >= copies:
            length += 1
        total += length
    return total


def _suit_count(suit: Suit) -> Callable[[SideTally, Options], float]:
    def measure(tally: SideTally, options: Options) -> float:
        return float(len([c for c in tally.cards if _SUIT_NUMS[c] == suit]))

    return measure


def _card_count(tally: SideTally, options: Options) -> float:
    return float(len(tally.cards))


def _primiera(tally: SideTally, options: Options) -> float:
    return primiera_value(tally.cards, options.primiera_method)


def _most(name: str, points: int, values: tuple[float, ...], options: Options) -> Component:
    """The points to the side with the highest positive value; a tie follows ``mazzo_ties``."""
    top = 0.0
    for value in values:
        if value > top:  # noqa: PLR1730 - no max() call: this runs for every hand
            top = value
    if top <= 0:
        return Component(name, tuple([0 for _ in values]), values)
    leaders = len([v for v in values if v == top])
    if leaders > 1:
        ties = options.mazzo_ties
        if ties is MazzoTies.SPLIT:
            points = max(1, points // leaders)
        elif ties is not MazzoTies.ALL:
            points = 0
    return Component(name, tuple([points if v == top else 0 for v in values]), values)


# --- rules --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MostRule:
    """Points to the side with the highest measure; ties follow ``options.mazzo_ties``.

    A side whose measure is 0 (e.g. a primiera without all four suits) never wins.
    """

    name: str
    points: Callable[[Options], int]
    measure: Callable[[SideTally, Options], float]

    def score(self, tallies: Sequence[SideTally], options: Options) -> Component:
        """Give the points to the unique leader, or split / withhold them on a tie."""
        values = tuple([self.measure(t, options) for t in tallies])
        return _most(self.name, self.points(options), values, options)

    def max_points(self, options: Options, plays_per_hand: int) -> int:
        """The configured points (a split share is never larger)."""
        return self.points(options)


@dataclass(frozen=True, slots=True)
class CardRule:
    """Points to the side holding one card (settebello, re bello, rosmarino, 2 of spade)."""

    name: str
    card: Card
    points: Callable[[Options], int]

    def score(self, tallies: Sequence[SideTally], options: Options) -> Component:
        """Give the points to the holder; the value is the copies held (1 or 0; 2 with two
        decks), each scoring the points."""
        card = self.card
        held = tuple([float(_held(t.cards, card)) for t in tallies])
        points = self.points(options)
        return Component(self.name, tuple([int(h) * points for h in held]), held)

    def max_points(self, options: Options, plays_per_hand: int) -> int:
        """The configured points, per copy of the card in the deck."""
        return self.points(options) * _copies(options)


@dataclass(frozen=True, slots=True)
class CountRule:
    """Points that each side earns by itself from a count (sweeps, picule, bagher, ...)."""

    name: str
    count: Callable[[SideTally], int]
    points: Callable[[int, Options], int]
    """Points for a count."""
    bound: Callable[[Options, int], int]
    """Upper bound on one side's points, from the options and the plays per hand."""

    def score(self, tallies: Sequence[SideTally], options: Options) -> Component:
        """Score every side's count independently."""
        counts = [self.count(t) for t in tallies]
        return Component(
            self.name,
            tuple([self.points(n, options) for n in counts]),
            tuple([float(n) for n in counts]),
        )

    def max_points(self, options: Options, plays_per_hand: int) -> int:
        """The rule's own bound."""
        return self.bound(options, plays_per_hand)


@dataclass(frozen=True, slots=True)
class NapolaRule:
    """The napola of a suit: ace, 2 and 3 score 3, plus 1 per next rank in an unbroken run, up
    to rank ``options.napola_top`` (0: the whole suit)."""

    name: str
    suit: Suit

    def score(self, tallies: Sequence[SideTally], options: Options) -> Component:
        """Each side scores its own run length (only one side can hold ace, 2 and 3)."""
        top = options.napola_top
        lengths = tuple([napola_length(t.cards, self.suit, top) for t in tallies])
        return Component(self.name, lengths, tuple([float(n) for n in lengths]))

    def max_points(self, options: Options, plays_per_hand: int) -> int:
        """Every rank of the suit up to ``napola_top`` (13 in the 52-card deck), per copy."""
        top = options.napola_top or (13 if options.deck_size == 52 else 10)
        return top * _copies(options)


def _copies(options: Options) -> int:
    """Copies of each card in ``options``' deck: 2 with two decks (80 cards), else 1."""
    return 2 if options.deck_size == 80 else 1


def _held(cards: tuple[Card, ...], card: Card) -> int:
    """How many copies of ``card`` (a first copy) ``cards`` hold: 0, 1, or 2 with two decks."""
    return int(card in cards) + int(card + COPY_STRIDE in cards)


@dataclass(frozen=True, slots=True)
class TieBreakRule:
    """A point to the side holding ``card`` among the sides tied at the top of a count, when
    two or more tie there (FRAC's single-hand game, it.wikipedia: an 8-8 goes to the side that took
    the re of denari, "which in practice is worth two points")."""

    name: str
    count: Callable[[SideTally], int]
    card: Card

    def score(self, tallies: Sequence[SideTally], options: Options) -> Component:
        """1 to each tied leader holding the card (the value says who got it)."""
        counts = [self.count(t) for t in tallies]
        top = max(counts)
        tied = counts.count(top) > 1
        won = tuple(
            [
                1 if tied and n == top and self.card in t.cards else 0
                for n, t in zip(counts, tallies, strict=True)
            ]
        )
        return Component(self.name, won, tuple([float(w) for w in won]))

    def max_points(self, options: Options, plays_per_hand: int) -> int:
        """The one point of the tie-break."""
        return 1


def _sevens(tally: SideTally) -> int:
    return sum(1 for c in tally.cards if rank_of(c) == 7)


def _denari_but_settebello(tally: SideTally) -> int:
    return sum(1 for c in tally.cards if suit_of(c) == Suit.DENARI and _BASES[c] != SETTEBELLO)


MARESCIALLO: Final[Card] = card_of(Suit.SPADE, 10)
FANTE_OF_DENARI: Final[Card] = card_of(Suit.DENARI, 8)


def _both(first: Card, second: Card) -> Callable[[SideTally], int]:
    """Pairs of ``first`` and ``second`` held (0 or 1; up to 2 with two decks)."""

    def count(tally: SideTally) -> int:
        return min(_held(tally.cards, first), _held(tally.cards, second))

    return count


_DENARI_FIGURES: Final = frozenset(card_of(Suit.DENARI, rank) for rank in (8, 9, 10))
_FRAC_RANKS: Final = frozenset((1, 8, 9, 10))


def _denari_figures(tally: SideTally) -> int:
    return sum(1 for c in tally.cards if _BASES[c] in _DENARI_FIGURES)


def _frac_cards(tally: SideTally) -> int:
    return sum(1 for c in tally.cards if rank_of(c) in _FRAC_RANKS)


def _one(options: Options) -> int:
    return 1


_SWEEPS: Final = CountRule(
    "sweeps",
    lambda t: t.sweeps,
    lambda n, o: n * o.sweep_points,
    lambda o, plays: plays * o.sweep_points,
)
_CARDS: Final = MostRule("cards", lambda o: o.cards_points, _card_count)
_DENARI: Final = MostRule("denari", lambda o: o.denari_points, _suit_count(Suit.DENARI))
_SPADE: Final = MostRule("spade", lambda o: o.spade_points, _suit_count(Suit.SPADE))
_PRIMIERA: Final = MostRule("primiera", lambda o: o.primiera_points, _primiera)
_SETTEBELLO: Final = CardRule("settebello", SETTEBELLO, lambda o: o.settebello_points)
_RE_BELLO: Final = CardRule("re_bello", RE_BELLO, _one)
_ROSMARINO: Final = CardRule("rosmarino", ROSMARINO, _one)
_TWO_OF_SPADE: Final = CardRule("two_of_spade", TWO_OF_SPADE, _one)
_TEN_OF_DENARI: Final = CardRule("ten_of_denari", TEN_OF_DENARI, _one)
_FANTE_OF_DENARI_52: Final = CardRule("fante_of_denari", FANTE_OF_DENARI_52, _one)
_TWO_OF_DENARI: Final = CardRule("two_of_denari", TWO_OF_DENARI, _one)
_DENARI_EACH: Final = CountRule(
    "denari_each", _denari_but_settebello, lambda n, o: n, lambda o, plays: 9 * _copies(o)
)
_SETTANTA: Final = CountRule(
    "settanta", _sevens, lambda n, o: 1 if n == 4 else 0, lambda o, plays: 1
)
_DENARI_FIGURES_RULE: Final = CountRule(
    "denari_figures", _denari_figures, lambda n, o: n, lambda o, plays: 3 * _copies(o)
)
_MARESCIALLO: Final = CountRule(
    "maresciallo", lambda t: _held(t.cards, MARESCIALLO), lambda n, o: -n, lambda o, plays: 0
)
_POLACCA: Final = CountRule(
    "polacca", _both(FANTE_OF_DENARI, SETTEBELLO), lambda n, o: n, lambda o, plays: _copies(o)
)
_SAPONARO: Final = CountRule(
    "saponaro", _both(ROSMARINO, MARESCIALLO), lambda n, o: -n, lambda o, plays: 0
)
_GRANDE: Final = CountRule(
    "grande",
    lambda t: int({_BASES[c] for c in t.cards} >= _DENARI_FIGURES),
    lambda n, o: 5 * n,
    lambda o, plays: 5,
)
_FRAC: Final = CountRule("frac", _frac_cards, lambda n, o: n, lambda o, plays: 16 * _copies(o))
_FRAC_TIE: Final = TieBreakRule("frac_tie", _frac_cards, RE_BELLO)
_NAPOLA_DENARI: Final = NapolaRule("napola_denari", Suit.DENARI)
_NAPOLA_SPADE: Final = NapolaRule("napola_spade", Suit.SPADE)


def _special_line(rule: SpecialRule | DeclarationRule | PenaltyLine | TableBonusRule) -> CountRule:
    """The score-sheet line of a special or declaration rule: its points, side by side."""
    name = rule.name
    return CountRule(
        rule.line,
        lambda t: t.special(name),
        lambda n, o: n,
        lambda o, plays: rule.max_points(plays),
    )


_SPECIAL_LINES: Final[dict[str, CountRule]] = {
    **{rule.name: _special_line(rule) for _, rule in SPECIAL_RULES + DECLARATION_RULES},
    **{line.name: _special_line(line) for line in CLAIM_LINES},
    **{rule.name: _special_line(rule) for _, rule in TABLE_BONUS_RULES},
}
"""One line per special and declaration rule, built once (rules are compared by identity)."""


# --- the score_hand fast path: plain functions for the common rules ----------------------

Scorer = Callable[[Sequence[SideTally], Options], Component]
"""What :func:`score_hand` runs for one rule: the rule's ``score`` or an equal plain function."""

_DENARI_SUIT: Final = int(Suit.DENARI)
_SPADE_SUIT: Final = int(Suit.SPADE)
_ALL_RANKS: Final = (1 << 10) - 1


def _in_suit(cards: tuple[Card, ...], suit: int) -> int:
    """How many of ``cards`` are of ``suit``."""
    n = 0
    suits = _SUIT_NUMS
    for card in cards:
        if suits[card] == suit:
            n += 1
    return n


_RANK_BITS: Final[tuple[int, ...]] = tuple([1 << (rank_of(c) - 1) for c in range(MAX_CARD)])


def _has_napoleone(cards: tuple[Card, ...]) -> bool:
    """Whether ``cards`` hold the ten denari ace..10, either copy of each with two decks (with
    one deck: ``napola_length(cards, DENARI) >= 10``). A plain loop: compiled, it beats building
    a set of the pile (callgrind)."""
    ranks = 0
    suits = _SUIT_NUMS
    for card in cards:
        if suits[card] == _DENARI_SUIT:
            ranks |= _RANK_BITS[card]
    return ranks & _ALL_RANKS == _ALL_RANKS


def _score_sweeps(tallies: Sequence[SideTally], options: Options) -> Component:
    counts = [t.sweeps for t in tallies]
    per = options.sweep_points
    return Component("sweeps", tuple([n * per for n in counts]), tuple([float(n) for n in counts]))


def _score_cards(tallies: Sequence[SideTally], options: Options) -> Component:
    values = tuple([float(len(t.cards)) for t in tallies])
    return _most("cards", options.cards_points, values, options)


def _score_denari(tallies: Sequence[SideTally], options: Options) -> Component:
    values = tuple([float(_in_suit(t.cards, _DENARI_SUIT)) for t in tallies])
    return _most("denari", options.denari_points, values, options)


def _score_spade(tallies: Sequence[SideTally], options: Options) -> Component:
    values = tuple([float(_in_suit(t.cards, _SPADE_SUIT)) for t in tallies])
    return _most("spade", options.spade_points, values, options)


def _score_primiera(tallies: Sequence[SideTally], options: Options) -> Component:
    method = options.primiera_method
    values = tuple([primiera_value(t.cards, method) for t in tallies])
    return _most("primiera", options.primiera_points, values, options)


def _score_settebello(tallies: Sequence[SideTally], options: Options) -> Component:
    held = tuple([1.0 if SETTEBELLO in t.cards else 0.0 for t in tallies])
    points = options.settebello_points
    return Component("settebello", tuple([int(h) * points for h in held]), held)


_FAST_SCORERS: Final[tuple[tuple[ScoringRule, Scorer], ...]] = (
    (_SWEEPS, _score_sweeps),
    (_CARDS, _score_cards),
    (_DENARI, _score_denari),
    (_SPADE, _score_spade),
    (_PRIMIERA, _score_primiera),
    (_SETTEBELLO, _score_settebello),
)
"""Rules whose ``score`` has a plain-function twin (tests check they agree)."""


def _scorer(rule: ScoringRule) -> Scorer:
    for known, scorer in _FAST_SCORERS:
        if known is rule:
            return scorer
    return rule.score


_RULES: Final[dict[int, tuple[Options, tuple[ScoringRule, ...], tuple[Scorer, ...]]]] = {}
_MAX_RULES: Final = 256


def _plan(options: Options) -> tuple[Options, tuple[ScoringRule, ...], tuple[Scorer, ...]]:
    """``options``' rules and their scorers, cached by identity (checked with ``is``)."""
    entry = _RULES.get(id(options))
    if entry is not None and entry[0] is options:
        return entry
    if len(_RULES) >= _MAX_RULES:
        _RULES.clear()
    rules = _enabled_rules(options)
    if options.deck_size == 80:
        entry = (options, rules, tuple([rule.score for rule in rules]))
    else:
        entry = (options, rules, tuple([_scorer(rule) for rule in rules]))
    _RULES[id(options)] = entry
    return entry


def scoring_rules(options: Options) -> tuple[ScoringRule, ...]:
    """The rules ``options`` enable, in score-sheet order; rules worth 0 points are left out.

    Worked out once per :class:`Options` object (cached by identity, checked with ``is``).
    """
    return _plan(options)[1]


def _enabled_rules(options: Options) -> tuple[ScoringRule, ...]:
    candidates: tuple[tuple[ScoringRule, bool], ...] = (
        (_SWEEPS, options.sweep_points > 0),
        (_CARDS, options.cards_points > 0),
        (_DENARI, options.denari_points > 0 and not options.denari_each),
        (_SPADE, options.spade_points > 0),
        (_PRIMIERA, options.primiera_points > 0),
        (_SETTEBELLO, options.settebello_points > 0),
        (_RE_BELLO, options.re_bello),
        (_ROSMARINO, options.rosmarino),
        (_TWO_OF_SPADE, options.two_of_spade),
        (_TEN_OF_DENARI, options.denari_ten_fante),
        (_FANTE_OF_DENARI_52, options.denari_ten_fante),
        (_TWO_OF_DENARI, options.two_of_denari),
        (_DENARI_EACH, options.denari_each),
        (_SETTANTA, options.settanta),
        (_DENARI_FIGURES_RULE, options.denari_figures),
        (_FRAC, options.frac_points),
        (_FRAC_TIE, options.frac_tie_re_bello),
        (_GRANDE, options.grande),
        (_MARESCIALLO, options.maresciallo),
        (_POLACCA, options.polacca),
        (_SAPONARO, options.saponaro),
        (_NAPOLA_DENARI, options.napola_denari),
        (_NAPOLA_SPADE, options.napola_spade),
    )
    specials = special_rules(options) + declaration_rules(options) + claim_lines(options)
    lines = tuple([_SPECIAL_LINES[rule.name] for rule in specials])
    lines += tuple([_SPECIAL_LINES[rule.name] for rule in table_bonus_rules(options)])
    return tuple(rule for rule, enabled in candidates if enabled) + lines


def score_hand(options: Options, tallies: Sequence[SideTally]) -> HandScore:
    """Score one hand: one tally per side (``options.sides`` of them), in side order."""
    if len(tallies) != options.sides:
        raise ValueError(f"expected {options.sides} tallies, got {len(tallies)}")
    components = tuple([score(tallies, options) for score in _plan(options)[2]])
    totals = tuple([sum([c.points[i] for c in components]) for i in range(len(tallies))])
    napoleone = tuple([_has_napoleone(t.cards) for t in tallies])
    return HandScore(components, totals, napoleone)


def hand_points_bound(options: Options, plays_per_hand: int) -> int:
    """An upper bound on the points one side can score in one hand of ``plays_per_hand`` plays."""
    return sum(rule.max_points(options, plays_per_hand) for rule in scoring_rules(options))
