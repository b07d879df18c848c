"""Named presets: the option overrides of each variant, with its sources and seat counts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from ._options import (
    _FALLING_HAND_LIMIT,
    _FIDASSE_HAND_LIMIT,
    AcesOnTable,
    CaptureArithmetic,
    MazzoTies,
    Options,
)
from ._sources import SCOPA_PAGE, SPATOLA, SPAZZINO, WIKIPEDIA, cite, ruling

__all__ = ["PRESETS", "Preset"]


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
        cite(SCOPA_PAGE),
        {},
        (2, 3, 4, 6),
    ),
    Preset(
        "scopa3",
        "Scopa (3 players)",
        "Scopa for three, 4 deals of 3, game to 21.",
        cite(SCOPA_PAGE, WIKIPEDIA),
        {"players": 3, "target_score": 21},
        (3,),
    ),
    Preset(
        "scopa4",
        "Scopa (4 players in pairs)",
        "Two pairs, 3 deals of 3, game to 21.",
        cite(SCOPA_PAGE, WIKIPEDIA),
        {"players": 4, "target_score": 21},
        (4,),
    ),
    Preset(
        "scopa6",
        "Scopa (6 players, two teams of three)",
        "2 deals of 3, game to 21.",
        cite(WIKIPEDIA),
        {"players": 6, "target_score": 21},
        (6,),
    ),
    Preset(
        "scopone",
        "Scopone",
        "4 players in pairs, 9 cards each and 4 on the table.",
        cite(WIKIPEDIA),
        {"players": 4, "hand_size": 9, "target_score": 21},
        (4,),
    ),
    Preset(
        "scopone_scientifico",
        "Scopone scientifico",
        "4 players in pairs, 10 cards each and none on the table.",
        cite(WIKIPEDIA),
        {"players": 4, "hand_size": 10, "table_cards": 0, "target_score": 21},
        (4,),
    ),
    Preset(
        "scopone_romano",
        "Scopone romano",
        "Scopone scoring every denaro 1, settebello 2, carte 1, primiera 1 (13 a hand).",
        cite(WIKIPEDIA),
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
        cite(SPAZZINO),
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
        cite(SPATOLA),
        _SPATOLA,
        (2, 4),
    ),
    Preset(
        "spatola4",
        "Spatola (4 players in pairs)",
        "Spatola for two pairs, game to 61.",
        cite(SPATOLA),
        {**_SPATOLA, "players": 4},
        (4,),
    ),
    Preset(
        "scopa15",
        "Scopa a 15",
        "A card takes the table cards that with it add up to 15.",
        cite(SCOPA_PAGE, WIKIPEDIA),
        {"capture_15": True},
        (2, 3, 4, 6),
    ),
    Preset(
        "scopa11",
        "Scopa a 11",
        "Normal captures plus taking cards that with the played card add up to 11.",
        cite(WIKIPEDIA),
        {"capture_11": True},
        (2, 3, 4, 6),
    ),
    Preset(
        "asso_piglia_tutto",
        "Asso piglia tutto",
        "An ace takes the whole table; it does not count as a scopa.",
        cite(SCOPA_PAGE),
        {"ace_takes_all": True},
        (2, 3, 4, 6),
    ),
    Preset(
        "scopa_d_assi",
        "Scopa d'assi",
        "An ace takes the whole table and counts as a scopa;"
        " an ace on the table is taken alone; with napola.",
        cite(WIKIPEDIA),
        {"ace_takes_all": True, "ace_sweep_counts": True, "napola_denari": True},
        (2, 3, 4, 6),
    ),
    Preset(
        "scopa_napola",
        "Scopa with Napola",
        "Scopa with the napola of denari; a napoleone wins the game at once.",
        cite(SCOPA_PAGE),
        {"napola_denari": True, "napoleone_wins": True},
        (2, 3, 4, 6),
    ),
    Preset(
        "bazzica",
        "Bazzica con accuse",
        "Scopa for two with declarations (accuse) of three cards of a rank or adding up to 9 or"
        " less, game to 21.",
        cite(WIKIPEDIA),
        {"accusa": True, "target_score": 21},
        (2,),
    ),
    Preset(
        "punti_ai_denari",
        "Punti ai denari",
        "Scopa without the primiera; the fante, cavallo and re of denari score 1 point each.",
        cite(WIKIPEDIA),
        {"primiera_points": 0, "denari_figures": True},
        (2, 3, 4, 6),
    ),
    Preset(
        "frac",
        "Scopa FRAC",
        "Only fanti, re, assi and cavalli score, 1 point each (16 a hand); no obligation to take"
        " an equal card rather than a sum; game to 50.",
        cite(WIKIPEDIA),
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
        cite(WIKIPEDIA),
        {"ace_takes_all": True, "target_score": 41},
        (2, 3, 4, 6),
    ),
    Preset(
        "differenze",
        "Scopa delle differenze",
        "Two or more cards are taken by the card that makes their difference (fante and 2 by a 6;"
        " ace, 7 and re by a 2); one card by an equal card as usual.",
        cite(WIKIPEDIA),
        {"capture_arithmetic": CaptureArithmetic.DIFFERENCE},
        (2, 3, 4, 6),
    ),
    Preset(
        "inversa",
        "Scopa inversa (hybrid)",
        "Captures by sum or by difference, the hybrid form of Scopa inversa.",
        cite(WIKIPEDIA),
        {"capture_arithmetic": CaptureArithmetic.SUM_OR_DIFFERENCE},
        (2, 3, 4, 6),
    ),
    Preset(
        "inversa_mista",
        "Scopa inversa (mixed signs)",
        "The hybrid Scopa inversa read as mixed additions and subtractions: two or more cards are"
        " taken when their ranks, each added or subtracted, make the played card (5, 3 and 2 by a"
        " 6 as 5 + 3 - 2; ace, 4 and 5 by a 2 as 5 - 4 + 1).",
        cite(WIKIPEDIA),
        {"capture_arithmetic": CaptureArithmetic.SIGNED},
        (2, 3, 4, 6),
    ),
    Preset(
        "tuzzulicchio",
        "Tuzzulicchio",
        "Bari's asso piglia tutto with hand declarations: buongioco (a pair or three of ace, 2,"
        " 3) and napoli (two or three of ace, 2, 3 of one suit).",
        cite(WIKIPEDIA),
        {"ace_takes_all": True, "tuzzulicchio_declarations": True},
        (2, 3, 4, 6),
    ),
    Preset(
        "cocchiaundici",
        "Cocchiaundici",
        "Tuzzulicchio where a card may also take cards adding up to 11 with it.",
        cite(WIKIPEDIA),
        {"ace_takes_all": True, "tuzzulicchio_declarations": True, "capture_11": True},
        (2, 3, 4, 6),
    ),
    Preset(
        "marescialla",
        "Marescialla",
        "Scopa d'assi with napola where the re of spade (maresciallo) costs 1 point, 4 if it"
        " sweeps; the fante of denari with the settebello (polacca) scores 1. At most"
        f" {_FALLING_HAND_LIMIT} hands, then the highest score wins.",
        cite(WIKIPEDIA),
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
        cite(WIKIPEDIA),
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
        cite(
            WIKIPEDIA, "en.wikipedia.org/wiki/Cicera", "D. Parlett, The Penguin Book of Card Games"
        ),
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
        "Liguria's game (named on it.wikipedia's Scopa page; rules from Pagat and it.wikipedia):"
        " captures by sum, by 15 with the played card, the ace takes the table as a scopa;"
        " declarations with the matta; piccola (ace to 7 of denari) and grande; cappotto wins;"
        " game to 51.",
        cite(
            WIKIPEDIA.on("the name"),
            "pagat.com/fishing/cirulla.html",
            "it.wikipedia.org/wiki/Cirulla",
        ),
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
            "napola_top": 7,
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
        cite(WIKIPEDIA),
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
        cite(WIKIPEDIA),
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
        cite(WIKIPEDIA),
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
        cite(WIKIPEDIA),
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
        cite(WIKIPEDIA, ruling("the hand limit, which the text does not set")),
        {"sweep_claims": True, "hand_limit": _FIDASSE_HAND_LIMIT},
        (2, 3, 4, 6),
    ),
    Preset(
        "fattoria",
        "Scopa della fattoria",
        "Build a farm: a card played onto a table card when holding a card to take both next"
        " turn; others may take the farm or raise it; no primiera, the 2 of denari scores 1.",
        cite(WIKIPEDIA),
        {"farms": True, "primiera_points": 0, "two_of_denari": True},
        (2, 4),
    ),
)

PRESETS: Final[dict[str, Preset]] = {p.id: p for p in _PRESET_LIST}
