"""Rulesets as data: every option with its default, description and source, and named presets.

An :class:`Options` value is immutable; a :class:`Ruleset` is a preset id plus the options it
resolves to. Presets only override defaults, so any option can be combined with any preset
where it makes sense; :func:`make_ruleset` validates the combination.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from math import comb
from typing import Any, Final

from ._cards import DECK_SIZES
from ._errors import InvalidOption

_HAND_LIMIT_MAX: Final = 999
"""The highest ``hand_limit``."""

_FIDASSE_HAND_LIMIT: Final = 40
"""Scopa fidasse's hand limit: false claims and wrong doubts can keep every score below the
target for ever (tests/rules/test_properties.py: seats claiming at 40% of their turns and
answering at random, 4- and 6-seat matches still going after 100 hands)."""

_FALLING_HAND_LIMIT: Final = _FIDASSE_HAND_LIMIT
"""The ``hand_limit`` of the presets whose scores can fall (:func:`scores_can_fall`:
Marescialla, Modulo sette) and of a new game whose options make them fall when neither its
preset nor its creator sets one: fidasse's, the only limit with a measured need
(tools/fuzz_rules.py found scopa with ``sweep_claims`` still going after 200 hands)."""

_SIGNED_TABLE_MAX: Final = 10
"""The most starting table cards with ``capture_arithmetic=signed`` (see test_options)."""

PLAY_SPECIAL_OPTIONS: Final = (
    "picula",
    "bagher",
    "modular_sweeps",
    "maresciallo",
    "twin_captures",
    "suit_capture",
    "three_card_capture",
)
"""The options of the rules that score a play (``_specials.SPECIAL_RULES``; a test checks it)."""

__all__ = [
    "PRESETS",
    "AcesOnTable",
    "CaptureArithmetic",
    "ClaimAnswers",
    "MazzoTies",
    "OptionInfo",
    "OptionalCaptures",
    "Options",
    "Preset",
    "PrimieraMethod",
    "Ruleset",
    "list_options",
    "make_ruleset",
    "scores_can_fall",
    "void_deal_chance",
]


class PrimieraMethod(StrEnum):
    """How the primiera point is decided."""

    STANDARD = "standard"
    """Best card per suit, 7=21 6=18 A=16 5=15 4=14 3=13 2=12 figures=10 (seeds 001, 002, 004)."""
    VENETO = "veneto"
    """Face value, ace 5.5, figures 0.5 (seed 004)."""
    MILAN = "milan"
    """Most 7s, then most 6s, then most aces (seed 004)."""


class MazzoTies(StrEnum):
    """What a tie in a "most cards of ..." component gives."""

    UNASSIGNED = "unassigned"
    """Nobody scores (Scopa, Spatola)."""
    SPLIT = "split"
    """Every tied side scores ``max(1, points // tied_sides)`` (Spazzino: 2 points, 1 each)."""
    ALL = "all"
    """Every tied side scores the whole points (A non prendere, seed 004)."""


class AcesOnTable(StrEnum):
    """What happens when aces are turned onto the starting table."""

    KEEP = "keep"
    """Nothing special."""
    RETURN = "return"
    """A single ace goes to the bottom of the stock and another card is turned; two or more
    aces on the starting table force a redeal (seed 002)."""
    REDEAL = "redeal"
    """Two or more aces on the starting table force a redeal; a single ace stays (Cirulla:
    regoledelgioco, Parlett)."""


class CaptureArithmetic(StrEnum):
    """How two or more table cards make up the played card's value."""

    SUM = "sum"
    """They add up to it (every seed's Scopa)."""
    DIFFERENCE = "difference"
    """The highest minus all the others is it (Scopa delle differenze, seed 004)."""
    SUM_OR_DIFFERENCE = "sum_or_difference"
    """Either (the hybrid Scopa inversa, seed 004)."""
    SIGNED = "signed"
    """Any mix of signs: the cards' ranks, each added or subtracted, make it (5 + 3 - 2 = 6;
    the hybrid Scopa inversa read as mixed additions and subtractions, seed 004)."""


class OptionalCaptures(StrEnum):
    """Which cards that can capture may still be laid (capturing is compulsory otherwise)."""

    NONE = "none"
    """Capturing is compulsory (every seed)."""
    FIGURES = "figures"
    """A figure may decline to take an equal figure (Cicera: regoledelgioco)."""
    ALL = "all"
    """Any card may decline its captures (Cicera: gamerules.com)."""


class ClaimAnswers(StrEnum):
    """Who answers a claimed sweep (Scopa fidasse, ``sweep_claims``)."""

    OPPONENTS = "opponents"
    """Every opponent in playing order from the claimer, until one doubts (seed 004's "based on
    the opponents' answers"; with one opponent, that opponent)."""
    NEXT = "next"
    """Only the next opponent in playing order answers for the other side(s)."""


def _opt(default: Any, description: str, source: str) -> Any:
    return field(default=default, metadata={"description": description, "source": source})


@dataclass(frozen=True, slots=True)
class Options:
    """Every rule of the engine, as plain data. Defaults are the 2-player Scopa of seed 002."""

    # --- table and deal ---------------------------------------------------------------
    players: int = _opt(
        2,
        "Number of seats: 2, 3, 4 or 6 (5 where the deal divides the deck, as in Scopone al "
        "contrario).",
        "seeds 002, 004",
    )
    partnerships: bool = _opt(
        True,
        "With 4 or 6 players, play in two teams of alternate seats (0+2 vs 1+3, 0+2+4 vs 1+3+5).",
        "RULINGS.md conventions; seed 004",
    )
    deck_size: int = _opt(
        40,
        "The deck: 40 (Italian), 52 (Bresciane: ranks 1..10 are numerals, 11 fante, 12 cavallo,"
        " 13 re) or 80 (two 40-card decks; every card twice).",
        "seeds 000-004; seed 004 (Cicera bigia's 52 cards, Marescialla's 80)",
    )
    hand_size: int = _opt(3, "Cards dealt to each seat at every deal.", "seeds 000-004")
    table_cards: int = _opt(4, "Cards laid face up on the table at the start of a hand.", "seeds")
    first_dealer: int = _opt(
        -1, "Seat that deals the first hand; -1 means the last seat, so seat 0 leads.", "RULINGS.md"
    )
    kings_redeal: int = _opt(
        3,
        "Redeal when at least this many kings lie on the starting table (0 = never; 3 per "
        "seed 004, which says the hand is then generally not played; 2 regionally per seed 002).",
        "seeds 002, 004",
    )
    aces_on_table: AcesOnTable = _opt(
        AcesOnTable.KEEP,
        "Aces turned onto the starting table: keep; return to the stock (two aces: redeal); or "
        "redeal (two or more aces void the deal, a single ace stays: Cirulla).",
        "seed 002; regoledelgioco.com Cirulla; Parlett (Cirulla)",
    )
    dealer_bonus: bool = _opt(
        False,
        "Cirulla: a starting table adding up to 15 goes to the dealer's side for 1 point (a "
        "scopa), to 30 for 2 (line dealer_bonus); the 7 of coppe (matta) counts as any value "
        "from 1 to 10 there.",
        "regoledelgioco.com Cirulla; Parlett (Cirulla); it.wikipedia Cirulla",
    )
    dealer_bonus_low: bool = _opt(
        False,
        "With dealer_bonus, a starting table adding up to 9 or less also goes to the dealer, for "
        "3 points (it.wikipedia: 'in alcuni casi').",
        "it.wikipedia Cirulla; gazzettadisanta.eu (Cirulla)",
    )
    # --- capturing --------------------------------------------------------------------
    equal_card_precedence: bool = _opt(
        True,
        "If a table card equals the played card, the player must take one equal card, no sum.",
        "seeds 002, 004; RULINGS.md 3",
    )
    figures_capture_only_figures: bool = _opt(
        False,
        "Figures (8, 9, 10; 11, 12, 13 in the 52-card deck) capture only an equal figure, never"
        " a sum.",
        "seed 000",
    )
    twin_captures: bool = _opt(
        False,
        "Two decks (deck_size 80): a card takes its twin (the other copy of its suit and rank)"
        " only to sweep, and that sweep scores 3 (line twin_sweeps +2); the re of spade sweeping"
        " the other re of spade scores 10 (+9) instead of the maresciallo's sweep penalty.",
        "seed 004 (Marescialla with 80 cards)",
    )
    ace_takes_all: bool = _opt(
        False, "Asso piglia tutto: a played ace takes every card on the table.", "seeds 002, 004"
    )
    ace_sweep_counts: bool = _opt(
        False, "With ace_takes_all, clearing the table with an ace scores a sweep.", "seed 002"
    )
    ace_takes_only_table_ace: bool = _opt(
        True,
        "With ace_takes_all, an ace played while an ace lies on the table takes only that ace.",
        "seed 004 (Scopa d'assi)",
    )
    table_ace_15: bool = _opt(
        False,
        "With ace_takes_all, ace_takes_only_table_ace and capture_15, an ace played while an ace"
        " lies on the table may instead take cards that with it add up to 15 (Cirulla).",
        "genovagioca.it and sourceforge.net/p/cirulla (Cirulla); rvenning/scopa",
    )
    ace_on_empty_table_sweeps: bool = _opt(
        False,
        "With ace_takes_all, an ace played on an empty table takes itself and scores a sweep "
        "(default: it is laid like any card).",
        "RULINGS.md",
    )
    capture_15: bool = _opt(
        False,
        "Scopa a 15: a card takes table cards that with it add up to 15, fewest cards first.",
        "seeds 002, 004",
    )
    capture_15_only: bool = _opt(
        True,
        "With capture_15, the ordinary captures (equal card or sum) are not allowed (seed 002); "
        "false keeps them beside the 15 captures (seed 004's reading).",
        "seeds 002, 004",
    )
    capture_15_fewest: bool = _opt(
        True,
        "With capture_15, only the 15 combinations with the fewest cards may be taken (seed 004);"
        " false: any of them (Cirulla).",
        "seed 004; Pagat Cirulla",
    )
    capture_11: bool = _opt(
        False,
        "Scopa a 11 / Cocchiaundici: a card may also take cards that with it add up to 11, even "
        "when an equal card lies on the table.",
        "seed 004",
    )
    capture_arithmetic: CaptureArithmetic = _opt(
        CaptureArithmetic.SUM,
        "How two or more table cards make up the played card: sum; difference (the highest minus "
        "the others: fante and 2 are taken by a 6); sum_or_difference (either); signed (each "
        "card added or subtracted: 5, 3 and 2 are taken by a 6 as 5 + 3 - 2).",
        "seed 004 (Scopa delle differenze, Scopa inversa)",
    )
    optional_captures: OptionalCaptures = _opt(
        OptionalCaptures.NONE,
        "Which cards that can capture may be laid instead: none (capturing is compulsory); "
        "figures (a figure may decline to take an equal figure: Cicera per regoledelgioco); all "
        "(Cicera per gamerules.com).",
        "regoledelgioco.com Cicera bigia; gamerules.com Cicera",
    )
    modular_captures: bool = _opt(
        False,
        "Modulo sette: values and sums count modulo 7 (7 = 0, fante 1, cavallo 2, re 3); a card "
        "takes any set adding up to its value modulo 7; a card of its own rank still comes first.",
        "seed 004",
    )
    modular_sweeps: bool = _opt(
        False,
        "Modulo sette's sweeps: a sweep that is also an ordinary capture scores -1, a modular one "
        "+1, a 7 taking a lone 7 nothing (score-sheet lines traditional_sweeps, modular_sweeps).",
        "seed 004",
    )
    sweep_on_last_card: bool = _opt(
        False, "A sweep made with the last card of the hand scores.", "seeds 000, 002, 004"
    )
    sweep_points: int = _opt(1, "Points for each sweep (scopa, spazzino, spatola).", "seeds")
    # --- Spazzino / Spatola specials --------------------------------------------------
    picula: bool = _opt(
        False,
        "Picula / piccola, 1 point: take with an equal card exactly the card the previous player "
        "just laid without capturing.",
        "seeds 000, 001",
    )
    bagher: bool = _opt(
        False,
        "Bagher: a capture of two or more cards all of the played card's suit scores 1 point per "
        "card, the played card included.",
        "seeds 000, 001",
    )
    suit_capture: bool = _opt(
        False,
        "Cicera: a capture whose cards, the played card included, are all of one suit scores 1 "
        "point (line suit_captures).",
        "pagat.com/fishing/cicera.html; thanoscardgames Cicera",
    )
    three_card_capture: bool = _opt(
        False,
        "Cicera: a capture of three or more table cards scores 1 point (line three_card_captures).",
        "pagat.com/fishing/cicera.html; thanoscardgames Cicera",
    )
    accusa: bool = _opt(
        False,
        "Bazzica's accusa: on its turn, before playing a card of the deal, a seat may show three "
        "cards of a rank (7 points) or three adding up to 9 or less (2 points, 3 with a pair).",
        "seed 004",
    )
    pile_steal: bool = _opt(
        False,
        "Rubamazzo: instead of playing to the table, a seat may play a card of the rank of the top"
        " card of another side's pile to take that whole pile; the card goes on top of its own"
        " pile, which may be stolen in turn.",
        "seed 004",
    )
    sweep_claims: bool = _opt(
        False,
        "Scopa fidasse: a seat may play a card face down claiming that it sweeps the table and ask"
        ' "ti fidi?"; trusted, the sweep stands unseen; doubted, the card is shown: a false'
        " claim is annulled (the card is laid) and costs the claimer false_claim_points, a true"
        " one stands and costs the doubter wrong_doubt_points.",
        "seed 004",
    )
    claim_answers: ClaimAnswers = _opt(
        ClaimAnswers.OPPONENTS,
        "With sweep_claims, who answers a claim: every opponent in playing order until one doubts"
        " (opponents), or the next opponent alone (next).",
        "seed 004 (a local choice)",
    )
    false_claim_points: int = _opt(
        1, "With sweep_claims, the points a doubted false claim costs the claimer.", "seed 004"
    )
    wrong_doubt_points: int = _opt(
        1, "With sweep_claims, the points doubting a true claim costs the doubter.", "seed 004"
    )
    farms: bool = _opt(
        False,
        "Scopa della fattoria: a card that takes nothing may be played onto one table card,"
        " forming a farm worth both, by a seat holding another card of that value; a card of a"
        " farm's value takes it whole (with one loose card of that value, if any).",
        "seed 004",
    )
    farm_raise: bool = _opt(
        True,
        "With farms, another seat may raise a farm with a card that takes nothing, when it holds"
        " a card of the new value; the farm becomes its own.",
        "seed 004",
    )
    farm_owner_takes: bool = _opt(
        True,
        "With farms, a farm's owner must take it on its next turn (false: it may play on, and a"
        " farm left at the hand's end goes with the leftover cards).",
        "seed 004 (reading)",
    )
    tuzzulicchio_declarations: bool = _opt(
        False,
        "Tuzzulicchio's declarations, before the seat's first card of the deal: two of one rank "
        "among ace, 2, 3 (buongioco, 3 points; three: 6), two of ace, 2, 3 of one suit (napoli, "
        "3; all three: 7); a hand with both scores both.",
        "seed 004",
    )
    cirulla_declarations: bool = _opt(
        False,
        "Cirulla's declarations on receiving three cards: adding up to 9 or less 3 points, three "
        "of a rank 10; the 7 of coppe (matta) counts as any card in them.",
        "Pagat Cirulla; it.wikipedia Cirulla",
    )
    specials_on_last_card: bool = _opt(
        False, "Picula and bagher also score on the last card of the hand.", "seed 000; Cuperativa"
    )
    picula_on_last_card: bool = _opt(
        False,
        "The picula alone also scores on the last card of the hand (seed 001 forbids the piccola"
        " there; specials_on_last_card turns on both).",
        "seeds 000, 001; issue 13",
    )
    bagher_on_last_card: bool = _opt(
        False,
        "The bagher alone also scores on the last card of the hand (Cuperativa does not score it"
        " there).",
        "seed 000; Cuperativa",
    )
    picula_after_redeal: bool = _opt(
        True,
        "The card laid just before a mid-hand re-deal can still be taken as a picula after it "
        "(seed 000's text); false: each re-deal forgets it, as Cuperativa does.",
        "seed 000; Cuperativa",
    )
    # --- scoring ------------------------------------------------------------------------
    cards_points: int = _opt(1, "Points for most cards (carte, la lunga).", "seeds")
    denari_points: int = _opt(1, "Points for most denari (ori).", "seeds 001, 002, 004")
    spade_points: int = _opt(0, "Points for most spade.", "seeds 000, 001")
    primiera_points: int = _opt(1, "Points for the primiera.", "seeds 001, 002, 004")
    primiera_method: PrimieraMethod = _opt(
        PrimieraMethod.STANDARD, "How the primiera is decided.", "seed 004"
    )
    settebello_points: int = _opt(1, "Points for the 7 of denari.", "seeds")
    re_bello: bool = _opt(False, "Re bello: the re of denari scores 1 point.", "seeds 001, 002")
    rosmarino: bool = _opt(False, "Rosmarino: the fante of spade scores 1 point.", "seeds 000, 001")
    two_of_spade: bool = _opt(False, "The 2 of spade scores 1 point.", "seeds 000, 001")
    denari_ten_fante: bool = _opt(
        False,
        "Cicera bigia (deck_size 52): the 10 and the fante (rank 11) of denari score 1 point each.",
        "D. Parlett, The Penguin Book of Card Games (Cicera); en.wikipedia.org/wiki/Cicera",
    )
    two_of_denari: bool = _opt(
        False, "The 2 of denari scores 1 point (Scopa della fattoria).", "seed 004"
    )
    denari_each: bool = _opt(
        False,
        "Scopone romano: every denaro scores 1 point (settebello per settebello_points) instead "
        "of a point for most denari.",
        "seed 004",
    )
    settanta: bool = _opt(False, "Settanta: all four 7s score 1 more point.", "seed 004")
    maresciallo: bool = _opt(
        False,
        "Marescialla: the re of spade (the maresciallo) costs its taker 1 point, 4 when it was "
        "played to make a sweep (line maresciallo -1, maresciallo_sweep -3 more).",
        "seed 004",
    )
    polacca: bool = _opt(
        False,
        "Marescialla's polacca: the fante of denari beside the settebello scores 1 more point "
        "(alone nothing).",
        "seed 004",
    )
    saponaro: bool = _opt(
        False,
        "Marescialla in central Italy: the fante of spade (saponaro) taken with the maresciallo "
        "costs 1 more point (alone nothing).",
        "seed 004",
    )
    grande: bool = _opt(
        False,
        "Cirulla's grande: the fante, cavallo and re of denari together score 5 points.",
        "Pagat Cirulla; it.wikipedia Cirulla",
    )
    denari_figures: bool = _opt(
        False,
        "Punti ai denari: the fante, the cavallo and the re of denari score 1 point each.",
        "seed 004",
    )
    frac_points: bool = _opt(
        False,
        "Scopa FRAC: every fante, re, asso and cavallo taken scores 1 point (16 in the deck).",
        "seed 004",
    )
    frac_tie_re_bello: bool = _opt(
        False,
        "FRAC's single-hand game: when the frac line ties at the top, the tied side that took the"
        " re of denari scores 1 more (an 8-8 goes to it); needs frac_points.",
        "seed 004",
    )
    napola_denari: bool = _opt(
        False,
        "Napola of denari: ace, 2, 3 of denari = 3 points, +1 per next rank in an unbroken run.",
        "seeds 001, 002, 004",
    )
    napola_spade: bool = _opt(False, "Napola of spade, counted the same way.", "seeds 000, 001")
    napoleone_wins: bool = _opt(
        False, "Napoleone (all ten denari) wins the game at once.", "seeds 002, 004"
    )
    spade_napoleone_wins: bool = _opt(
        False,
        "Cicera bigia (deck_size 52, napola_spade): a side taking all thirteen spade wins the game"
        " at once.",
        "en.wikipedia.org/wiki/Cicera; it.wikipedia.org/wiki/Cicera_bigia",
    )
    mazzo_ties: MazzoTies = _opt(
        MazzoTies.UNASSIGNED, "Ties in most cards / denari / spade / primiera.", "seeds"
    )
    lowest_wins: bool = _opt(
        False,
        "A non prendere: the match ends when a side reaches target_score, and the lowest score "
        "wins (every side tied for it).",
        "seed 004",
    )
    elimination: bool = _opt(
        False,
        "Scopone al contrario: a seat reaching target_score leaves the match, the others play on"
        " (5 seats: 7 cards and 5 on the table, 4: 9 and 4, 3 or 2: 6 and 4) until one is left,"
        " the winner. Everyone plays alone.",
        "seed 004",
    )
    target_score: int = _opt(
        11,
        "The game is won by reaching this score: 11 with 2 players, 21 with 3 or more unless "
        "the preset or the caller sets it.",
        "seed 002; RULINGS.md",
    )
    hand_limit: int = _opt(
        0,
        "The match ends after this many hands at the latest (0: no limit); the side(s) with the"
        " best score then win: the highest, the lowest with lowest_wins, the lowest still in"
        " with elimination. It bounds a match whose penalties can keep every score below"
        f" target_score: where a hand can cost points (sweep_claims, modular_sweeps,"
        f" maresciallo, saponaro) it is {_FALLING_HAND_LIMIT} unless the preset or the caller"
        " sets it, and 0 is refused.",
        "a local choice (the seeds are silent)",
    )

    @property
    def sides(self) -> int:
        """Number of scoring sides (teams, or single players)."""
        if self.partnerships and self.players in (4, 6):
            return 2
        return self.players

    @property
    def first_dealer_seat(self) -> int:
        """The seat that deals the first hand (``first_dealer``, -1 meaning the last seat)."""
        return self.first_dealer if self.first_dealer >= 0 else self.players - 1

    def side_of(self, seat: int) -> int:
        """The side (team) that ``seat`` scores for."""
        return seat % self.sides


@dataclass(frozen=True, slots=True)
class OptionInfo:
    """What a frontend needs to render one option in a "new game" form."""

    name: str
    type: str
    default: Any
    description: str
    source: str
    choices: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Preset:
    """A named ruleset: overrides of the option defaults."""

    id: str
    name: str
    description: str
    source: str
    overrides: dict[str, Any]
    players: tuple[int, ...]
    """The seat counts this preset may be played with (its own player count first)."""
    by_players: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Overrides that apply with one of the other seat counts (e.g. a deal that divides)."""

    def options(self) -> Options:
        """The options this preset resolves to."""
        return Options(**self.overrides)


@dataclass(frozen=True, slots=True)
class Ruleset:
    """A preset id and the options it resolved to after the caller's overrides."""

    preset: str
    options: Options

    def overrides(self) -> dict[str, Any]:
        """The options that differ from the preset's own for this many players.

        ``make_ruleset(self.preset, self.overrides())`` rebuilds this ruleset.
        """
        preset = PRESETS[self.preset]
        base = preset.options()
        base = dataclasses.replace(base, **_player_defaults(preset, self.options.players))
        return {
            f.name: getattr(self.options, f.name)
            for f in dataclasses.fields(Options)
            if getattr(self.options, f.name) != getattr(base, f.name)
        }


_SPAZZINO_SCORING: Final[dict[str, Any]] = {
    "cards_points": 2,
    "spade_points": 2,
    "denari_points": 0,
    "primiera_points": 0,
    "rosmarino": True,
    "two_of_spade": True,
    "napola_spade": True,
    "picula": True,
    "bagher": True,
    "kings_redeal": 0,
}

_SPATOLA: Final[dict[str, Any]] = {
    "cards_points": 2,
    "spade_points": 2,
    "denari_points": 2,
    "primiera_points": 1,
    "re_bello": True,
    "rosmarino": True,
    "two_of_spade": True,
    "napola_spade": True,
    "napola_denari": True,
    "picula": True,
    "bagher": True,
    "equal_card_precedence": False,
    "kings_redeal": 0,
    "target_score": 61,
}

_PRESET_LIST: Final[tuple[Preset, ...]] = (
    Preset(
        "scopa",
        "Scopa (2 players)",
        "Scopa for two, 6 deals of 3, game to 11.",
        "seed 002",
        {},
        (2, 3, 4, 6),
    ),
    Preset(
        "scopa3",
        "Scopa (3 players)",
        "Scopa for three, 4 deals of 3, game to 21.",
        "seeds 002, 004",
        {"players": 3, "target_score": 21},
        (3,),
    ),
    Preset(
        "scopa4",
        "Scopa (4 players in pairs)",
        "Two pairs, 3 deals of 3, game to 21.",
        "seeds 002, 004",
        {"players": 4, "target_score": 21},
        (4,),
    ),
    Preset(
        "scopa6",
        "Scopa (6 players, two teams of three)",
        "2 deals of 3, game to 21.",
        "seed 004",
        {"players": 6, "target_score": 21},
        (6,),
    ),
    Preset(
        "scopone",
        "Scopone",
        "4 players in pairs, 9 cards each and 4 on the table.",
        "seed 004",
        {"players": 4, "hand_size": 9, "target_score": 21},
        (4,),
    ),
    Preset(
        "scopone_scientifico",
        "Scopone scientifico",
        "4 players in pairs, 10 cards each and none on the table.",
        "seed 004",
        {"players": 4, "hand_size": 10, "table_cards": 0, "target_score": 21},
        (4,),
    ),
    Preset(
        "scopone_romano",
        "Scopone romano",
        "Scopone scoring every denaro 1, settebello 2, carte 1, primiera 1 (13 a hand).",
        "seed 004",
        {
            "players": 4,
            "hand_size": 9,
            "target_score": 21,
            "denari_each": True,
            "denari_points": 0,
            "settebello_points": 2,
        },
        (4,),
    ),
    Preset(
        "spazzino",
        "Spazzino",
        "Cuperativa's Spazzino for two: picula, bagher, napola of "
        "spade, figures take only figures, game to 21.",
        "seed 000",
        {
            **_SPAZZINO_SCORING,
            "equal_card_precedence": False,
            "figures_capture_only_figures": True,
            "mazzo_ties": MazzoTies.SPLIT,
            "target_score": 21,
        },
        (2,),
    ),
    Preset(
        "spatola",
        "Spatola (2 players)",
        "Scopa crossed with Spazzino, game to 61.",
        "seed 001",
        _SPATOLA,
        (2, 4),
    ),
    Preset(
        "spatola4",
        "Spatola (4 players in pairs)",
        "Spatola for two pairs, game to 61.",
        "seed 001",
        {**_SPATOLA, "players": 4},
        (4,),
    ),
    Preset(
        "scopa15",
        "Scopa a 15",
        "A card takes the table cards that with it add up to 15.",
        "seeds 002, 004",
        {"capture_15": True},
        (2, 3, 4, 6),
    ),
    Preset(
        "scopa11",
        "Scopa a 11",
        "Normal captures plus taking cards that with the played card add up to 11.",
        "seed 004",
        {"capture_11": True},
        (2, 3, 4, 6),
    ),
    Preset(
        "asso_piglia_tutto",
        "Asso piglia tutto",
        "An ace takes the whole table; it does not count as a scopa.",
        "seed 002",
        {"ace_takes_all": True},
        (2, 3, 4, 6),
    ),
    Preset(
        "scopa_d_assi",
        "Scopa d'assi",
        "An ace takes the whole table and counts as a scopa;"
        " an ace on the table is taken alone; with napola.",
        "seed 004",
        {"ace_takes_all": True, "ace_sweep_counts": True, "napola_denari": True},
        (2, 3, 4, 6),
    ),
    Preset(
        "scopa_napola",
        "Scopa with Napola",
        "Scopa with the napola of denari; a napoleone wins the game at once.",
        "seed 002",
        {"napola_denari": True, "napoleone_wins": True},
        (2, 3, 4, 6),
    ),
    Preset(
        "bazzica",
        "Bazzica con accuse",
        "Scopa for two with declarations (accuse) of three cards of a rank or adding up to 9 or"
        " less, game to 21.",
        "seed 004",
        {"accusa": True, "target_score": 21},
        (2,),
    ),
    Preset(
        "punti_ai_denari",
        "Punti ai denari",
        "Scopa without the primiera; the fante, cavallo and re of denari score 1 point each.",
        "seed 004",
        {"primiera_points": 0, "denari_figures": True},
        (2, 3, 4, 6),
    ),
    Preset(
        "frac",
        "Scopa FRAC",
        "Only fanti, re, assi and cavalli score, 1 point each (16 a hand); no obligation to take"
        " an equal card rather than a sum; game to 50.",
        "seed 004",
        {
            "frac_points": True,
            "cards_points": 0,
            "denari_points": 0,
            "primiera_points": 0,
            "settebello_points": 0,
            "sweep_points": 0,
            "equal_card_precedence": False,
            "target_score": 50,
        },
        (2, 3, 4, 6),
    ),
    Preset(
        "sbarazzino",
        "Sbarazzino",
        "Emilia's ace game: an ace takes the whole table, which is not a scopa; game to 41.",
        "seed 004",
        {"ace_takes_all": True, "target_score": 41},
        (2, 3, 4, 6),
    ),
    Preset(
        "differenze",
        "Scopa delle differenze",
        "Two or more cards are taken by the card that makes their difference (fante and 2 by a 6;"
        " ace, 7 and re by a 2); one card by an equal card as usual.",
        "seed 004",
        {"capture_arithmetic": CaptureArithmetic.DIFFERENCE},
        (2, 3, 4, 6),
    ),
    Preset(
        "inversa",
        "Scopa inversa (hybrid)",
        "Captures by sum or by difference, the hybrid form of Scopa inversa.",
        "seed 004",
        {"capture_arithmetic": CaptureArithmetic.SUM_OR_DIFFERENCE},
        (2, 3, 4, 6),
    ),
    Preset(
        "inversa_mista",
        "Scopa inversa (mixed signs)",
        "The hybrid Scopa inversa read as mixed additions and subtractions: two or more cards are"
        " taken when their ranks, each added or subtracted, make the played card (5, 3 and 2 by a"
        " 6 as 5 + 3 - 2; ace, 4 and 5 by a 2 as 5 - 4 + 1).",
        "seed 004",
        {"capture_arithmetic": CaptureArithmetic.SIGNED},
        (2, 3, 4, 6),
    ),
    Preset(
        "tuzzulicchio",
        "Tuzzulicchio",
        "Bari's asso piglia tutto with hand declarations: buongioco (a pair or three of ace, 2,"
        " 3) and napoli (two or three of ace, 2, 3 of one suit).",
        "seed 004",
        {"ace_takes_all": True, "tuzzulicchio_declarations": True},
        (2, 3, 4, 6),
    ),
    Preset(
        "cocchiaundici",
        "Cocchiaundici",
        "Tuzzulicchio where a card may also take cards adding up to 11 with it.",
        "seed 004",
        {"ace_takes_all": True, "tuzzulicchio_declarations": True, "capture_11": True},
        (2, 3, 4, 6),
    ),
    Preset(
        "marescialla",
        "Marescialla",
        "Scopa d'assi with napola where the re of spade (maresciallo) costs 1 point, 4 if it"
        " sweeps; the fante of denari with the settebello (polacca) scores 1. At most"
        f" {_FALLING_HAND_LIMIT} hands, then the highest score wins.",
        "seed 004",
        {
            "ace_takes_all": True,
            "ace_sweep_counts": True,
            "napola_denari": True,
            "maresciallo": True,
            "polacca": True,
            "hand_limit": _FALLING_HAND_LIMIT,
        },
        (2, 3, 4, 6),
    ),
    Preset(
        "marescialla_80",
        "Marescialla with 80 cards",
        "Marescialla with two 40-card decks: 5 cards each and none on the table (4 deals for four"
        " players); every card and so every point and penalty twice; a card takes its twin only"
        " to sweep, for 3 points, and the re of spade sweeping its twin scores 10. At most"
        f" {_FALLING_HAND_LIMIT} hands.",
        "seed 004",
        {
            "deck_size": 80,
            "players": 4,
            "hand_size": 5,
            "table_cards": 0,
            "ace_takes_all": True,
            "ace_sweep_counts": True,
            "napola_denari": True,
            "maresciallo": True,
            "polacca": True,
            "twin_captures": True,
            "hand_limit": _FALLING_HAND_LIMIT,
        },
        (4, 2),
    ),
    Preset(
        "cicera_bigia",
        "Cicera bigia",
        "Brescia's Scopa for four in pairs with the 52-card Bresciane deck, 13 cards each (two"
        " players: 12 each and 4 on the table, dealt twice; three: 4 each and 4 on the table,"
        " dealt four times): figures (11, 12, 13) take only an equal figure; 2 points for most"
        " cards (1 each at 26-26), 1 for most spade, the napula of spade, 1 each for the 2 of"
        " spade and the 10 and the fante of denari, 1 a sweep; game to 51.",
        "seed 004; en.wikipedia.org/wiki/Cicera; D. Parlett, The Penguin Book of Card Games",
        {
            "deck_size": 52,
            "players": 4,
            "hand_size": 13,
            "table_cards": 0,
            "kings_redeal": 0,
            "figures_capture_only_figures": True,
            "cards_points": 2,
            "mazzo_ties": MazzoTies.SPLIT,
            "denari_points": 0,
            "spade_points": 1,
            "primiera_points": 0,
            "settebello_points": 0,
            "napola_spade": True,
            "two_of_spade": True,
            "denari_ten_fante": True,
            "spade_napoleone_wins": True,
            "target_score": 51,
        },
        (4, 2, 3),
        {2: {"hand_size": 12, "table_cards": 4}, 3: {"hand_size": 4, "table_cards": 4}},
    ),
    Preset(
        "cirulla",
        "Cirulla",
        "Liguria's game (named in seed 004; rules from Pagat and it.wikipedia): captures by sum,"
        " by 15 with the played card, the ace takes the table as a scopa; declarations with the"
        " matta; piccola and grande; cappotto wins; game to 51.",
        "seed 004 (name); pagat.com/fishing/cirulla.html; it.wikipedia.org/wiki/Cirulla",
        {
            "capture_15": True,
            "capture_15_only": False,
            "capture_15_fewest": False,
            "ace_takes_all": True,
            "ace_sweep_counts": True,
            "table_ace_15": True,
            "aces_on_table": AcesOnTable.REDEAL,
            "dealer_bonus": True,
            "cirulla_declarations": True,
            "napola_denari": True,
            "grande": True,
            "napoleone_wins": True,
            "target_score": 51,
        },
        (2, 3, 4),
    ),
    Preset(
        "a_non_prendere",
        "Scopa a non prendere",
        "Played to lose: each for himself (4 or 6), all cards dealt, ties give the point to every"
        " tied player; the first to 11 loses and the lowest score wins.",
        "seed 004",
        {
            "players": 4,
            "partnerships": False,
            "hand_size": 10,
            "table_cards": 0,
            "mazzo_ties": MazzoTies.ALL,
            "lowest_wins": True,
            "target_score": 11,
        },
        (4, 6),
        {6: {"hand_size": 6, "table_cards": 4}},
    ),
    Preset(
        "scopone_al_contrario",
        "Scopone romano al contrario",
        "Scopone romano played to lose by 4 or 5 players each alone: who reaches 21 leaves, the"
        " last one left wins.",
        "seed 004",
        {
            "players": 4,
            "partnerships": False,
            "hand_size": 9,
            "denari_each": True,
            "denari_points": 0,
            "settebello_points": 2,
            "elimination": True,
            "target_score": 21,
        },
        (4, 5),
        {5: {"hand_size": 7, "table_cards": 5}},
    ),
    Preset(
        "modulo_sette",
        "Modulo sette",
        "Values and sums modulo 7 (fante 1, cavallo 2, re 3, 7 is 0); ordinary sweeps cost 1"
        " point, modular sweeps score 1, a 7 sweeping a 7 nothing. At most"
        f" {_FALLING_HAND_LIMIT} hands, then the highest score wins.",
        "seed 004",
        {
            "modular_captures": True,
            "modular_sweeps": True,
            "sweep_points": 0,
            "hand_limit": _FALLING_HAND_LIMIT,
        },
        (2, 3, 4, 6),
    ),
    Preset(
        "rubamazzo",
        "Rubamazzo",
        "Steal an opponent's pile with a card of the rank on its top; no sweeps, only the most"
        " cards score, one hand a game.",
        "seed 004",
        {
            "pile_steal": True,
            "sweep_points": 0,
            "denari_points": 0,
            "primiera_points": 0,
            "settebello_points": 0,
            "target_score": 1,
        },
        (2, 3, 4),
    ),
    Preset(
        "fidasse",
        "Scopa fidasse",
        'Scopa where a seat may claim a sweep with a card played face down ("ti fidi?"):'
        " trusted, it stands unseen; doubted, a false claim costs the claimer a point and a true"
        f" one costs the doubter a point. At most {_FIDASSE_HAND_LIMIT} hands, then the highest"
        " score wins.",
        "seed 004; the hand limit is a local choice",
        {"sweep_claims": True, "hand_limit": _FIDASSE_HAND_LIMIT},
        (2, 3, 4, 6),
    ),
    Preset(
        "fattoria",
        "Scopa della fattoria",
        "Build a farm: a card played onto a table card when holding a card to take both next"
        " turn; others may take the farm or raise it; no primiera, the 2 of denari scores 1.",
        "seed 004",
        {"farms": True, "primiera_points": 0, "two_of_denari": True},
        (2, 4),
    ),
)

PRESETS: Final[dict[str, Preset]] = {p.id: p for p in _PRESET_LIST}


def _option_type(f: dataclasses.Field[Any]) -> tuple[str, tuple[str, ...]]:
    default = f.default
    if isinstance(default, StrEnum):
        return "enum", tuple(m.value for m in type(default))
    if isinstance(default, bool):
        return "bool", ()
    return "int", ()


def list_options() -> tuple[OptionInfo, ...]:
    """Every option with its type, default, description and source."""
    infos = []
    for f in dataclasses.fields(Options):
        kind, choices = _option_type(f)
        default = f.default.value if isinstance(f.default, StrEnum) else f.default
        infos.append(
            OptionInfo(
                f.name, kind, default, f.metadata["description"], f.metadata["source"], choices
            )
        )
    return tuple(infos)


def _coerce(name: str, value: Any) -> Any:
    fields = {f.name: f for f in dataclasses.fields(Options)}
    if name not in fields:
        raise InvalidOption(f"unknown option {name!r}", field=name)
    default = fields[name].default
    if isinstance(default, StrEnum):
        try:
            return type(default)(value)
        except ValueError:
            choices = ", ".join(m.value for m in type(default))
            raise InvalidOption(f"{name} must be one of {choices}", field=name) from None
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise InvalidOption(f"{name} must be a boolean", field=name)
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidOption(f"{name} must be an integer", field=name)
    return value


def _validate(o: Options, *, needs: bool = True) -> None:
    if o.deck_size not in DECK_SIZES:
        sizes = ", ".join(str(n) for n in DECK_SIZES)
        raise InvalidOption(f"deck_size must be one of {sizes}", field="deck_size")
    if o.elimination and o.deck_size != DECK_SIZES[0]:
        raise InvalidOption(
            "elimination deals the 40-card deck's shapes; it needs deck_size 40", field="deck_size"
        )
    if o.twin_captures and o.deck_size != _TWO_DECKS:
        raise InvalidOption("twin_captures needs two decks (deck_size 80)", field="twin_captures")
    if o.spade_napoleone_wins and (o.deck_size != _BRESCIANE or not o.napola_spade):
        raise InvalidOption(
            "spade_napoleone_wins needs the 52-card deck and napola_spade",
            field="spade_napoleone_wins",
        )
    if o.denari_ten_fante and o.deck_size != _BRESCIANE:
        raise InvalidOption(
            "denari_ten_fante needs the 52-card deck's fante (deck_size 52)",
            field="denari_ten_fante",
        )
    if o.players not in (2, 3, 4, 5, 6):
        raise InvalidOption("players must be 2, 3, 4, 5 or 6", field="players")
    if o.elimination and o.sides != o.players:
        raise InvalidOption(
            "elimination needs everyone to play alone (partnerships=false)", field="partnerships"
        )
    if o.elimination and o.lowest_wins:
        raise InvalidOption(
            "elimination and lowest_wins are two match flows; choose one", field="lowest_wins"
        )
    if o.hand_size < 1:
        raise InvalidOption("hand_size must be >= 1", field="hand_size")
    if o.table_cards < 0:
        raise InvalidOption("table_cards must be >= 0", field="table_cards")
    per_deal = o.players * o.hand_size
    if per_deal > o.deck_size:
        raise InvalidOption(
            f"{o.players} seats x {o.hand_size} cards is more than the {o.deck_size}-card deck",
            field="hand_size",
        )
    dealt = o.deck_size - o.table_cards
    if per_deal > dealt:
        raise InvalidOption(
            f"with {o.table_cards} table cards only {max(dealt, 0)} are left to deal, less than"
            f" one deal of {o.players} seats x {o.hand_size} cards",
            field="table_cards",
        )
    if dealt % (o.players * o.hand_size) != 0:
        raise InvalidOption(
            f"{o.players} seats x {o.hand_size} cards must divide the {dealt} cards dealt",
            field="hand_size",
        )
    if o.aces_on_table is AcesOnTable.RETURN and dealt - per_deal < 1:
        raise InvalidOption(
            "aces_on_table=return needs a stock after the first deal to turn replacement cards",
            field="aces_on_table",
        )
    if o.modular_captures and o.capture_arithmetic is not CaptureArithmetic.SUM:
        raise InvalidOption(
            "modular_captures counts sums; it cannot be combined with capture_arithmetic="
            f"{o.capture_arithmetic.value}",
            field="capture_arithmetic",
        )
    if o.capture_arithmetic is CaptureArithmetic.SIGNED and (
        o.optional_captures is not OptionalCaptures.NONE
    ):
        # Declined captures let the table grow, and a table's signed sets grow exponentially
        # with it.
        raise InvalidOption(
            "capture_arithmetic=signed cannot be combined with optional_captures="
            f"{o.optional_captures.value}: laid cards would pile up on the table and the signed "
            "sets of a large table are too many to list",
            field="optional_captures",
        )
    if o.capture_arithmetic is CaptureArithmetic.SIGNED and o.table_cards > _SIGNED_TABLE_MAX:
        # A starting table's signed sets grow exponentially with its cards; compulsory
        # captures keep the table small in play.
        raise InvalidOption(
            f"capture_arithmetic=signed allows at most {_SIGNED_TABLE_MAX} table cards: the"
            " signed sets of a larger table are too many to list",
            field="table_cards",
        )
    if o.sweep_claims:
        for name in PLAY_SPECIAL_OPTIONS:
            if getattr(o, name):
                # A trusted claim's card stays hidden: scoring it for a play would show it.
                raise InvalidOption(
                    f"sweep_claims keeps a trusted claim's card hidden, which {name} would"
                    " score (and so show); choose one",
                    field="sweep_claims",
                )
    if o.sweep_claims and o.pile_steal:
        raise InvalidOption(
            "sweep_claims keeps a trusted claim's card face down in the claimer's pile, which"
            " pile_steal's face-up piles would show; choose one",
            field="sweep_claims",
        )
    if o.frac_tie_re_bello and not o.frac_points:
        raise InvalidOption(
            "frac_tie_re_bello breaks a tie of the frac line; it needs frac_points",
            field="frac_tie_re_bello",
        )
    if o.sweep_claims and o.farms:
        raise InvalidOption(
            "sweep_claims settles a claim against the loose table only, which farms would leave"
            " beside it; choose one",
            field="sweep_claims",
        )
    if o.farms and o.optional_captures is not OptionalCaptures.NONE:
        # The farm rules decide which card may be laid (one that takes nothing builds or is
        # laid; one that can take a farm must): a declined capture would lay a card beside a
        # farm it could take on one path and not on another.
        raise InvalidOption(
            "farms decide which cards may be laid; they cannot be combined with"
            f" optional_captures={o.optional_captures.value}",
            field="optional_captures",
        )
    if not -1 <= o.first_dealer < o.players:
        raise InvalidOption("first_dealer must be -1 or a seat number", field="first_dealer")
    if needs:
        _check_needs(o)
    _check_void_deals(o)
    if o.target_score < 1:
        raise InvalidOption("target_score must be >= 1", field="target_score")
    if not 0 <= o.hand_limit <= _HAND_LIMIT_MAX:
        raise InvalidOption(
            f"hand_limit must be between 0 (no limit) and {_HAND_LIMIT_MAX}", field="hand_limit"
        )
    if o.kings_redeal < 0 or o.kings_redeal > 4 or o.kings_redeal == 1:
        raise InvalidOption("kings_redeal must be 0, 2, 3 or 4", field="kings_redeal")
    for name in (
        "cards_points",
        "denari_points",
        "spade_points",
        "primiera_points",
        "settebello_points",
        "sweep_points",
        "false_claim_points",
        "wrong_doubt_points",
    ):
        if not 0 <= getattr(o, name) <= 10:
            raise InvalidOption(f"{name} must be between 0 and 10", field=name)


def _ordinary_captures(o: Options) -> bool:
    """Whether the ordinary captures (equal card, sums or their arithmetic) are played."""
    return not (o.capture_15 and o.capture_15_only)


def _play_specials_on_last_card(o: Options) -> bool:
    """Whether a special-play rule that ``specials_on_last_card`` extends is on."""
    return o.picula or o.bagher or o.suit_capture or o.three_card_capture


_NO_ORDINARY: Final = (
    "which capture_15 with capture_15_only turns off (capture_15_only=false keeps them)"
)

_NEEDS: Final[tuple[tuple[str, Callable[[Options], bool], str], ...]] = (
    ("ace_sweep_counts", lambda o: o.ace_takes_all, "needs ace_takes_all, whose ace it scores"),
    (
        "ace_takes_only_table_ace",
        lambda o: o.ace_takes_all,
        "needs ace_takes_all, whose ace it limits",
    ),
    (
        "ace_on_empty_table_sweeps",
        lambda o: o.ace_takes_all,
        "needs ace_takes_all, whose ace it lets take itself",
    ),
    (
        "table_ace_15",
        lambda o: o.ace_takes_all and o.ace_takes_only_table_ace and o.capture_15,
        "needs ace_takes_all with ace_takes_only_table_ace and capture_15: it lets an ace"
        " played on a table ace make 15 instead",
    ),
    ("capture_15_only", lambda o: o.capture_15, "needs capture_15, whose captures it limits"),
    ("capture_15_fewest", lambda o: o.capture_15, "needs capture_15, whose captures it limits"),
    (
        "capture_arithmetic",
        _ordinary_captures,
        f"sets the ordinary captures, {_NO_ORDINARY}",
    ),
    (
        "modular_captures",
        _ordinary_captures,
        f"replaces the ordinary captures, {_NO_ORDINARY}",
    ),
    (
        "equal_card_precedence",
        _ordinary_captures,
        f"is a rule of the ordinary captures, {_NO_ORDINARY}",
    ),
    (
        "figures_capture_only_figures",
        lambda o: _ordinary_captures(o) and not o.modular_captures,
        "is a rule of the ordinary captures by sum or difference, which modular_captures or"
        " capture_15 with capture_15_only replace",
    ),
    (
        "dealer_bonus",
        lambda o: o.table_cards > 0,
        "scores the starting table, and with table_cards 0 there is none",
    ),
    ("dealer_bonus_low", lambda o: o.dealer_bonus, "needs dealer_bonus, whose bonus it widens"),
    ("picula_on_last_card", lambda o: o.picula, "needs picula, which it scores"),
    ("picula_after_redeal", lambda o: o.picula, "needs picula, which it scores"),
    ("bagher_on_last_card", lambda o: o.bagher, "needs bagher, which it scores"),
    (
        "specials_on_last_card",
        _play_specials_on_last_card,
        "needs one of picula, bagher, suit_capture or three_card_capture, which it scores",
    ),
    ("claim_answers", lambda o: o.sweep_claims, "needs sweep_claims, whose claims it answers"),
    ("false_claim_points", lambda o: o.sweep_claims, "needs sweep_claims, whose claims it prices"),
    ("wrong_doubt_points", lambda o: o.sweep_claims, "needs sweep_claims, whose claims it prices"),
    ("farm_raise", lambda o: o.farms, "needs farms, which it raises"),
    ("farm_owner_takes", lambda o: o.farms, "needs farms, which it makes the owner take"),
)
"""Options that do something only with others: each option's name, whether ``o`` gives it its
effect, and why not. Set away from its default without that, it would be accepted and do
nothing, so :func:`_check_needs` refuses it."""

_DEFAULTS: Final = Options()


def _check_needs(o: Options) -> None:
    """Refuse an option set away from its default where the others leave it nothing to do."""
    for name, effective, why in _NEEDS:
        value = getattr(o, name)
        if value != getattr(_DEFAULTS, name) and not effective(o):
            shown = value.value if isinstance(value, StrEnum) else str(value).lower()
            raise InvalidOption(f"{name}={shown} does nothing here: it {why}", field=name)


MAX_VOID_CHANCE: Final = Fraction(3, 4)
"""The highest chance of a void first deal a ruleset may have. The engine gives up on a hand
after 100 void deals in a row; at 3/4 that happens with odds below 1 in 10**12 per hand."""

_TWO_DECKS: Final = 80
_BRESCIANE: Final = 52
_RANKS_OF_FOUR: Final = 4
"""Kings (and aces) in one 40- or 52-card deck."""


def _per_rank(o: Options) -> int:
    """Cards of one rank in ``o``'s deck (4, or 8 in the two-deck 80)."""
    return _RANKS_OF_FOUR * (2 if o.deck_size == _TWO_DECKS else 1)


def _table_kings_void(k: int, kings: int) -> bool:
    return k > 0 and kings >= k


def void_deal_chance(o: Options) -> Fraction:
    """The exact chance that a hand's first deal is void (kings or aces on the table).

    The deal is a uniformly shuffled deck: the hands, then ``table_cards`` face up, then the
    stock. Void: at least ``kings_redeal`` kings on the table; with ``aces_on_table`` ``return``
    or ``redeal`` also two or more aces on it; with ``return`` also a lone ace that cannot be
    replaced (no card but aces left in the stock) or whose replacement, the stock's first card
    that is not an ace, is the king that completes ``kings_redeal``.
    """
    table = o.table_cards
    deck = o.deck_size
    four = _per_rank(o)
    rest = deck - table
    stock = rest - o.players * o.hand_size
    others = deck - 2 * four
    chance = Fraction(0)
    total = comb(deck, table)
    for aces in range(min(four, table) + 1):
        for kings in range(min(four, table - aces) + 1):
            ways = comb(four, aces) * comb(four, kings)
            ways *= comb(others, table - aces - kings)
            if not ways:
                continue
            weight = Fraction(ways, total)
            chance += weight * _void_given(o, aces, kings, rest, stock)
    return chance


def _void_given(o: Options, aces: int, kings: int, rest: int, stock: int) -> Fraction:
    """The chance of a void deal given the aces and kings among the table cards."""
    if _table_kings_void(o.kings_redeal, kings):
        return Fraction(1)
    if o.aces_on_table is AcesOnTable.KEEP or aces == 0:
        return Fraction(0)
    if aces > 1:
        return Fraction(1)
    if o.aces_on_table is AcesOnTable.REDEAL:  # a lone ace stays
        return Fraction(0)
    # A lone ace: the rest (hands + stock) holds the other aces; the stock is a random part.
    four = _per_rank(o)
    left_aces = four - 1
    only_aces = (
        Fraction(comb(left_aces, stock), comb(rest, stock)) if stock <= left_aces else Fraction(0)
    )
    non_aces = rest - left_aces
    king_next = Fraction(four - kings, non_aces) if non_aces else Fraction(0)
    completes = _table_kings_void(o.kings_redeal, kings + 1)
    return only_aces + (1 - only_aces) * (king_next if completes else 0)


def _check_void_deals(o: Options) -> None:
    chance = void_deal_chance(o)
    if chance > MAX_VOID_CHANCE:
        percent = float(chance * 100)
        raise InvalidOption(
            f"with {o.table_cards} table cards, kings_redeal={o.kings_redeal} and "
            f"aces_on_table={o.aces_on_table.value}, {percent:.4g}% of deals would be void "
            "(redealt); use fewer table cards or fewer void rules",
            field="table_cards",
        )


_DEFAULT_PLAYERS: Final = Options().players
_MANY_PLAYERS_TARGET: Final = 21


def _player_defaults(preset: Preset, players: int) -> dict[str, Any]:
    """Defaults that follow the player count where ``preset`` leaves them open.

    RULINGS.md Scopa: game to 11 with 2 players, 21 with 3 or more (seed 002); then the
    preset's own overrides for that seat count (``Preset.by_players``).
    """
    defaults: dict[str, Any] = {}
    if players >= 3 and "target_score" not in preset.overrides:
        defaults["target_score"] = _MANY_PLAYERS_TARGET
    defaults.update(preset.by_players.get(players, {}))
    return defaults


def make_ruleset(
    preset: str = "scopa", overrides: dict[str, Any] | None = None, *, stored: bool = False
) -> Ruleset:
    """Resolve ``preset`` plus option ``overrides`` into a validated :class:`Ruleset`.

    Options the preset does not set take their defaults, except that ``target_score`` is 21
    with 3 or more players; the caller's ``overrides`` win over both. ``stored`` is for a game
    already created (loaded from the store): it skips the checks that only refuse options
    which would do nothing (:func:`_check_needs`), so a game created before such a check was
    added still loads and plays as it did.
    """
    if preset not in PRESETS:
        raise InvalidOption(f"unknown preset {preset!r}", field="preset")
    base = PRESETS[preset]
    chosen = {name: _coerce(name, value) for name, value in (overrides or {}).items()}
    values = dict(base.overrides)
    players = chosen.get("players", values.get("players", _DEFAULT_PLAYERS))
    values.update(_player_defaults(base, players))
    values.update(chosen)
    options = Options(**values)
    _check_players(base, options.players)
    _validate(options, needs=not stored)
    _check_scores_something(options)
    if not stored:  # a stored game keeps the limit it was created with, none included
        options = _with_hand_limit(options, "hand_limit" in chosen)
    return Ruleset(preset, options)


def scores_can_fall(options: Options) -> bool:
    """Whether a hand can cost a side points (penalised claims or doubts, Modulo sette's
    sweeps, the maresciallo, the saponaro): then no score need ever reach the target."""
    claims_cost = options.sweep_claims and (
        options.false_claim_points > 0 or options.wrong_doubt_points > 0
    )
    return bool(claims_cost or options.modular_sweeps or options.maresciallo or options.saponaro)


def _with_hand_limit(options: Options, given: bool) -> Options:
    """``options`` with :data:`_FALLING_HAND_LIMIT` hands at most when its scores can fall and
    no limit was set; refused when the caller asked for none (``given``)."""
    if options.hand_limit or not scores_can_fall(options):
        return options
    if given:
        raise InvalidOption(
            "hand_limit 0 (none) is refused where a hand can cost points (sweep_claims,"
            " modular_sweeps, maresciallo, saponaro): the scores could stay below target_score"
            f" for ever; give 1-{_HAND_LIMIT_MAX}",
            field="hand_limit",
        )
    return dataclasses.replace(options, hand_limit=_FALLING_HAND_LIMIT)


def _check_scores_something(options: Options) -> None:
    """Refuse options under which no hand can score a point: such a match would never end."""
    from ._scoring import hand_points_bound  # noqa: PLC0415 - _scoring builds on this module

    if hand_points_bound(options, options.deck_size - options.table_cards) <= 0:
        raise InvalidOption(
            "these options score no points in a hand, so the game could never end",
            field="target_score",
        )


def _check_players(preset: Preset, players: int) -> None:
    if players not in preset.players:
        *rest, last = [str(n) for n in preset.players]
        spelled = f"{', '.join(rest)} or {last}" if rest else last
        raise InvalidOption(f"preset {preset.id} is for {spelled} players", field="players")
