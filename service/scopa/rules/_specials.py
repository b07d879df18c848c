"""Special plays and declarations as rules a ruleset lists, like the capture and scoring rules.

A :class:`SpecialRule` looks at one capture and says how many points it scores (0: none); a
:class:`DeclarationRule` says which declarations a seat may make from its hand and what each
scores. The engine keeps what they score per side in one generic map (``MatchState.specials``:
name -> points), reports it in the events (``CardPlayed.specials``, ``Declared``) and hands it to
the scoring (``SideTally.specials``), where each rule has its own line of the score sheet. A new
special is one rule class here, one entry in :data:`SPECIAL_RULES` or
:data:`DECLARATION_RULES` (keyed by the option that enables it) and that option in a preset.
"""

from __future__ import annotations

from typing import Final, Protocol

from ._cards import _BASES, _RANKS, _SUITS, Card
from ._options import AcesOnTable, ClaimAnswers, Options

__all__ = [
    "CLAIM_LINES",
    "DECLARATION_RULES",
    "SPECIAL_RULES",
    "STEAL_RULES",
    "TABLE_BONUS_RULES",
    "Accusa",
    "Bagher",
    "CirullaDeclaration",
    "ClaimRule",
    "DealerTableBonus",
    "DeclarationRule",
    "MarescialloSweep",
    "ModularSweep",
    "PenaltyLine",
    "Picula",
    "PileSteal",
    "SpecialRule",
    "Specials",
    "StealRule",
    "SuitCapture",
    "TableBonusRule",
    "ThreeCardCapture",
    "TiFidi",
    "TraditionalSweep",
    "Tuzzulicchio",
    "claim_lines",
    "claim_rules",
    "declaration_rules",
    "special_rules",
    "steal_rules",
    "table_bonus_rules",
]

Specials = tuple[tuple[str, int], ...]
"""Points by special name, in rule order, names with 0 points left out."""


class SpecialRule(Protocol):
    """A capture that scores extra points (picula, bagher, ...)."""

    @property
    def name(self) -> str:
        """Stable id in events and state, e.g. ``"picula"``."""
        ...

    @property
    def line(self) -> str:
        """The score-sheet line it adds up into, e.g. ``"picule"``."""
        ...

    def points(self, card: Card, capture: tuple[Card, ...], last_laid: Card, sweep: bool) -> int:
        """Points of playing ``card`` to take ``capture`` (``last_laid``: the card just laid;
        ``sweep``: the capture is a sweep that counts)."""
        ...

    def on_last_card(self, options: Options) -> bool:
        """Whether the rule also scores the hand's final play."""
        ...

    def keeps_laid_card(self, options: Options) -> bool:
        """Whether the card laid before a mid-hand re-deal still counts as just laid after it."""
        ...

    def max_points(self, plays_per_hand: int) -> int:
        """An upper bound on what one side scores with this rule in one hand."""
        ...


class DeclarationRule(Protocol):
    """A combination a seat may declare from its hand (an accusa)."""

    @property
    def name(self) -> str:
        """Stable id in actions, events and state, e.g. ``"accusa"``."""
        ...

    @property
    def line(self) -> str:
        """The score-sheet line it adds up into, e.g. ``"accuse"``."""
        ...

    def declarations(
        self, hand: tuple[Card, ...], options: Options
    ) -> list[tuple[tuple[Card, ...], int]]:
        """What ``hand`` may declare, as (cards shown, points); empty when nothing.

        Asked only on the seat's turn, before it plays a card of the deal, once per deal.
        """
        ...

    def max_points(self, plays_per_hand: int) -> int:
        """An upper bound on what one side scores with this rule in one hand."""
        ...


class Picula:
    """Picula / piccola, 1 point: take with an equal card exactly the card just laid (Lo Spazzino,
    La Spatola)."""

    name: Final = "picula"
    line: Final = "picule"

    def points(self, card: Card, capture: tuple[Card, ...], last_laid: Card, sweep: bool) -> int:
        """1 when ``capture`` is the one card just laid and ``card`` is of its rank."""
        if len(capture) == 1 and capture[0] == last_laid and _RANKS[capture[0]] == _RANKS[card]:
            return 1
        return 0

    def on_last_card(self, options: Options) -> bool:
        """Not on the hand's final play (Lo Spazzino) unless ``picula_on_last_card`` or
        ``specials_on_last_card``."""
        return options.specials_on_last_card or options.picula_on_last_card

    def keeps_laid_card(self, options: Options) -> bool:
        """Lo Spazzino's reading by default; ``picula_after_redeal=false`` is Cuperativa's."""
        return options.picula_after_redeal

    def max_points(self, plays_per_hand: int) -> int:
        """One per play."""
        return plays_per_hand


class Bagher:
    """Bagher: two or more cards all of the played card's suit, 1 point a card, the played card
    included (Lo Spazzino and La Spatola)."""

    name: Final = "bagher"
    line: Final = "bagher"

    def points(self, card: Card, capture: tuple[Card, ...], last_laid: Card, sweep: bool) -> int:
        """``len(capture) + 1`` when every captured card is of ``card``'s suit, at least two."""
        if len(capture) < 2:
            return 0
        suit = _SUITS[card]
        for c in capture:
            if _SUITS[c] != suit:
                return 0
        return len(capture) + 1

    def on_last_card(self, options: Options) -> bool:
        """Not on the hand's final play (Cuperativa) unless ``bagher_on_last_card`` or
        ``specials_on_last_card``."""
        return options.specials_on_last_card or options.bagher_on_last_card

    def keeps_laid_card(self, options: Options) -> bool:
        """The bagher does not look at the laid card."""
        return True

    def max_points(self, plays_per_hand: int) -> int:
        """Every card of the deck."""
        return 40


class _CiceraCapture:
    """What Cicera's capture rules share: at most 1 point a play, not on the hand's final play
    unless ``specials_on_last_card`` (like the picula and the bagher), blind to the laid card."""

    def on_last_card(self, options: Options) -> bool:
        """Only with ``specials_on_last_card``."""
        return options.specials_on_last_card

    def keeps_laid_card(self, options: Options) -> bool:
        """It does not look at the laid card."""
        return True

    def max_points(self, plays_per_hand: int) -> int:
        """One per play."""
        return plays_per_hand


class SuitCapture(_CiceraCapture):
    """Cicera's capture in one suit, 1 point: the played card and every card it takes are of
    one suit (Pagat's Cicera as thanoscardgames' Cicera summarises it: "a capture in a single
    suit - that is, the card you play and the cards you capture from the table all belong to
    the same suit"). Unlike the bagher, one card taken is enough, and it scores 1 point."""

    name: Final = "suit_capture"
    line: Final = "suit_captures"

    def points(self, card: Card, capture: tuple[Card, ...], last_laid: Card, sweep: bool) -> int:
        """1 when ``capture`` is not empty and all of ``card``'s suit."""
        if not capture:
            return 0
        suit = _SUITS[card]
        for c in capture:
            if _SUITS[c] != suit:
                return 0
        return 1


class ThreeCardCapture(_CiceraCapture):
    """Cicera's capture of three or more table cards, 1 point ("one point if you play a card
    which captures a set of three or more cards from the table": thanoscardgames' Cicera)."""

    name: Final = "three_card_capture"
    line: Final = "three_card_captures"

    def points(self, card: Card, capture: tuple[Card, ...], last_laid: Card, sweep: bool) -> int:
        """1 when ``capture`` holds three table cards or more."""
        return 1 if len(capture) >= 3 else 0


_SEVEN: Final = 7


def _traditional(card: Card, capture: tuple[Card, ...]) -> bool:
    """Whether ``card`` taking ``capture`` is an ordinary Scopa capture (equal card or sum)."""
    if len(capture) == 1:
        return _RANKS[capture[0]] == _RANKS[card]
    return sum([_RANKS[c] for c in capture]) == _RANKS[card]


class ModularSweep:
    """Modulo sette (it.wikipedia): a sweep that only the modular count allows scores 1 point ("Așa-
    numitele mături modulare vor valora în schimb 1 punct"; a 2 taking a 6 and a re: 16 = 2 mod
    7)."""

    name: Final = "modular_sweep"
    line: Final = "modular_sweeps"

    def points(self, card: Card, capture: tuple[Card, ...], last_laid: Card, sweep: bool) -> int:
        """1 for a sweep that is not an ordinary capture."""
        return 1 if sweep and not _traditional(card, capture) else 0

    def on_last_card(self, options: Options) -> bool:
        """The sweep itself says whether the final play counts (``sweep_on_last_card``)."""
        return True

    def keeps_laid_card(self, options: Options) -> bool:
        """Sweeps do not look at the laid card."""
        return True

    def max_points(self, plays_per_hand: int) -> int:
        """One per play."""
        return plays_per_hand


class TraditionalSweep:
    """Modulo sette (it.wikipedia): a sweep that is also an ordinary capture costs 1 point (an ace
    and a 3 taken by a 4, a 6 and a 4 by a re), except a 7 taking a lone 7, which scores nothing."""

    name: Final = "traditional_sweep"
    line: Final = "traditional_sweeps"

    def points(self, card: Card, capture: tuple[Card, ...], last_laid: Card, sweep: bool) -> int:
        """-1 for a sweep that is an ordinary capture, 0 for 7 on 7."""
        if not sweep or not _traditional(card, capture):
            return 0
        if len(capture) == 1 and _RANKS[card] == _SEVEN:
            return 0
        return -1

    def on_last_card(self, options: Options) -> bool:
        """The sweep itself says whether the final play counts (``sweep_on_last_card``)."""
        return True

    def keeps_laid_card(self, options: Options) -> bool:
        """Sweeps do not look at the laid card."""
        return True

    def max_points(self, plays_per_hand: int) -> int:
        """Never positive."""
        return 0


_MARESCIALLO: Final = 39
"""The re of spade (``card_of(Suit.SPADE, 10)``)."""


class MarescialloSweep:
    """Marescialla (it.wikipedia): the re of spade "penalizează cu 1 punct cine o ia și cu 4 puncte
    cine [...] îl folosește pentru a face o mătură" -- a sweep made by playing it costs 3 more
    points beside the maresciallo's -1 at the end of the hand (4 in all)."""

    name: Final = "maresciallo_sweep"
    line: Final = "maresciallo_sweeps"

    def points(self, card: Card, capture: tuple[Card, ...], last_laid: Card, sweep: bool) -> int:
        """-3 for a sweep made with the re of spade (not one that takes its twin alone, which
        :class:`TwinSweep` scores)."""
        if not sweep or _BASES[card] != _MARESCIALLO:
            return 0
        return 0 if _takes_twin(card, capture) else -3

    def on_last_card(self, options: Options) -> bool:
        """The sweep itself says whether the final play counts (``sweep_on_last_card``)."""
        return True

    def keeps_laid_card(self, options: Options) -> bool:
        """It does not look at the laid card."""
        return True

    def max_points(self, plays_per_hand: int) -> int:
        """Never positive."""
        return 0


def _takes_twin(card: Card, capture: tuple[Card, ...]) -> bool:
    """Whether ``capture`` is ``card``'s twin alone (the other copy of its suit and rank)."""
    return len(capture) == 1 and _BASES[capture[0]] == _BASES[card]


class TwinSweep:
    """Marescialla with two decks (it.wikipedia): a card may take its own twin only to sweep, "și în
    acest caz, mătura nu merită unul, ci trei puncte" (+2 beside the sweep's 1); "Dacă măturați
    regele de pică pe celălalt rege de pică [...] câștigați 10 puncte" (+9 beside the sweep)."""

    name: Final = "twin_sweep"
    line: Final = "twin_sweeps"

    def points(self, card: Card, capture: tuple[Card, ...], last_laid: Card, sweep: bool) -> int:
        """+2 for a sweep taking the played card's twin, +9 when that card is the re of spade."""
        if not sweep or not _takes_twin(card, capture):
            return 0
        return 9 if _BASES[card] == _MARESCIALLO else 2

    def on_last_card(self, options: Options) -> bool:
        """The sweep itself says whether the final play counts (``sweep_on_last_card``)."""
        return True

    def keeps_laid_card(self, options: Options) -> bool:
        """It does not look at the laid card."""
        return True

    def max_points(self, plays_per_hand: int) -> int:
        """At most one twin sweep per pair of twins: 9 for the re of spade, 2 for the rest."""
        return 9 + 2 * (plays_per_hand // 2)


class Accusa:
    """Bazzica's accusa (it.wikipedia): on its turn, before playing a card of the deal, a seat
    holding three cards may show them: three of a rank score 7; three adding up to 9 or less score
    2, or 3 when two of them share a rank."""

    name: Final = "accusa"
    line: Final = "accuse"

    def declarations(
        self, hand: tuple[Card, ...], options: Options
    ) -> list[tuple[tuple[Card, ...], int]]:
        """The whole hand when it makes a combination, with its points."""
        if len(hand) != 3:
            return []
        ranks = sorted([_RANKS[c] for c in hand])
        if ranks[0] == ranks[2]:
            return [(_shown(hand), 7)]
        if sum(ranks) <= 9:
            return [(_shown(hand), 3 if ranks[0] == ranks[1] or ranks[1] == ranks[2] else 2)]
        return []

    def max_points(self, plays_per_hand: int) -> int:
        """Three of a rank at every deal: once per three cards played."""
        return 7 * (plays_per_hand // 3)


def _shown(hand: tuple[Card, ...]) -> tuple[Card, ...]:
    return tuple(sorted(hand))


_MATTA: Final = 6
"""The 7 of coppe (``card_of(Suit.COPPE, 7)``), Cirulla's matta."""


class CirullaDeclaration:
    """Cirulla's declarations (Pagat; it.wikipedia), on receiving three cards: three adding up to
    9 or less score 3 (the 7 of coppe, the matta, counting as an ace); three of a rank score 10
    (the matta taking the rank of the other two)."""

    name: Final = "cirulla"
    line: Final = "cirulla_declarations"

    def declarations(
        self, hand: tuple[Card, ...], options: Options
    ) -> list[tuple[tuple[Card, ...], int]]:
        """The whole hand when it makes a combination, with its points (the best one)."""
        if len(hand) != 3:
            return []
        ranks = sorted([_RANKS[c] for c in hand if c != _MATTA])
        if ranks[0] == ranks[-1]:
            return [(_shown(hand), 10)]
        wild = 3 - len(ranks)
        if sum(ranks) + wild <= 9:
            return [(_shown(hand), 3)]
        return []

    def max_points(self, plays_per_hand: int) -> int:
        """Three of a rank at every deal: once per three cards played, 10 each."""
        return 10 * (plays_per_hand // 3)


_LOW_RANKS: Final = (1, 2, 3)


class Tuzzulicchio:
    """Tuzzulicchio's hand declarations (it.wikipedia, Bari), made like an accusa before the seat's
    first card of the deal: "buongioco", two cards of one rank among ace, 2 and 3 (3 points) or
    three (6); "napoli", two of ace, 2 and 3 of one suit (3 points) or all three (7). A hand that
    has both scores both (the seed's hybrids: ace + ace and 2 of one suit = 6)."""

    name: Final = "tuzzulicchio"
    line: Final = "tuzzulicchi"

    def declarations(
        self, hand: tuple[Card, ...], options: Options
    ) -> list[tuple[tuple[Card, ...], int]]:
        """The low cards of the hand that make buongioco and napoli, with their points."""
        low = [c for c in hand if _RANKS[c] in _LOW_RANKS]
        shown: set[Card] = set()
        points = 0
        for rank in _LOW_RANKS:
            same = [c for c in low if _RANKS[c] == rank]
            if len(same) >= 2:
                points += 3 if len(same) == 2 else 6
                shown.update(same)
        for suit in range(4):
            suited = [c for c in low if _SUITS[c] == suit]
            if len(suited) >= 2:
                points += 3 if len(suited) == 2 else 7
                shown.update(suited)
        return [(_shown(tuple(shown)), points)] if points else []

    def max_points(self, plays_per_hand: int) -> int:
        """As the accusa's: a side holds at most half the cards played, and no hand scores more
        than 13 points per 3 low cards (three of a rank 6 + a suit's napoli 7)."""
        return 7 * (plays_per_hand // 3)


SPECIAL_RULES: Final[tuple[tuple[str, SpecialRule], ...]] = (
    ("picula", Picula()),
    ("bagher", Bagher()),
    ("modular_sweeps", ModularSweep()),
    ("modular_sweeps", TraditionalSweep()),
    ("maresciallo", MarescialloSweep()),
    ("twin_captures", TwinSweep()),
    ("suit_capture", SuitCapture()),
    ("three_card_capture", ThreeCardCapture()),
)
"""Every special-play rule, by the boolean option that enables it, in score-sheet order."""

DECLARATION_RULES: Final[tuple[tuple[str, DeclarationRule], ...]] = (
    ("accusa", Accusa()),
    ("tuzzulicchio_declarations", Tuzzulicchio()),
    ("cirulla_declarations", CirullaDeclaration()),
)
"""Every declaration rule, by the boolean option that enables it, in score-sheet order."""


# --- the starting table's bonus (Cirulla) ----------------------------------------------------


class TableBonusRule(Protocol):
    """Points the dealer's side scores for the starting table, taking its cards (Cirulla)."""

    @property
    def name(self) -> str:
        """Stable id in events and state, e.g. ``"dealer_bonus"``."""
        ...

    @property
    def line(self) -> str:
        """The score-sheet line it adds up into."""
        ...

    def points(self, table: tuple[Card, ...]) -> int:
        """What the starting ``table`` scores the dealer's side (0: nothing, the table stays)."""
        ...

    def max_points(self, plays_per_hand: int) -> int:
        """An upper bound on what one side scores with this rule in one hand."""
        ...


_MATTA_VALUES: Final = range(1, 11)
"""The values the matta may stand for on the starting table (ace to re)."""


class DealerTableBonus:
    """Cirulla's dealer bonus (regoledelgioco, Parlett, it.wikipedia): the four starting table
    cards adding up to 15 go to the dealer for a scopa (1 point), to 30 for two; with ``low``
    (it.wikipedia: "in alcuni casi") 9 or less for three. The 7 of coppe (the matta) counts as
    any value from ace to re ("represents any valid count the dealer wishes": Parlett), so the
    best bonus it makes is scored."""

    name: Final = "dealer_bonus"
    line: Final = "dealer_bonus"

    def __init__(self, *, low: bool) -> None:
        self.low = low

    def points(self, table: tuple[Card, ...]) -> int:
        """The best bonus of ``table``: 3 (9 or less, with ``low``), 2 (30), 1 (15) or 0."""
        if not table:
            return 0
        fixed = 0
        wild = 0
        for c in table:
            if _BASES[c] == _MATTA:
                wild += 1
            else:
                fixed += _RANKS[c]
        lowest = fixed + wild * _MATTA_VALUES[0]
        highest = fixed + wild * _MATTA_VALUES[-1]
        if self.low and lowest <= 9:
            return 3
        if lowest <= 30 <= highest:
            return 2
        if lowest <= 15 <= highest:
            return 1
        return 0

    def max_points(self, plays_per_hand: int) -> int:
        """Once a hand, 3 at most."""
        return 3


class AcesTableSweep:
    """Two or more aces on the starting table go to the dealer's side for a sweep (1 point), the
    reading of some Cirulla engines (issue 27) where the rule pages void the deal
    (``aces_on_table=sweep``); a single ace stays on the table."""

    name: Final = "aces_sweep"
    line: Final = "aces_sweep"

    def points(self, table: tuple[Card, ...]) -> int:
        """1 when ``table`` holds two aces or more, else 0."""
        aces = 0
        for c in table:
            if _RANKS[c] == 1:
                aces += 1
        return 1 if aces > 1 else 0

    def max_points(self, plays_per_hand: int) -> int:
        """Once a hand."""
        return 1


TABLE_BONUS_RULES: Final[tuple[tuple[str, TableBonusRule], ...]] = (
    ("aces_on_table", AcesTableSweep()),
    ("dealer_bonus", DealerTableBonus(low=False)),
)
"""Every starting-table bonus rule, by the option that enables it (``aces_on_table=sweep``,
``dealer_bonus``; ``dealer_bonus_low`` swaps in the rule with the low table), in the order they
are asked: the first that scores takes the table. See :func:`table_bonus_rules`."""

_LOW_TABLE_BONUS: Final = DealerTableBonus(low=True)


def table_bonus_rules(options: Options) -> tuple[TableBonusRule, ...]:
    """The starting-table bonus rules ``options`` enable, in the order they are asked."""
    rules: list[TableBonusRule] = []
    if options.aces_on_table is AcesOnTable.SWEEP:
        rules.append(TABLE_BONUS_RULES[0][1])
    if options.dealer_bonus:
        rules.append(_LOW_TABLE_BONUS if options.dealer_bonus_low else TABLE_BONUS_RULES[1][1])
    return tuple(rules)


def special_rules(options: Options) -> tuple[SpecialRule, ...]:
    """The special-play rules ``options`` enable."""
    return tuple([rule for option, rule in SPECIAL_RULES if getattr(options, option)])


def declaration_rules(options: Options) -> tuple[DeclarationRule, ...]:
    """The declaration rules ``options`` enable."""
    return tuple([rule for option, rule in DECLARATION_RULES if getattr(options, option)])


class StealRule(Protocol):
    """A card that may steal another side's whole pile (Rubamazzo)."""

    def can_steal(self, card: Card, top: Card) -> bool:
        """Whether ``card`` may steal a pile whose top card is ``top``."""
        ...


class PileSteal:
    """Rubamazzo (it.wikipedia): a card of the same rank as the top card of an opponent's pile
    steals that whole pile."""

    def can_steal(self, card: Card, top: Card) -> bool:
        """True when ``card`` and ``top`` share a rank."""
        return _RANKS[card] == _RANKS[top]


STEAL_RULES: Final[tuple[tuple[str, StealRule], ...]] = (("pile_steal", PileSteal()),)
"""Every pile-steal rule, by the boolean option that enables it."""


def steal_rules(options: Options) -> tuple[StealRule, ...]:
    """The pile-steal rules ``options`` enable."""
    return tuple([rule for option, rule in STEAL_RULES if getattr(options, option)])


# --- claimed sweeps (Scopa fidasse) ----------------------------------------------------------


class PenaltyLine:
    """A score-sheet line of points a claim's answer costs a side (never positive)."""

    def __init__(self, name: str, line: str) -> None:
        self.name: Final = name
        self.line: Final = line

    def max_points(self, plays_per_hand: int) -> int:
        """Never positive."""
        return 0


FALSE_CLAIM: Final = PenaltyLine("false_claim", "false_claims")
"""What doubted false claims cost the claimer's side."""
WRONG_DOUBT: Final = PenaltyLine("wrong_doubt", "wrong_doubts")
"""What doubting true claims cost the doubter's side."""
CLAIM_LINES: Final[tuple[PenaltyLine, ...]] = (FALSE_CLAIM, WRONG_DOUBT)
"""The score-sheet lines of the claim rules, in score-sheet order."""


class ClaimRule(Protocol):
    """A sweep claimed with a card played face down, which the opponents may doubt."""

    def answering(
        self, claimer: int, order: tuple[int, ...], side_of: tuple[int, ...]
    ) -> tuple[int, ...]:
        """The seats that answer a claim by ``claimer``, in the order they answer.

        ``order``: the other seats still in the match, in playing order after the claimer.
        """
        ...

    def false_claim(self) -> Specials:
        """What a doubted claim whose card does not sweep gives the claimer's side."""
        ...

    def wrong_doubt(self) -> Specials:
        """What doubting a claim whose card does sweep gives the doubter's side."""
        ...


class TiFidi:
    """Scopa fidasse (it.wikipedia): "ti fidi?" -- a claim trusted stands unseen; doubted, a false
    one is annulled and costs the claimer a point, a true one costs the doubter a point."""

    def __init__(self, answers: ClaimAnswers, false_claim_points: int, wrong_doubt_points: int):
        self.answers = answers
        self.false_claim_points = false_claim_points
        self.wrong_doubt_points = wrong_doubt_points

    def answering(
        self, claimer: int, order: tuple[int, ...], side_of: tuple[int, ...]
    ) -> tuple[int, ...]:
        """The opponents (other sides) in playing order; only the first with ``next``."""
        opponents = tuple([s for s in order if side_of[s] != side_of[claimer]])
        return opponents[:1] if self.answers is ClaimAnswers.NEXT else opponents

    def false_claim(self) -> Specials:
        """``-false_claim_points`` on the false-claims line (nothing when 0)."""
        points = self.false_claim_points
        return ((FALSE_CLAIM.name, -points),) if points else ()

    def wrong_doubt(self) -> Specials:
        """``-wrong_doubt_points`` on the wrong-doubts line (nothing when 0)."""
        points = self.wrong_doubt_points
        return ((WRONG_DOUBT.name, -points),) if points else ()


def claim_rules(options: Options) -> tuple[ClaimRule, ...]:
    """The claim rules ``options`` enable (``sweep_claims``)."""
    if not options.sweep_claims:
        return ()
    return (TiFidi(options.claim_answers, options.false_claim_points, options.wrong_doubt_points),)


def claim_lines(options: Options) -> tuple[PenaltyLine, ...]:
    """The score-sheet lines the claim rules ``options`` enable add."""
    return CLAIM_LINES if options.sweep_claims else ()
