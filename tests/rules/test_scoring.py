"""Tests of hand scoring (scopa.rules._scoring), with the seeds' worked examples."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rules_helpers import cards

from scopa.rules import PRESETS, MazzoTies, Options, PrimieraMethod, make_ruleset
from scopa.rules._cards import ALL_CARDS, MAX_CARD, Card, Suit, base_card, card_of, deck_cards
from scopa.rules._errors import InvalidOption
from scopa.rules._scoring import (
    _FAST_SCORERS,
    Component,
    HandScore,
    SideTally,
    hand_points_bound,
    napola_length,
    primiera_value,
    score_hand,
    scoring_rules,
)

EVENT_COMPONENTS = frozenset(
    {
        "sweeps",
        "picule",
        "bagher",
        "accuse",
        "modular_sweeps",
        "tuzzulicchi",
        "cirulla_declarations",
        "twin_sweeps",
        "dealer_bonus",
    }
)
NAPOLA_COMPONENTS = frozenset({"napola_denari", "napola_spade"})


def suit_cards(suit: Suit, *ranks: int) -> tuple[Card, ...]:
    """The cards of ``suit`` with ``ranks`` (all ten when no rank is given)."""
    return tuple(card_of(suit, r) for r in (ranks or range(1, 11)))


def complement(*held: tuple[Card, ...]) -> tuple[Card, ...]:
    """Every card of the deck not in ``held``."""
    taken = {c for group in held for c in group}
    return tuple(c for c in ALL_CARDS if c not in taken)


def component(score: HandScore, name: str) -> Component:
    """The component called ``name`` of ``score``."""
    matches = [c for c in score.components if c.name == name]
    assert len(matches) == 1, f"{name} appears {len(matches)} times"
    return matches[0]


def mazzo_total(score: HandScore, *, napola: bool = False) -> int:
    """Points of the card-based components (no sweeps, picule, bagher; napola if asked)."""
    excluded = EVENT_COMPONENTS if napola else EVENT_COMPONENTS | NAPOLA_COMPONENTS
    return sum(sum(c.points) for c in score.components if c.name not in excluded)


def two_sides(side0: tuple[Card, ...]) -> list[SideTally]:
    """Tallies for two sides: ``side0`` and every other card."""
    return [SideTally(side0), SideTally(complement(side0))]


# --- primiera -----------------------------------------------------------------------------


def test_primiera_81_beats_75() -> None:
    """La Spatola (Spatola): 7 coppe, 7 bastoni, 7 denari, 6 spade = 81 beats 7 spade + 6s = 75."""
    side0 = cards("7C 7B 7D 6S")
    side1 = cards("7S 6C 6D 6B")
    assert primiera_value(side0) == 81
    assert primiera_value(side1) == 75
    score = score_hand(Options(), [SideTally(side0), SideTally(side1)])
    primiera = component(score, "primiera")
    assert primiera.values == (81.0, 75.0)
    assert primiera.points == (1, 0)


def test_primiera_76_beats_75() -> None:
    """The Scopa page (Fabio and Deborha): 21 + 21 + 18 + 16 = 76 beats 21 + 21 + 18 + 15 = 75."""
    fabio = cards("7C 7D 6B 1S 3S")
    deborha = cards("7B 7S 6C 5D 2D")
    assert primiera_value(fabio) == 76
    assert primiera_value(deborha) == 75
    score = score_hand(Options(), [SideTally(fabio), SideTally(deborha)])
    assert component(score, "primiera").points == (1, 0)


def test_primiera_maximum_is_84() -> None:
    """it.wikipedia: the maximum primiera is 84, the four 7s (also with the whole deck)."""
    assert primiera_value(cards("7C 7D 7B 7S")) == 84
    assert primiera_value(ALL_CARDS) == 84


def test_primiera_takes_best_card_of_each_suit() -> None:
    """docs/rules.md Scopa: only the best card per suit counts (figures 10, ace 16 over a 5)."""
    assert primiera_value(cards("10C 1C 5C 10D 8B 9S")) == 16 + 10 + 10 + 10


def test_primiera_missing_suit_is_zero_and_cannot_win() -> None:
    """La Spatola and it.wikipedia: a side without all four suits cannot win the primiera."""
    strong = cards("7C 7D 7B 6C 6D 6B")
    weak = cards("2C 2D 2B 2S")
    assert primiera_value(strong) == 0
    score = score_hand(Options(), [SideTally(strong), SideTally(weak)])
    assert component(score, "primiera").points == (0, 1)


def test_primiera_nobody_has_all_suits() -> None:
    """La Spatola and it.wikipedia: when no side has all four suits the primiera is not given."""
    score = score_hand(Options(), [SideTally(cards("7C 7D")), SideTally(cards("7B 7S"))])
    assert component(score, "primiera").points == (0, 0)


def test_primiera_tie_gives_nobody() -> None:
    """La Spatola: two 7s and the 6s of the other suits each is a tie, not given."""
    side0 = cards("7C 7D 6B 6S")
    side1 = cards("7B 7S 6C 6D")
    score = score_hand(Options(), [SideTally(side0), SideTally(side1)])
    assert component(score, "primiera").points == (0, 0)


def test_veneto_primiera_values() -> None:
    """it.wikipedia: Veneto primiera uses face value, ace 5.5 and figures 0.5."""
    veneto = PrimieraMethod.VENETO
    assert primiera_value(cards("7C 1D 10B 8S"), veneto) == 7 + 5.5 + 0.5 + 0.5
    assert primiera_value(cards("6C 5C 1C 2D 3B 4S"), veneto) == 6 + 2 + 3 + 4
    assert primiera_value(cards("7C 7D 7B"), veneto) == 0
    options = Options(primiera_method=veneto)
    side0 = cards("6C 6D 6B 6S")  # 24 Veneto, 72 standard
    side1 = cards("1C 1D 1B 7S")  # 23.5 Veneto, 69 standard
    score = score_hand(options, [SideTally(side0), SideTally(side1)])
    assert component(score, "primiera").values == (24.0, 23.5)
    assert component(score, "primiera").points == (1, 0)


def test_veneto_and_standard_can_disagree() -> None:
    """it.wikipedia: the same cards can win by standard values and tie by Veneto values."""
    side0 = cards("1C 1D 1B 1S")  # standard 64, Veneto 22
    side1 = cards("5C 5D 5B 6S")  # standard 63, Veneto 21
    tallies = [SideTally(side0), SideTally(side1)]
    assert component(score_hand(Options(), tallies), "primiera").points == (1, 0)
    side1 = cards("5C 5D 6B 6S")  # standard 66, Veneto 22
    tallies = [SideTally(side0), SideTally(side1)]
    assert component(score_hand(Options(), tallies), "primiera").points == (0, 1)
    veneto = Options(primiera_method=PrimieraMethod.VENETO)
    assert component(score_hand(veneto, tallies), "primiera").points == (0, 0)


def test_milan_primiera_most_sevens_then_sixes_then_aces() -> None:
    """it.wikipedia: in Milan the primiera goes to most 7s, then most 6s, then most aces."""
    options = Options(primiera_method=PrimieraMethod.MILAN)

    def winner(side0: str, side1: str) -> tuple[int, ...]:
        tallies = [SideTally(cards(side0)), SideTally(cards(side1))]
        return component(score_hand(options, tallies), "primiera").points

    assert winner("7C 7D", "7B 6C 6D 6B 6S 1C") == (1, 0)
    assert winner("7C 6C 6D", "7D 6B 1C 1D 1B") == (1, 0)
    assert winner("7C 6C 1S", "7D 6B 1C 1D") == (0, 1)
    assert winner("7C 6C 1S 2D", "7D 6B 1C 3C") == (0, 0)


def test_milan_value_encoding() -> None:
    """The Milan value is 100 * sevens + 10 * sixes + aces and needs no suit."""
    assert primiera_value(cards("7C 7D 6S 1B 1C 1D"), PrimieraMethod.MILAN) == 213
    assert primiera_value(cards("2C 3D"), PrimieraMethod.MILAN) == 0


# --- napola -------------------------------------------------------------------------------


def test_napola_ace_two_three_is_three() -> None:
    """Lo Spazzino, La Spatola and the Scopa page: ace, 2 and 3 of the suit make a napola of 3."""
    assert napola_length(suit_cards(Suit.SPADE, 1, 2, 3), Suit.SPADE) == 3
    assert napola_length(suit_cards(Suit.SPADE, 1, 2, 3), Suit.DENARI) == 0


def test_napola_run_to_five() -> None:
    """Lo Spazzino and La Spatola: ace to 5 is worth 5."""
    assert napola_length(suit_cards(Suit.DENARI, 1, 2, 3, 4, 5), Suit.DENARI) == 5


def test_napola_without_the_two_is_nothing() -> None:
    """The Scopa page: Fabio took every denaro but the 2: no napoli points."""
    held = suit_cards(Suit.DENARI, 1, 3, 4, 5, 6, 7, 8, 9, 10)
    assert napola_length(held, Suit.DENARI) == 0


def test_napola_stops_at_first_gap() -> None:
    """The Scopa page: Deborha's ace, 2, 3, 4, 5 and fante of denari are 5 napoli points."""
    held = suit_cards(Suit.DENARI, 1, 2, 3, 4, 5, 8)
    assert napola_length(held, Suit.DENARI) == 5


def test_napoleone_all_ten_denari() -> None:
    """The Scopa page: all ten denari are a napola of 10, the napoleone that wins the game."""
    options = PRESETS["scopa_napola"].options()
    score = score_hand(options, two_sides(suit_cards(Suit.DENARI)))
    assert component(score, "napola_denari").points == (10, 0)
    assert score.napoleone == (True, False)
    score = score_hand(options, two_sides(suit_cards(Suit.DENARI, *range(1, 10))))
    assert component(score, "napola_denari").points == (9, 0)
    assert score.napoleone == (False, False)


def test_napola_of_spade_all_ten() -> None:
    """Lo Spazzino: all ten spade are a napola of 10; the napoleone flag is about denari only."""
    score = score_hand(PRESETS["spazzino"].options(), two_sides(suit_cards(Suit.SPADE)))
    assert component(score, "napola_spade").points == (10, 0)
    assert score.napoleone == (False, True)


# --- whole hands per game -----------------------------------------------------------------


def test_spazzino_mazzo_is_seven() -> None:
    """Lo Spazzino: cards 2, spade 2, 7 of denari, fante and 2 of spade: 7 mazzo points."""
    side0 = suit_cards(Suit.COPPE) + suit_cards(Suit.BASTONI) + suit_cards(Suit.SPADE, *range(1, 7))
    score = score_hand(PRESETS["spazzino"].options(), two_sides(side0))
    assert component(score, "cards").points == (2, 0)
    assert component(score, "spade").points == (2, 0)
    assert component(score, "settebello").points == (0, 1)
    assert component(score, "rosmarino").points == (0, 1)
    assert component(score, "two_of_spade").points == (1, 0)
    assert component(score, "napola_spade").points == (6, 0)
    assert mazzo_total(score) == 7
    assert score.totals == (2 + 2 + 1 + 6, 2)
    names = {c.name for c in score.components}
    assert "denari" not in names
    assert "primiera" not in names


def test_spazzino_ties_split_one_each() -> None:
    """Lo Spazzino: a tie in cards or spade gives 1 point to each player."""
    side0 = (
        suit_cards(Suit.COPPE)
        + suit_cards(Suit.SPADE, 1, 2, 3, 4, 5)
        + suit_cards(Suit.DENARI, 1, 2, 3, 4, 5)
    )
    score = score_hand(PRESETS["spazzino"].options(), two_sides(side0))
    assert component(score, "cards").values == (20.0, 20.0)
    assert component(score, "cards").points == (1, 1)
    assert component(score, "spade").points == (1, 1)


def test_split_tie_among_three_gives_at_least_one() -> None:
    """MazzoTies.SPLIT gives each tied side max(1, points // tied); the trailing side nothing."""
    options = Options(players=3, mazzo_ties=MazzoTies.SPLIT, cards_points=2)
    tallies = [
        SideTally(suit_cards(Suit.COPPE) + suit_cards(Suit.SPADE, 1, 2, 3, 4, 5)),
        SideTally(suit_cards(Suit.BASTONI) + suit_cards(Suit.SPADE, 6, 7, 8, 9, 10)),
        SideTally(suit_cards(Suit.DENARI)),
    ]
    assert component(score_hand(options, tallies), "cards").points == (1, 1, 0)


def test_spatola_mazzo_is_eleven() -> None:
    """La Spatola: cards 2, spade 2, denari 2, primiera 1, four honours 1 each: 11 points."""
    side0 = (
        suit_cards(Suit.COPPE)
        + suit_cards(Suit.BASTONI)
        + suit_cards(Suit.SPADE, 4, 5, 6, 7, 9, 10)
    )
    side0 += suit_cards(Suit.DENARI, 4, 5, 6, 7, 8, 9)
    score = score_hand(PRESETS["spatola"].options(), two_sides(side0))
    expected = {
        "cards": (2, 0),
        "spade": (2, 0),
        "denari": (2, 0),
        "primiera": (1, 0),
        "settebello": (1, 0),
        "re_bello": (0, 1),
        "rosmarino": (0, 1),
        "two_of_spade": (0, 1),
        "napola_spade": (0, 3),
        "napola_denari": (0, 3),
    }
    assert {c.name: c.points for c in score.components if c.name in expected} == expected
    assert mazzo_total(score) == 11


def test_spatola_ties_give_nobody() -> None:
    """La Spatola: a tie in cards, spade, denari or primiera gives nobody the points."""
    side0 = suit_cards(Suit.COPPE, 7, 1, 2, 3, 4) + suit_cards(Suit.DENARI, 7, 1, 2, 3, 4)
    side0 += suit_cards(Suit.BASTONI, 6, 5, 8, 9, 10) + suit_cards(Suit.SPADE, 6, 5, 8, 9, 10)
    score = score_hand(PRESETS["spatola"].options(), two_sides(side0))
    assert component(score, "cards").values == (20.0, 20.0)
    assert component(score, "spade").values == (5.0, 5.0)
    assert component(score, "denari").values == (5.0, 5.0)
    assert component(score, "primiera").values == (78.0, 78.0)  # 21 + 21 + 18 + 18 each
    for name in ("cards", "spade", "denari", "primiera"):
        assert component(score, name).points == (0, 0), name


def test_scopa_ties_give_nobody() -> None:
    """The Scopa page: ties in carte, denari and primiera leave those points unassigned."""
    side0 = cards("7C 7D 6B 6S 1C 2C 3C 4C 1D 2D 3D 4D 1B 2B 3B 4B 1S 2S 3S 4S")
    score = score_hand(Options(), two_sides(side0))
    assert component(score, "cards").values == (20.0, 20.0)
    assert component(score, "denari").values == (5.0, 5.0)
    for name in ("cards", "denari", "primiera"):
        assert component(score, name).points == (0, 0), name
    assert component(score, "settebello").points == (1, 0)
    assert score.totals == (1, 0)


def test_scopa_four_mazzo_points_and_sweeps() -> None:
    """The Scopa page: up to 4 mazzo points plus 1 per scopa."""
    side0 = suit_cards(Suit.COPPE) + suit_cards(Suit.DENARI) + suit_cards(Suit.BASTONI)
    side0 += suit_cards(Suit.SPADE, 2)
    tallies = [SideTally(side0, sweeps=2), SideTally(complement(side0), sweeps=3)]
    score = score_hand(Options(), tallies)
    assert [c.name for c in score.components] == [
        "sweeps", "cards", "denari", "primiera", "settebello",
    ]  # fmt: skip
    assert component(score, "sweeps").points == (2, 3)
    assert component(score, "sweeps").values == (2.0, 3.0)
    assert component(score, "primiera").points == (1, 0)
    assert score.totals == (2 + 4, 3)


def test_sweep_points_multiply() -> None:
    """Option sweep_points: every sweep is worth that many points."""
    options = Options(sweep_points=3)
    score = score_hand(options, [SideTally((), sweeps=2), SideTally(ALL_CARDS)])
    assert component(score, "sweeps").points == (6, 0)


def test_scopone_romano_totals_thirteen() -> None:
    """it.wikipedia: scopone romano, every denaro 1, settebello 2, carte 1, primiera 1: 13."""
    options = PRESETS["scopone_romano"].options()
    side0 = suit_cards(Suit.COPPE) + suit_cards(Suit.DENARI) + suit_cards(Suit.BASTONI, 1, 2, 3)
    side0 += suit_cards(Suit.SPADE, 1)
    score = score_hand(options, two_sides(side0))
    assert "denari" not in {c.name for c in score.components}
    assert component(score, "denari_each").points == (9, 0)
    assert component(score, "settebello").points == (2, 0)
    assert component(score, "primiera").points == (1, 0)
    assert component(score, "cards").points == (1, 0)
    assert score.totals == (13, 0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 1), min_size=40, max_size=40))
def test_scopone_romano_distributes_everything(owners: list[int]) -> None:
    """it.wikipedia: every one of the 13 points is given unless carte or primiera is tied."""
    options = PRESETS["scopone_romano"].options()
    held = [tuple(c for c in ALL_CARDS if owners[c] == side) for side in (0, 1)]
    score = score_hand(options, [SideTally(h) for h in held])
    primiere = [primiera_value(h) for h in held]
    lost = int(len(held[0]) == len(held[1]))
    lost += int(primiere[0] == primiere[1])
    assert sum(score.totals) == 13 - lost
    assert sum(component(score, "denari_each").points) == 9


def test_settanta_all_four_sevens() -> None:
    """it.wikipedia: a primiera made of all four 7s scores 1 more point (settanta)."""
    options = Options(settanta=True)
    score = score_hand(options, two_sides(cards("7C 7D 7B 7S")))
    assert component(score, "settanta").points == (1, 0)
    assert component(score, "settanta").values == (4.0, 0.0)
    score = score_hand(options, two_sides(cards("7C 7D 7B")))
    assert component(score, "settanta").points == (0, 0)
    assert "settanta" not in {c.name for c in score_hand(Options(), two_sides(())).components}


def test_re_bello() -> None:
    """La Spatola and the Scopa page: with re bello the re of denari scores 1 for whoever takes
    it."""
    score = score_hand(Options(re_bello=True), two_sides(cards("10D")))
    assert component(score, "re_bello").points == (1, 0)
    assert component(score, "re_bello").values == (1.0, 0.0)
    assert "re_bello" not in {c.name for c in score_hand(Options(), two_sides(())).components}


def test_picule_and_bagher() -> None:
    """Lo Spazzino and La Spatola: each picula 1 point, bagher points as counted by the engine."""
    options = PRESETS["spazzino"].options()
    tallies = [
        SideTally(ALL_CARDS[:20], specials=(("picula", 2), ("bagher", 3))),
        SideTally(ALL_CARDS[20:], specials=(("bagher", 4),)),
    ]
    score = score_hand(options, tallies)
    assert component(score, "picule").points == (2, 0)
    assert component(score, "bagher").points == (3, 4)
    assert "picule" not in {c.name for c in score_hand(Options(), two_sides(())).components}


def test_zero_point_components_are_omitted() -> None:
    """A component configured at 0 points has no line on the score sheet."""
    options = Options(cards_points=0, sweep_points=0, settebello_points=0)
    names = {rule.name for rule in scoring_rules(options)}
    assert names == {"denari", "primiera"}


def test_wrong_number_of_tallies_is_rejected() -> None:
    """score_hand wants exactly one tally per side."""
    with pytest.raises(ValueError, match="expected 2 tallies"):
        score_hand(PRESETS["scopa4"].options(), [SideTally(ALL_CARDS)] * 4)


# --- properties over every preset ---------------------------------------------------------


def configured_mazzo(options: Options) -> int:
    """The most card-based points the options can hand out in one hand, all sides together
    (with two decks every card-based honour and penalty twice)."""
    copies = 2 if options.deck_size == 80 else 1
    run = options.napola_top * copies or {52: 13, 80: 20}.get(options.deck_size, 10)
    total = options.cards_points + options.spade_points + options.primiera_points
    total += copies * options.settebello_points
    total += 9 * copies if options.denari_each else options.denari_points
    flags = (options.re_bello, options.rosmarino, options.two_of_spade)
    total += copies * (sum(flags) + options.two_of_denari) + options.settanta
    total += run * (options.napola_denari + options.napola_spade)
    total += copies * (3 * options.denari_figures + 16 * options.frac_points)
    # the re of spade always costs its holder 1
    total += copies * (options.polacca - options.maresciallo)
    total += 5 * options.grande + 2 * options.denari_ten_fante
    return total


SideEvents = tuple[int, int, int, int, int]
"""One side's sweeps, picule, bagher points, accuse points and Cirulla declaration points."""


def side_events(max_plays: int = 36) -> st.SearchStrategy[list[SideEvents]]:
    """Sweeps and picule up to ``max_plays`` and bagher points up to 40, for six sides."""
    one = st.tuples(
        st.integers(0, max_plays),
        st.integers(0, max_plays),
        st.integers(0, 40),
        st.integers(0, 7 * (max_plays // 3)),
        st.integers(0, 10 * (max_plays // 3)),
    )
    return st.lists(one, min_size=6, max_size=6)


def random_tallies(
    options: Options, owners: list[int], events: list[SideEvents]
) -> list[SideTally]:
    """Split the deck by ``owners`` (taken modulo the sides); side ``s`` gets ``events[s]``."""
    sides = options.sides
    deck = deck_cards(options.deck_size)
    return [
        SideTally(
            tuple(c for c in deck if owners[c] % sides == side),
            sweeps=events[side][0],
            specials=(
                ("picula", events[side][1]),
                ("bagher", events[side][2]),
                ("accusa", events[side][3]),
                ("modular_sweep", events[side][0]),
                ("tuzzulicchio", events[side][3]),
                ("cirulla", events[side][4]),
                ("twin_sweep", _twin_points(events[side][1])),
                ("dealer_bonus", min(3, events[side][1])),
            ),
        )
        for side in range(sides)
    ]


def _twin_points(plays: int) -> int:
    """Twin-sweep points for a count: the re of spade's 9 and 2 a pair of plays (the bound)."""
    return 9 + 2 * (plays // 2)


def expected_event_lines(options: Options, events: list[SideEvents]) -> dict[str, tuple[int, ...]]:
    """The points each enabled event line should give each side for ``events``."""
    sides = range(options.sides)
    expected: dict[str, tuple[int, ...]] = {}
    if options.sweep_points > 0:
        expected["sweeps"] = tuple(events[s][0] * options.sweep_points for s in sides)
    if options.picula:
        expected["picule"] = tuple(events[s][1] for s in sides)
    if options.bagher:
        expected["bagher"] = tuple(events[s][2] for s in sides)
    if options.accusa:
        expected["accuse"] = tuple(events[s][3] for s in sides)
    if options.cirulla_declarations:
        expected["cirulla_declarations"] = tuple(events[s][4] for s in sides)
    if options.tuzzulicchio_declarations:
        expected["tuzzulicchi"] = tuple(events[s][3] for s in sides)
    if options.modular_sweeps:
        expected["modular_sweeps"] = tuple(events[s][0] for s in sides)
    if options.twin_captures:
        expected["twin_sweeps"] = tuple(_twin_points(events[s][1]) for s in sides)
    if options.dealer_bonus:
        expected["dealer_bonus"] = tuple(min(3, events[s][1]) for s in sides)
    return expected


@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=60, deadline=None)
@given(
    owners=st.lists(st.integers(0, 5), min_size=MAX_CARD, max_size=MAX_CARD),
    method=st.sampled_from(list(PrimieraMethod)),
    sweep_points=st.integers(0, 3),
    events=side_events(),
)
def test_mazzo_never_exceeds_configured_points(
    preset: str,
    owners: list[int],
    method: PrimieraMethod,
    sweep_points: int,
    events: list[SideEvents],
) -> None:
    """Card-based points stay within the configured; event lines score exactly the counts."""
    options = dataclasses.replace(
        PRESETS[preset].options(), primiera_method=method, sweep_points=sweep_points
    )
    score = score_hand(options, random_tallies(options, owners, events))
    shared = options.sides if options.mazzo_ties is MazzoTies.ALL else 1  # a tie: all score
    assert mazzo_total(score, napola=True) <= configured_mazzo(options) * shared
    lines = {c.name: c.points for c in score.components if c.name in EVENT_COMPONENTS}
    assert lines == expected_event_lines(options, events)
    copies = 2 if options.deck_size == 80 else 1  # two decks: each honour twice
    honours = {"settebello": options.settebello_points, "re_bello": 1, "rosmarino": 1}
    honours["two_of_spade"] = honours["two_of_denari"] = 1
    for line in score.components:
        if line.name in honours:
            assert sum(line.points) == copies * honours[line.name], line.name
    assert sum(score.totals) == sum(sum(c.points) for c in score.components)


@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=60, deadline=None)
@given(owners=st.lists(st.integers(0, 5), min_size=MAX_CARD, max_size=MAX_CARD), data=st.data())
def test_totals_within_hand_bound(preset: str, owners: list[int], data: st.DataObject) -> None:
    """No side's total ever exceeds hand_points_bound, even with a sweep on every play."""
    options = PRESETS[preset].options()
    plays = options.deck_size - options.table_cards
    events = data.draw(side_events(plays), label="events")
    score = score_hand(options, random_tallies(options, owners, events))
    assert max(score.totals) <= hand_points_bound(options, plays)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_hand_bound_is_reached_by_a_side_taking_everything(preset: str) -> None:
    """A side with every card, a sweep and a picula on every play and 40 bagher hits the bound."""
    options = PRESETS[preset].options()
    plays = options.deck_size - options.table_cards
    declared = (7 * (plays // 3), 10 * (plays // 3))
    everything = [(plays, plays, 40, *declared)] + [(0, 0, 0, 0, 0)] * (options.sides - 1)
    score = score_hand(options, random_tallies(options, [0] * MAX_CARD, everything))
    events = sum(points[0] for points in expected_event_lines(options, everything).values())
    assert score.totals[0] == configured_mazzo(options) + events
    copies = 2 if options.deck_size == 80 else 1
    penalties = copies * options.maresciallo  # the bound leaves out a penalty card's -1
    assert score.totals[0] + penalties == hand_points_bound(options, plays)


def test_hand_bound_counts_sweeps() -> None:
    """hand_points_bound grows with the plays (each may be a sweep)."""
    options = Options()
    assert hand_points_bound(options, 36) - hand_points_bound(options, 35) == 1
    assert hand_points_bound(options, 0) == 4


def fast_twins(score: HandScore, tallies: list[SideTally], options: Options) -> None:
    """Each line score_hand computed with a plain-function twin equals its rule's own score.

    Only the rules with a twin (``_FAST_SCORERS``) are compared: score_hand runs the others'
    ``score`` itself, so comparing those would compare a method with itself.
    """
    lines = {c.name: c for c in score.components}
    compared = 0
    for rule, _twin in _FAST_SCORERS:
        if rule.name in lines:
            assert lines[rule.name] == rule.score(tallies, options), rule.name
            compared += 1
    enabled = [rule for rule, _twin in _FAST_SCORERS if rule in scoring_rules(options)]
    assert compared == len(enabled), "a line with a fast twin was not scored"


@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=60, deadline=None)
@given(
    owners=st.lists(st.integers(0, 5), min_size=MAX_CARD, max_size=MAX_CARD),
    events=side_events(),
    method=st.sampled_from(list(PrimieraMethod)),
    ties=st.sampled_from(list(MazzoTies)),
    repeated=st.lists(st.sampled_from(ALL_CARDS), max_size=6),
)
def test_score_hand_lines_equal_their_rules(
    preset: str,
    owners: list[int],
    events: list[SideEvents],
    method: PrimieraMethod,
    ties: MazzoTies,
    repeated: list[Card],
) -> None:
    """score_hand lists the rules' lines in order, fast twins agree, napoleone is a napola of 10."""
    options = dataclasses.replace(
        PRESETS[preset].options(), primiera_method=method, mazzo_ties=ties
    )
    tallies = random_tallies(options, owners, events)
    tallies[0] = dataclasses.replace(tallies[0], cards=tallies[0].cards + tuple(repeated))
    score = score_hand(options, tallies)
    assert [c.name for c in score.components] == [r.name for r in scoring_rules(options)]
    fast_twins(score, tallies, options)
    # all ten denari, whichever copies: with two decks a run held twice also adds up to 10
    bases = [{base_card(c) for c in t.cards} for t in tallies]
    assert score.napoleone == tuple(napola_length(held, Suit.DENARI) >= 10 for held in bases)
    assert score.totals == tuple(
        sum(c.points[s] for c in score.components) for s in range(len(tallies))
    )


@pytest.mark.parametrize(
    ("denari", "napoleone"), [(tuple(range(1, 11)), True), (tuple(range(2, 11)), False)]
)
def test_score_hand_lines_equal_their_rules_on_a_tie_and_a_napoleone(
    denari: tuple[int, ...], napoleone: bool
) -> None:
    """A tie on cards and spade, one side holding the denari (all ten or all but the ace)."""
    first = suit_cards(Suit.DENARI, *denari) + suit_cards(Suit.SPADE, 1, 2, 3, 4, 5)
    first += suit_cards(Suit.COPPE, *range(1, 16 - len(denari)))  # 20 cards each, 5 spade each
    tallies = [SideTally(first, 2), SideTally(complement(first))]
    for ties in MazzoTies:
        options = dataclasses.replace(Options(), mazzo_ties=ties)
        score = score_hand(options, tallies)
        fast_twins(score, tallies, options)
        assert score.napoleone == (napoleone, False)
        assert {c.name: c.values[0] == c.values[1] for c in score.components}["cards"]


# --- it.wikipedia's scoring variants ------------------------------------------------------------


def test_punti_ai_denari_scores_each_denari_figure_and_no_primiera() -> None:
    """it.wikipedia Punti ai denari: no primiera; fante, cavallo and re of denari 1 point each."""
    options = PRESETS["punti_ai_denari"].options()
    side0 = suit_cards(Suit.DENARI, 7, 8, 10) + suit_cards(Suit.COPPE)
    score = score_hand(options, two_sides(side0))
    names = [c.name for c in score.components]
    assert "primiera" not in names
    assert component(score, "denari_figures").points == (2, 1)
    assert component(score, "denari_figures").values == (2.0, 1.0)
    # side 0 has 13 cards and 3 denari, side 1 27 cards and 7 denari; side 0 the settebello
    assert component(score, "cards").points == (0, 1)
    assert component(score, "denari").points == (0, 1)
    assert component(score, "settebello").points == (1, 0)
    assert score.totals == (3, 3)


def test_punti_ai_denari_puts_six_mazzo_points_in_play() -> None:
    """it.wikipedia Punti ai denari: cards, denari, settebello and three figures, 6 points a
    hand."""
    options = PRESETS["punti_ai_denari"].options()
    score = score_hand(options, [SideTally(ALL_CARDS), SideTally(())])
    assert score.totals == (6, 0)


def test_frac_scores_one_point_per_ace_and_figure() -> None:
    """it.wikipedia Scopa FRAC: each fante, re, asso and cavallo 1 point, 16 in the deck, no
    other."""
    options = PRESETS["frac"].options()
    side0 = suit_cards(Suit.DENARI) + suit_cards(Suit.SPADE, 1, 8)
    score = score_hand(options, two_sides(side0))
    assert [c.name for c in score.components] == ["frac"]
    assert score.totals == (6, 10)
    assert sum(score.totals) == 16


def test_frac_eight_to_eight_is_eight_points_each() -> None:
    """it.wikipedia Scopa FRAC over several hands: 8 to 8 is 8 points each, the re bello no more."""
    options = PRESETS["frac"].options()
    side0 = suit_cards(Suit.DENARI) + suit_cards(Suit.COPPE)
    score = score_hand(options, [SideTally(side0, sweeps=3), SideTally(complement(side0))])
    assert score.totals == (8, 8)


def test_frac_single_hand_eight_to_eight_goes_to_the_re_of_denari() -> None:
    """it.wikipedia FRAC in one hand: "în cazul de la 8 la 8, câștigătorul este cel care a luat
    regele diamantelor" -- an 8-8 goes to the side that took the re of denari
    (frac_tie_re_bello)."""
    options = make_ruleset("frac", {"frac_tie_re_bello": True, "target_score": 1}).options
    side0 = suit_cards(Suit.DENARI) + suit_cards(Suit.COPPE)  # holds the re of denari
    score = score_hand(options, two_sides(side0))
    assert component(score, "frac").points == (8, 8)
    assert component(score, "frac_tie").points == (1, 0)
    assert score.totals == (9, 8)
    swapped = score_hand(options, two_sides(complement(side0)))
    assert component(swapped, "frac_tie").points == (0, 1)


def test_frac_tie_break_gives_nothing_without_a_tie() -> None:
    """A 10-6 hand is decided by the frac line alone: the tie-break line scores 0 for both."""
    options = make_ruleset("frac", {"frac_tie_re_bello": True}).options
    side0 = suit_cards(Suit.DENARI) + suit_cards(Suit.SPADE, 1, 8)
    score = score_hand(options, two_sides(side0))
    assert component(score, "frac_tie").points == (0, 0)
    assert score.totals == (6, 10)


def test_frac_tie_break_needs_the_frac_line() -> None:
    """frac_tie_re_bello without frac_points is refused, naming the option."""
    with pytest.raises(InvalidOption) as raised:
        make_ruleset("scopa", {"frac_tie_re_bello": True})
    assert raised.value.field == "frac_tie_re_bello"


def test_a_non_prendere_ties_give_the_point_to_every_tied_player() -> None:
    """it.wikipedia A non prendere: "în caz de egalitate, în loc să nu fie acordată, punctul se
    acordă ambilor jucători" -- a tie gives the point to each tied player."""
    options = PRESETS["a_non_prendere"].options()
    coppe, denari = suit_cards(Suit.COPPE), suit_cards(Suit.DENARI)
    bastoni, spade = suit_cards(Suit.BASTONI), suit_cards(Suit.SPADE)
    tallies = [SideTally(coppe), SideTally(denari), SideTally(bastoni), SideTally(spade)]
    score = score_hand(options, tallies)
    assert component(score, "cards").points == (1, 1, 1, 1)  # 10 cards each
    assert component(score, "denari").points == (0, 1, 0, 0)
    assert component(score, "primiera").points == (0, 0, 0, 0)  # nobody has four suits


def test_marescialla_penalises_the_re_of_spade_and_scores_the_polacca() -> None:
    """it.wikipedia Marescialla: the re of spade costs its taker 1; the fante of denari beside the
    settebello scores 1, alone nothing; with saponaro the fante of spade with the re costs 1."""
    options = dataclasses.replace(PRESETS["marescialla"].options(), saponaro=True)
    side0 = cards("10S 8S 8D 7D") + suit_cards(Suit.COPPE, 1, 2)
    score = score_hand(options, two_sides(side0))
    assert component(score, "maresciallo").points == (-1, 0)
    assert component(score, "polacca").points == (1, 0)
    assert component(score, "saponaro").points == (-1, 0)
    alone = score_hand(options, two_sides(cards("10S 8D")))
    assert component(alone, "polacca").points == (0, 0)
    assert component(alone, "saponaro").points == (0, 0)


def test_cirulla_scores_the_grande_and_the_piccola() -> None:
    """Cirulla (Pagat): fante, cavallo and re of denari 5 points; ace, 2, 3 of denari 3 and up."""
    options = PRESETS["cirulla"].options()
    score = score_hand(options, two_sides(suit_cards(Suit.DENARI, 1, 2, 3, 4, 8, 9, 10)))
    assert component(score, "grande").points == (5, 0)
    assert component(score, "napola_denari").points == (4, 0)
    short = score_hand(options, two_sides(suit_cards(Suit.DENARI, 8, 9)))
    assert component(short, "grande").points == (0, 0)


@pytest.mark.parametrize(
    ("ranks", "piccola", "grande"),
    [
        ((1, 2), 0, 0),  # no 3: no piccola
        ((1, 2, 3), 3, 0),  # ace, 2, 3: 3
        ((1, 2, 3, 4, 5, 6), 6, 0),
        ((1, 2, 3, 4, 5, 6, 7), 7, 0),  # the run's top: ace to 7 scores 7
        ((1, 2, 3, 4, 5, 6, 7, 8), 7, 0),  # the fante does not lengthen it
        ((1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 7, 5),  # all ten: the figures score once, in the grande
        ((1, 2, 3, 5, 6, 7, 8, 9, 10), 3, 5),  # a gap at the 4 stops the run
    ],
)
def test_cirullas_piccola_stops_at_the_seven(
    ranks: tuple[int, ...], piccola: int, grande: int
) -> None:
    """Issue 27: Cirulla's piccola is ace, 2, 3 of denari for 3, one more per next rank up to the
    7 (pagat and it.wikipedia as read by rvenning/scopa; GioeleGhidara/cirulla: "fino a 7
    punti"); the fante, cavallo and re of denari score only in the grande."""
    score = score_hand(PRESETS["cirulla"].options(), two_sides(suit_cards(Suit.DENARI, *ranks)))
    assert component(score, "napola_denari").points == (piccola, 0)
    assert component(score, "grande").points[0] == grande


def test_napola_top_stops_any_napola_and_defaults_to_the_whole_suit() -> None:
    """napola_top (0: no limit) caps the run of either suit, each copy's with two decks."""
    every = suit_cards(Suit.SPADE)
    assert napola_length(every, Suit.SPADE) == 10
    assert napola_length(every, Suit.SPADE, 5) == 5
    assert napola_length(every + _second(every), Suit.SPADE, 4) == 8
    assert napola_length(suit_cards(Suit.SPADE, 1, 2, 3), Suit.SPADE, 3) == 3
    options = Options(napola_spade=True, napola_top=6)
    score = score_hand(options, two_sides(every))
    assert component(score, "napola_spade").points == (6, 0)
    assert hand_points_bound(options, 36) == hand_points_bound(Options(napola_spade=True), 36) - 4


# --- two decks (deck_size 80) and the 52-card deck ------------------------------------------


def _second(cards_: tuple[Card, ...]) -> tuple[Card, ...]:
    """The second copies of ``cards_`` (80-card deck)."""
    return tuple(c + 52 for c in cards_)


def test_two_decks_score_each_copy_of_a_card() -> None:
    """it.wikipedia, 80 cards: two settebelli score 2, two marescialli cost 2, two polacche score
    2."""
    options = Options(
        deck_size=80, players=4, hand_size=5, table_cards=0, maresciallo=True, polacca=True
    )
    both = cards("7D 7D' 10S 10S' 8D 8D'")
    one = cards("7D 10S 8D")
    score = score_hand(options, [SideTally(both), SideTally(())])
    assert component(score, "settebello").points == (2, 0)
    assert component(score, "maresciallo").points == (-2, 0)
    assert component(score, "polacca").points == (2, 0)
    single = score_hand(options, [SideTally(one), SideTally(cards("7D' 10S' 8D'"))])
    assert component(single, "settebello").points == (1, 1)
    assert component(single, "polacca").points == (1, 1)


def test_two_decks_make_a_second_napola_from_ranks_held_twice() -> None:
    """it.wikipedia's "2 napole": a run held twice (ace..4) adds a second napola to the first."""
    first = suit_cards(Suit.DENARI, 1, 2, 3, 4, 5)
    second = _second(suit_cards(Suit.DENARI, 1, 2, 3, 4))
    assert napola_length(first, Suit.DENARI) == 5
    assert napola_length(first + second, Suit.DENARI) == 9
    assert napola_length(first + _second(suit_cards(Suit.DENARI, 1, 2)), Suit.DENARI) == 5


def test_the_52_card_napula_runs_to_the_re() -> None:
    """Cicera's napula: all thirteen spade of the 52-card deck are a run of 13."""
    spade = tuple(card_of(Suit.SPADE, r) for r in range(1, 14))
    assert napola_length(spade, Suit.SPADE) == 13
    assert napola_length(spade[:8] + spade[9:], Suit.SPADE) == 8


def test_the_fast_scorers_agree_with_two_decks_rules() -> None:
    """With two decks score_hand uses the rules' own copy-aware scoring, not the fast twins."""
    options = Options(deck_size=80, players=4, hand_size=5, table_cards=0)
    held = cards("7D 7D'")
    score = score_hand(options, [SideTally(held), SideTally(cards("7C"))])
    assert component(score, "settebello").values == (2.0, 0.0)
    assert component(score, "settebello").points == (2, 0)


def test_denari_ten_fante_scores_the_52_card_ten_and_fante_of_denari() -> None:
    """Cicera (Parlett): the 10 and the fante (11) of denari score 1 each; the cavallo nothing."""
    options = Options(
        deck_size=52, players=4, hand_size=13, table_cards=0, kings_redeal=0, denari_ten_fante=True
    )
    score = score_hand(options, [SideTally(cards("10D 12D")), SideTally(cards("11D"))])
    assert component(score, "ten_of_denari").points == (1, 0)
    assert component(score, "fante_of_denari").points == (0, 1)


# --- Cicera bigia (preset cicera_bigia; en.wikipedia and it.wikipedia's Cicera, Parlett) -----


def _cicera_sides(side0: tuple[Card, ...]) -> list[SideTally]:
    """Cicera's two teams: ``side0`` and every other card of the 52-card deck."""
    rest = tuple(c for c in deck_cards(52) if c not in set(side0))
    return [SideTally(side0), SideTally(rest)]


def test_cicera_napula_is_the_highest_card_of_the_unbroken_spade_run() -> None:
    """it.wikipedia: taking A-2-3-4-5 and 7 of spade makes a napula worth 5."""
    options = PRESETS["cicera_bigia"].options()
    held = cards("1S 2S 3S 4S 5S 7S")
    score = score_hand(options, _cicera_sides(held))
    assert component(score, "napola_spade").points == (5, 0)


def test_cicera_cards_tie_at_26_gives_one_point_each() -> None:
    """en.wikipedia: most cards (27 or more) scores 2; at 26-26 each team scores 1."""
    options = PRESETS["cicera_bigia"].options()
    half = deck_cards(52)[::2]
    assert component(score_hand(options, _cicera_sides(half)), "cards").points == (1, 1)
    more = deck_cards(52)[:27]
    assert component(score_hand(options, _cicera_sides(more)), "cards").points == (2, 0)


def test_cicera_scores_six_card_points_a_hand_besides_napula_and_sweeps() -> None:
    """Cards 2, spade 1 (7 of 13 or more), the 2 of spade, the 10 and the fante of denari: 6."""
    options = PRESETS["cicera_bigia"].options()
    names = [rule.name for rule in scoring_rules(options)]
    assert names == [
        "sweeps",
        "cards",
        "spade",
        "two_of_spade",
        "ten_of_denari",
        "fante_of_denari",
        "napola_spade",
    ]
    held = cards("2S 10D 11D 6S 8S 9S 10S 11S 12S 13S") + deck_cards(52)[:20]
    held = tuple(dict.fromkeys(held))
    score = score_hand(options, _cicera_sides(held))
    points = {c.name: c.points for c in score.components}
    assert points["spade"] == (1, 0)
    assert points["two_of_spade"] == points["ten_of_denari"] == points["fante_of_denari"] == (1, 0)
    assert sum(p[0] + p[1] for name, p in points.items() if name != "napola_spade") == 6
