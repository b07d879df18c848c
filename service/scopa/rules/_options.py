"""Rulesets as data: every option with its default, description and source.

An :class:`Options` value is immutable. Named presets are in ``_presets``; ``_ruleset``
resolves a preset plus overrides into a validated :class:`~scopa.rules.Ruleset`.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from ._errors import InvalidOption
from ._sources import SCOPA_PAGE, SOURCES, SPATOLA, SPAZZINO, WIKIPEDIA, cite, ruling

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

SWEEP_SPECIAL_OPTIONS: Final = ("modular_sweeps", "maresciallo", "twin_captures")
"""The options of the special-play rules that score a sweep beside the sweeps line (a test
checks that no other special rule looks at whether a play swept)."""

__all__ = [
    "AcesOnTable",
    "CaptureArithmetic",
    "ClaimAnswers",
    "MazzoTies",
    "OptionInfo",
    "OptionalCaptures",
    "Options",
    "PrimieraMethod",
    "list_options",
]


class PrimieraMethod(StrEnum):
    """How the primiera point is decided."""

    STANDARD = "standard"
    """Best card per suit, 7=21 6=18 A=16 5=15 4=14 3=13 2=12 figures=10 (every Scopa and
    Spatola text)."""
    VENETO = "veneto"
    """Face value, ace 5.5, figures 0.5 (it.wikipedia's Scopa page)."""
    MILAN = "milan"
    """Most 7s, then most 6s, then most aces (it.wikipedia's Scopa page)."""


class MazzoTies(StrEnum):
    """What a tie in a "most cards of ..." component gives."""

    UNASSIGNED = "unassigned"
    """Nobody scores (Scopa, Spatola)."""
    SPLIT = "split"
    """Every tied side scores ``max(1, points // tied_sides)`` (Spazzino: 2 points, 1 each)."""
    ALL = "all"
    """Every tied side scores the whole points (A non prendere, it.wikipedia)."""


class AcesOnTable(StrEnum):
    """What happens when aces are turned onto the starting table."""

    KEEP = "keep"
    """Nothing special."""
    RETURN = "return"
    """A single ace goes to the bottom of the stock and another card is turned; two or more
    aces on the starting table force a redeal ("Come si gioca a Scopa?")."""
    REDEAL = "redeal"
    """Two or more aces on the starting table force a redeal; a single ace stays (Cirulla:
    regoledelgioco, Parlett)."""
    SWEEP = "sweep"
    """Two or more aces on the starting table go to the dealer's side for a sweep (1 point, line
    ``aces_sweep``); a single ace stays (some Cirulla engines)."""


class CaptureArithmetic(StrEnum):
    """How two or more table cards make up the played card's value."""

    SUM = "sum"
    """They add up to it (every Scopa text)."""
    DIFFERENCE = "difference"
    """The highest minus all the others is it (Scopa delle differenze, it.wikipedia)."""
    SUM_OR_DIFFERENCE = "sum_or_difference"
    """Either (the hybrid Scopa inversa, it.wikipedia)."""
    SIGNED = "signed"
    """Any mix of signs: the cards' ranks, each added or subtracted, make it (5 + 3 - 2 = 6;
    the hybrid Scopa inversa read as mixed additions and subtractions, it.wikipedia)."""


class OptionalCaptures(StrEnum):
    """Which cards that can capture may still be laid (capturing is compulsory otherwise)."""

    NONE = "none"
    """Capturing is compulsory (every rules text)."""
    FIGURES = "figures"
    """A figure may decline to take an equal figure (Cicera: regoledelgioco)."""
    ALL = "all"
    """Any card may decline its captures (Cicera: gamerules.com)."""


class ClaimAnswers(StrEnum):
    """Who answers a claimed sweep (Scopa fidasse, ``sweep_claims``)."""

    OPPONENTS = "opponents"
    """Every opponent in playing order from the claimer, until one doubts (it.wikipedia's "based on
    the opponents' answers"; with one opponent, that opponent)."""
    NEXT = "next"
    """Only the next opponent in playing order answers for the other side(s)."""


def _opt(default: Any, description: str, source: str) -> Any:
    return field(default=default, metadata={"description": description, "source": source})


@dataclass(frozen=True, slots=True)
class Options:
    """Every rule of the engine, as plain data. Defaults are the 2-player Scopa of
    "Come si gioca a Scopa?" (:data:`~scopa.rules._sources.SCOPA_PAGE`)."""

    # --- table and deal ---------------------------------------------------------------
    players: int = _opt(
        2,
        "Number of seats: 2, 3, 4 or 6 (5 where the deal divides the deck, as in Scopone al "
        "contrario).",
        cite(SCOPA_PAGE, WIKIPEDIA),
    )
    partnerships: bool = _opt(
        True,
        "With 4 or 6 players, play in two teams of alternate seats (0+2 vs 1+3, 0+2+4 vs 1+3+5).",
        cite(WIKIPEDIA, ruling("seats numbered in playing order, so partners alternate")),
    )
    deck_size: int = _opt(
        40,
        "The deck: 40 (Italian), 52 (Bresciane: ranks 1..10 are numerals, 11 fante, 12 cavallo,"
        " 13 re) or 80 (two 40-card decks; every card twice).",
        cite(
            SPAZZINO, SPATOLA, SCOPA_PAGE, WIKIPEDIA.on("Cicera bigia's 52 cards, Marescialla's 80")
        ),
    )
    hand_size: int = _opt(3, "Cards dealt to each seat at every deal.", cite(*SOURCES))
    table_cards: int = _opt(
        4, "Cards laid face up on the table at the start of a hand.", cite(*SOURCES)
    )
    first_dealer: int = _opt(
        -1,
        "Seat that deals the first hand; -1 means the last seat, so seat 0 leads.",
        ruling("the texts do not say who deals first"),
    )
    kings_redeal: int = _opt(
        3,
        "Redeal when at least this many kings lie on the starting table (0 = never; 3 per "
        "it.wikipedia, which says the hand is then generally not played; 2 regionally per "
        '"Come si gioca a Scopa?").',
        cite(SCOPA_PAGE, WIKIPEDIA),
    )
    aces_on_table: AcesOnTable = _opt(
        AcesOnTable.KEEP,
        "Aces turned onto the starting table: keep; return to the stock (two aces: redeal); "
        "redeal (two or more aces void the deal, a single ace stays: Cirulla); or sweep (two or "
        "more aces go to the dealer's side for a sweep, 1 point on the line aces_sweep, a single"
        " ace stays: some Cirulla engines).",
        cite(
            SCOPA_PAGE,
            "regoledelgioco.com Cirulla",
            "Parlett (Cirulla)",
            ruling("sweep: an option for what some Cirulla engines do"),
        ),
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
        cite(
            SCOPA_PAGE,
            WIKIPEDIA,
            ruling("the Spazzino and Spatola texts do not state it: their presets leave it free"),
        ),
    )
    figures_capture_only_figures: bool = _opt(
        False,
        "Figures (8, 9, 10; 11, 12, 13 in the 52-card deck) capture only an equal figure, never"
        " a sum.",
        cite(SPAZZINO),
    )
    twin_captures: bool = _opt(
        False,
        "Two decks (deck_size 80): a card takes its twin (the other copy of its suit and rank)"
        " only to sweep, and that sweep scores 3 (line twin_sweeps +2); the re of spade sweeping"
        " the other re of spade scores 10 (+9) instead of the maresciallo's sweep penalty.",
        WIKIPEDIA.on("Marescialla with 80 cards"),
    )
    ace_takes_all: bool = _opt(
        False,
        "Asso piglia tutto: a played ace takes every card on the table.",
        cite(SCOPA_PAGE, WIKIPEDIA),
    )
    ace_sweep_counts: bool = _opt(
        False,
        "With ace_takes_all, clearing the table with an ace scores a sweep.",
        cite(SCOPA_PAGE),
    )
    ace_takes_only_table_ace: bool = _opt(
        True,
        "With ace_takes_all, an ace played while an ace lies on the table takes only that ace.",
        WIKIPEDIA.on("Scopa d'assi"),
    )
    table_ace_15: bool = _opt(
        False,
        "With ace_takes_all, ace_takes_only_table_ace and capture_15, an ace played while an ace"
        " lies on the table may instead take cards that with it add up to 15 (Cirulla).",
        "genovagioca.it and sourceforge.net/p/cirulla (Cirulla); github.com/rvenning/scopa",
    )
    ace_takes_15: bool = _opt(
        False,
        "With ace_takes_all and capture_15, an ace played while no ace lies on the table may"
        " instead take cards that with it add up to 15 (default: it takes the whole table, as"
        " the rule pages' \"l'asso piglia tutto\" says).",
        cite(
            'github.com/GioeleGhidara/cirulla (an engine: "oppure somma 15")',
            ruling("an option for what that engine does"),
        ),
    )
    ace_on_empty_table_sweeps: bool = _opt(
        False,
        "With ace_takes_all, an ace played on an empty table takes itself and scores a sweep "
        "(default: it is laid like any card).",
        ruling("the texts do not say; by default the ace is laid like any card"),
    )
    capture_15: bool = _opt(
        False,
        "Scopa a 15: a card takes table cards that with it add up to 15, fewest cards first.",
        cite(SCOPA_PAGE, WIKIPEDIA),
    )
    capture_15_only: bool = _opt(
        True,
        "With capture_15, the ordinary captures (equal card or sum) are not allowed "
        '("Come si gioca a Scopa?"); false keeps them beside the 15 captures (it.wikipedia\'s '
        "reading).",
        cite(SCOPA_PAGE, WIKIPEDIA),
    )
    capture_15_fewest: bool = _opt(
        True,
        "With capture_15, only the 15 combinations with the fewest cards may be taken"
        " (it.wikipedia); false: any of them (Cirulla).",
        cite(WIKIPEDIA, "Pagat Cirulla"),
    )
    capture_11: bool = _opt(
        False,
        "Scopa a 11 / Cocchiaundici: a card may also take cards that with it add up to 11, even "
        "when an equal card lies on the table.",
        cite(WIKIPEDIA),
    )
    capture_arithmetic: CaptureArithmetic = _opt(
        CaptureArithmetic.SUM,
        "How two or more table cards make up the played card: sum; difference (the highest minus "
        "the others: fante and 2 are taken by a 6); sum_or_difference (either); signed (each "
        "card added or subtracted: 5, 3 and 2 are taken by a 6 as 5 + 3 - 2).",
        WIKIPEDIA.on("Scopa delle differenze, Scopa inversa"),
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
        cite(WIKIPEDIA),
    )
    modular_sweeps: bool = _opt(
        False,
        "Modulo sette's sweeps: a sweep that is also an ordinary capture scores -1, a modular one "
        "+1, a 7 taking a lone 7 nothing (score-sheet lines traditional_sweeps, modular_sweeps).",
        cite(WIKIPEDIA),
    )
    sweep_on_last_card: bool = _opt(
        False,
        "A sweep made with the last card of the hand scores.",
        cite(SPAZZINO, SCOPA_PAGE, WIKIPEDIA),
    )
    sweep_points: int = _opt(1, "Points for each sweep (scopa, spazzino, spatola).", cite(*SOURCES))
    # --- Spazzino / Spatola specials --------------------------------------------------
    picula: bool = _opt(
        False,
        "Picula / piccola, 1 point: take with an equal card exactly the card the previous player "
        "just laid without capturing.",
        cite(SPAZZINO, SPATOLA),
    )
    bagher: bool = _opt(
        False,
        "Bagher: a capture of two or more cards all of the played card's suit scores 1 point per "
        "card, the played card included.",
        cite(SPAZZINO, SPATOLA),
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
        cite(WIKIPEDIA),
    )
    pile_steal: bool = _opt(
        False,
        "Rubamazzo: instead of playing to the table, a seat may play a card of the rank of the top"
        " card of another side's pile to take that whole pile; the card goes on top of its own"
        " pile, which may be stolen in turn.",
        cite(WIKIPEDIA),
    )
    sweep_claims: bool = _opt(
        False,
        "Scopa fidasse: a seat may play a card face down claiming that it sweeps the table and ask"
        ' "ti fidi?"; trusted, the sweep stands unseen; doubted, the card is shown: a false'
        " claim is annulled (the card is laid) and costs the claimer false_claim_points, a true"
        " one stands and costs the doubter wrong_doubt_points.",
        cite(WIKIPEDIA),
    )
    claim_answers: ClaimAnswers = _opt(
        ClaimAnswers.OPPONENTS,
        "With sweep_claims, who answers a claim: every opponent in playing order until one doubts"
        " (opponents), or the next opponent alone (next).",
        cite(WIKIPEDIA, ruling("the text does not say which opponent answers")),
    )
    false_claim_points: int = _opt(
        1, "With sweep_claims, the points a doubted false claim costs the claimer.", cite(WIKIPEDIA)
    )
    wrong_doubt_points: int = _opt(
        1, "With sweep_claims, the points doubting a true claim costs the doubter.", cite(WIKIPEDIA)
    )
    farms: bool = _opt(
        False,
        "Scopa della fattoria: a card that takes nothing may be played onto one table card,"
        " forming a farm worth both, by a seat holding another card of that value; a card of a"
        " farm's value takes it whole (with one loose card of that value, if any).",
        cite(WIKIPEDIA),
    )
    farm_raise: bool = _opt(
        True,
        "With farms, another seat may raise a farm with a card that takes nothing, when it holds"
        " a card of the new value; the farm becomes its own.",
        cite(WIKIPEDIA),
    )
    farm_owner_takes: bool = _opt(
        True,
        "With farms, a farm's owner must take it on its next turn (false: it may play on, and a"
        " farm left at the hand's end goes with the leftover cards).",
        cite(WIKIPEDIA, ruling("the text's \"next round\" read as the owner's next turn")),
    )
    tuzzulicchio_declarations: bool = _opt(
        False,
        "Tuzzulicchio's declarations, before the seat's first card of the deal: two of one rank "
        "among ace, 2, 3 (buongioco, 3 points; three: 6), two of ace, 2, 3 of one suit (napoli, "
        "3; all three: 7); a hand with both scores both.",
        cite(WIKIPEDIA),
    )
    cirulla_declarations: bool = _opt(
        False,
        "Cirulla's declarations on receiving three cards: adding up to 9 or less 3 points, three "
        "of a rank 10; the 7 of coppe (matta) counts as any card in them.",
        "Pagat Cirulla; it.wikipedia Cirulla",
    )
    specials_on_last_card: bool = _opt(
        False,
        "Picula and bagher also score on the last card of the hand.",
        cite(SPAZZINO, "the Cuperativa program"),
    )
    picula_on_last_card: bool = _opt(
        False,
        "The picula alone also scores on the last card of the hand (the Spatola text forbids"
        " the piccola there; specials_on_last_card turns on both).",
        cite(SPAZZINO, SPATOLA, ruling("the texts disagree on the last card: both are options")),
    )
    bagher_on_last_card: bool = _opt(
        False,
        "The bagher alone also scores on the last card of the hand (Cuperativa does not score it"
        " there).",
        cite(SPAZZINO, "the Cuperativa program"),
    )
    picula_after_redeal: bool = _opt(
        True,
        "The card laid just before a mid-hand re-deal can still be taken as a picula after it "
        "(Lo Spazzino's text); false: each re-deal forgets it, as Cuperativa does.",
        cite(SPAZZINO, "the Cuperativa program"),
    )
    # --- scoring ------------------------------------------------------------------------
    cards_points: int = _opt(1, "Points for most cards (carte, la lunga).", cite(*SOURCES))
    denari_points: int = _opt(
        1, "Points for most denari (ori).", cite(SPATOLA, SCOPA_PAGE, WIKIPEDIA)
    )
    spade_points: int = _opt(0, "Points for most spade.", cite(SPAZZINO, SPATOLA))
    primiera_points: int = _opt(1, "Points for the primiera.", cite(SPATOLA, SCOPA_PAGE, WIKIPEDIA))
    primiera_method: PrimieraMethod = _opt(
        PrimieraMethod.STANDARD, "How the primiera is decided.", cite(WIKIPEDIA)
    )
    settebello_points: int = _opt(1, "Points for the 7 of denari.", cite(*SOURCES))
    re_bello: bool = _opt(
        False, "Re bello: the re of denari scores 1 point.", cite(SPATOLA, SCOPA_PAGE)
    )
    rosmarino: bool = _opt(
        False, "Rosmarino: the fante of spade scores 1 point.", cite(SPAZZINO, SPATOLA)
    )
    two_of_spade: bool = _opt(False, "The 2 of spade scores 1 point.", cite(SPAZZINO, SPATOLA))
    denari_ten_fante: bool = _opt(
        False,
        "Cicera bigia (deck_size 52): the 10 and the fante (rank 11) of denari score 1 point each.",
        "D. Parlett, The Penguin Book of Card Games (Cicera); en.wikipedia.org/wiki/Cicera",
    )
    two_of_denari: bool = _opt(
        False, "The 2 of denari scores 1 point (Scopa della fattoria).", cite(WIKIPEDIA)
    )
    denari_each: bool = _opt(
        False,
        "Scopone romano: every denaro scores 1 point (settebello per settebello_points) instead "
        "of a point for most denari.",
        cite(WIKIPEDIA),
    )
    settanta: bool = _opt(False, "Settanta: all four 7s score 1 more point.", cite(WIKIPEDIA))
    maresciallo: bool = _opt(
        False,
        "Marescialla: the re of spade (the maresciallo) costs its taker 1 point, 4 when it was "
        "played to make a sweep (line maresciallo -1, maresciallo_sweep -3 more).",
        cite(WIKIPEDIA),
    )
    polacca: bool = _opt(
        False,
        "Marescialla's polacca: the fante of denari beside the settebello scores 1 more point "
        "(alone nothing).",
        cite(WIKIPEDIA),
    )
    saponaro: bool = _opt(
        False,
        "Marescialla in central Italy: the fante of spade (saponaro) taken with the maresciallo "
        "costs 1 more point (alone nothing).",
        cite(WIKIPEDIA),
    )
    grande: bool = _opt(
        False,
        "Cirulla's grande: the fante, cavallo and re of denari together score 5 points.",
        "Pagat Cirulla; it.wikipedia Cirulla",
    )
    denari_figures: bool = _opt(
        False,
        "Punti ai denari: the fante, the cavallo and the re of denari score 1 point each.",
        cite(WIKIPEDIA),
    )
    frac_points: bool = _opt(
        False,
        "Scopa FRAC: every fante, re, asso and cavallo taken scores 1 point (16 in the deck).",
        cite(WIKIPEDIA),
    )
    frac_tie_re_bello: bool = _opt(
        False,
        "FRAC's single-hand game: when the frac line ties at the top, the tied side that took the"
        " re of denari scores 1 more (an 8-8 goes to it); needs frac_points.",
        cite(WIKIPEDIA),
    )
    napola_denari: bool = _opt(
        False,
        "Napola of denari: ace, 2, 3 of denari = 3 points, +1 per next rank in an unbroken run.",
        cite(SPATOLA, SCOPA_PAGE, WIKIPEDIA),
    )
    napola_spade: bool = _opt(
        False, "Napola of spade, counted the same way.", cite(SPAZZINO, SPATOLA)
    )
    napola_top: int = _opt(
        0,
        "The highest rank a napola's run counts (0: the whole suit). Cirulla's piccola stops at"
        " the 7: ace to 7 of denari scores 7, and the figures score only in the grande.",
        "pagat.com/fishing/cirulla.html and it.wikipedia.org/wiki/Cirulla (as read by"
        " github.com/rvenning/scopa); github.com/GioeleGhidara/cirulla",
    )
    napoleone_wins: bool = _opt(
        False, "Napoleone (all ten denari) wins the game at once.", cite(SCOPA_PAGE, WIKIPEDIA)
    )
    spade_napoleone_wins: bool = _opt(
        False,
        "Cicera bigia (deck_size 52, napola_spade): a side taking all thirteen spade wins the game"
        " at once.",
        "en.wikipedia.org/wiki/Cicera; it.wikipedia.org/wiki/Cicera_bigia",
    )
    mazzo_ties: MazzoTies = _opt(
        MazzoTies.UNASSIGNED, "Ties in most cards / denari / spade / primiera.", cite(*SOURCES)
    )
    lowest_wins: bool = _opt(
        False,
        "A non prendere: the match ends when a side reaches target_score, and the lowest score "
        "wins (every side tied for it).",
        cite(WIKIPEDIA),
    )
    elimination: bool = _opt(
        False,
        "Scopone al contrario: a seat reaching target_score leaves the match, the others play on"
        " (5 seats: 7 cards and 5 on the table, 4: 9 and 4, 3 or 2: 6 and 4) until one is left,"
        " the winner. Everyone plays alone.",
        cite(WIKIPEDIA),
    )
    target_score: int = _opt(
        11,
        "The game is won by reaching this score: 11 with 2 players, 21 with 3 or more unless "
        "the preset or the caller sets it.",
        cite(
            SCOPA_PAGE,
            ruling("checked at a hand's end: the highest wins, a tie at the top plays on"),
        ),
    )
    hand_limit: int = _opt(
        0,
        "The match ends after this many hands at the latest (0: no limit); the side(s) with the"
        " best score then win: the highest, the lowest with lowest_wins, the lowest still in"
        " with elimination. It bounds a match whose penalties can keep every score below"
        f" target_score: where a hand can cost points (sweep_claims, modular_sweeps,"
        " maresciallo, saponaro) or only declarations score it is"
        f" {_FALLING_HAND_LIMIT} unless the preset or the caller sets it, and 0 is refused.",
        ruling("no rules text sets one; it ends matches whose scores can fall"),
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


def _option_type(f: dataclasses.Field[Any]) -> tuple[str, tuple[str, ...]]:
    default = f.default
    if isinstance(default, StrEnum):
        return "enum", tuple(m.value for m in type(default))
    if isinstance(default, bool):
        return "bool", ()
    return "int", ()


@functools.cache
def list_options() -> tuple[OptionInfo, ...]:
    """Every option with its type, default, description and source; built once (the options
    never change; building them took ~1.1M instructions, at every finished game's record)."""
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
