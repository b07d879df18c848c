"""Tests of options, presets and rulesets (scopa.rules._options, _presets, _ruleset) and their
docs."""

from __future__ import annotations

import dataclasses
import json
import random
from enum import StrEnum
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from scopa.rules import (
    DECK_SIZE,
    PRESETS,
    InvalidOption,
    Options,
    Redealt,
    dump_state,
    legal_moves,
    list_options,
    load_state,
    make_ruleset,
    may_never_end,
    new_match,
    void_deal_chance,
)
from scopa.rules._options import PLAY_SPECIAL_OPTIONS
from scopa.rules._ruleset import MAX_VOID_CHANCE
from scopa.rules._specials import SPECIAL_RULES

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def doc_value(value: Any) -> str:
    """How docs/rules.md spells an option value: JSON literals, enums by their string value."""
    if isinstance(value, StrEnum):
        return value.value
    return value if isinstance(value, str) else json.dumps(value)


def doc_rows() -> dict[str, str]:
    """The table rows of docs/rules.md, keyed by their first cell (an option or preset id)."""
    lines = DOCS.read_text(encoding="utf-8").splitlines()
    return {line.split("|")[1].strip(): line for line in lines if line.startswith("| `")}


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_resolves_and_validates(preset: str) -> None:
    """Every preset of PRESETS is a valid ruleset whose options apply its overrides."""
    rules = make_ruleset(preset)
    assert rules.preset == preset
    for name, value in PRESETS[preset].overrides.items():
        assert getattr(rules.options, name) == value
    assert rules.overrides() == {}


def test_list_options_covers_every_field_with_its_default() -> None:
    """list_options() lists every Options field once, each with a description and a source."""
    infos = list_options()
    assert [i.name for i in infos] == [f.name for f in dataclasses.fields(Options)]
    assert all(i.description and i.source for i in infos)
    assert list_options() is infos  # built once: every finished game's record lists them


@pytest.mark.parametrize(
    ("name", "kind", "default", "choices"),
    [
        ("players", "int", 2, ()),
        ("target_score", "int", 11, ()),
        ("kings_redeal", "int", 3, ()),
        ("equal_card_precedence", "bool", True, ()),
        ("picula", "bool", False, ()),
        ("accusa", "bool", False, ()),
        ("aces_on_table", "enum", "keep", ("keep", "return", "redeal", "sweep")),
        ("primiera_method", "enum", "standard", ("standard", "veneto", "milan")),
        ("mazzo_ties", "enum", "unassigned", ("unassigned", "split", "all")),
    ],
)
def test_list_options_spells_types_defaults_and_choices(
    name: str, kind: str, default: object, choices: tuple[str, ...]
) -> None:
    """Options of each type are listed with the type, plain default and choices a form needs."""
    info = next(i for i in list_options() if i.name == name)
    assert (info.type, info.default, info.choices) == (kind, default, choices)


def test_overrides_are_applied_and_reported() -> None:
    """An override changes the option and Ruleset.overrides() names only what differs."""
    rules = make_ruleset("spazzino", {"target_score": 31, "picula": True})
    assert rules.options.target_score == 31
    assert rules.overrides() == {"target_score": 31}


@pytest.mark.parametrize(
    ("preset", "overrides", "field"),
    [
        ("nope", {}, "preset"),
        ("scopa", {"nope": 1}, "nope"),
        ("scopa", {"picula": 1}, "picula"),
        ("scopa", {"target_score": True}, "target_score"),
        ("scopa", {"target_score": "11"}, "target_score"),
        ("scopa", {"primiera_method": "roman"}, "primiera_method"),
        ("scopa", {"players": 5}, "players"),
        ("scopa", {"hand_size": 4}, "hand_size"),
        ("scopa", {"first_dealer": 2}, "first_dealer"),
        ("scopa", {"target_score": 0}, "target_score"),
        ("scopa", {"kings_redeal": 1}, "kings_redeal"),
        ("cirulla", {"napola_top": 2}, "napola_top"),
        ("cirulla", {"napola_top": 11}, "napola_top"),
        ("cirulla", {"napola_top": -1}, "napola_top"),
        ("cicera_bigia", {"napola_top": 14}, "napola_top"),
        ("scopa", {"hand_limit": -1}, "hand_limit"),
        ("fidasse", {"hand_limit": 1000}, "hand_limit"),
        ("fidasse", {"hand_limit": 0}, "hand_limit"),
        ("modulo_sette", {"hand_limit": 0}, "hand_limit"),
        ("scopa", {"maresciallo": True, "hand_limit": 0}, "hand_limit"),
        ("scopa", {"sweep_points": 11}, "sweep_points"),
        ("scopone", {"aces_on_table": "return"}, "aces_on_table"),
        ("scopa", {"hand_size": 0}, "hand_size"),
        ("scopa", {"table_cards": -1}, "table_cards"),
        ("scopa", {"table_cards": 40}, "table_cards"),
        ("scopa", {"table_cards": 46}, "table_cards"),
        ("scopa", {"table_cards": 36, "hand_size": 3}, "table_cards"),
        ("scopone", {"table_cards": 10}, "table_cards"),
        ("scopa", {"hand_size": 21, "table_cards": 0}, "hand_size"),
        ("scopone_scientifico", {"aces_on_table": "return"}, "aces_on_table"),
        ("scopa", {"deck_size": 36}, "deck_size"),
        ("scopa", {"deck_size": 52, "table_cards": 2}, "hand_size"),  # 50 cards: 2 x 3 no
        ("scopa", {"twin_captures": True}, "twin_captures"),
        ("scopa", {"denari_ten_fante": True}, "denari_ten_fante"),
        ("scopa", {"deck_size": 80, "denari_ten_fante": True}, "denari_ten_fante"),
        ("scopa", {"deck_size": 52, "twin_captures": True}, "twin_captures"),
        ("scopone_al_contrario", {"deck_size": 80, "hand_size": 5}, "deck_size"),
        ("fattoria", {"sweep_claims": True}, "sweep_claims"),
        ("fidasse", {"farms": True}, "sweep_claims"),
        ("inversa_mista", {"optional_captures": "all"}, "optional_captures"),
        ("fattoria", {"optional_captures": "figures"}, "optional_captures"),
        ("inversa_mista", {"deck_size": 80, "table_cards": 12, "hand_size": 2}, "table_cards"),
        ("fidasse", {"suit_capture": True}, "sweep_claims"),
        ("fidasse", {"picula": True}, "sweep_claims"),
        ("fattoria", {"optional_captures": "all"}, "optional_captures"),
        (
            "cicera_bigia",
            {"capture_arithmetic": "signed", "optional_captures": "figures"},
            "optional_captures",
        ),
        (
            "cicera_bigia",
            {"spade_napoleone_wins": True, "napola_spade": False},
            "spade_napoleone_wins",
        ),
    ],
)
def test_invalid_options_are_rejected(preset: str, overrides: dict[str, Any], field: str) -> None:
    """Unknown presets/options and out-of-range values raise INVALID_OPTION naming the field."""
    with pytest.raises(InvalidOption) as err:
        make_ruleset(preset, overrides)
    assert err.value.reason == "INVALID_OPTION"
    assert err.value.field == field


@pytest.mark.parametrize(
    ("preset", "overrides", "field", "needs"),
    [
        ("scopa", {"table_ace_15": True}, "table_ace_15", "ace_takes_all"),
        ("asso_piglia_tutto", {"table_ace_15": True}, "table_ace_15", "capture_15"),
        ("cirulla", {"ace_takes_only_table_ace": False}, "table_ace_15", "ace_takes_only"),
        ("scopa", {"ace_sweep_counts": True}, "ace_sweep_counts", "ace_takes_all"),
        ("scopa15", {"ace_takes_15": True}, "ace_takes_15", "ace_takes_all"),
        ("asso_piglia_tutto", {"ace_takes_15": True}, "ace_takes_15", "capture_15"),
        ("scopa", {"ace_takes_only_table_ace": False}, "ace_takes_only_table_ace", "ace_takes"),
        ("scopa", {"ace_on_empty_table_sweeps": True}, "ace_on_empty_table_sweeps", "ace_takes"),
        ("scopa", {"dealer_bonus_low": True}, "dealer_bonus_low", "needs dealer_bonus"),
        ("cicera_bigia", {"dealer_bonus": True}, "dealer_bonus", "table_cards 0"),
        ("cicera_bigia", {"aces_on_table": "sweep"}, "aces_on_table", "table_cards 0"),
        ("scopa", {"napola_top": 7}, "napola_top", "napola_denari or napola_spade"),
        ("scopa", {"capture_15_only": False}, "capture_15_only", "capture_15"),
        ("scopa", {"capture_15_fewest": False}, "capture_15_fewest", "capture_15"),
        ("scopa15", {"capture_arithmetic": "signed"}, "capture_arithmetic", "capture_15_only"),
        ("scopa15", {"modular_captures": True}, "modular_captures", "capture_15_only"),
        ("spazzino", {"capture_15": True}, "equal_card_precedence", "capture_15_only"),
        ("cicera_bigia", {"modular_captures": True}, "figures_capture_only_figures", "modular"),
        ("scopa", {"picula_on_last_card": True}, "picula_on_last_card", "picula"),
        ("scopa", {"picula_after_redeal": False}, "picula_after_redeal", "picula"),
        ("scopa", {"bagher_on_last_card": True}, "bagher_on_last_card", "bagher"),
        ("scopa", {"specials_on_last_card": True}, "specials_on_last_card", "picula"),
        ("scopa", {"claim_answers": "next"}, "claim_answers", "sweep_claims"),
        ("scopa", {"false_claim_points": 2}, "false_claim_points", "sweep_claims"),
        ("scopa", {"wrong_doubt_points": 0}, "wrong_doubt_points", "sweep_claims"),
        ("scopa", {"farm_raise": False}, "farm_raise", "farms"),
        ("scopa", {"farm_owner_takes": False}, "farm_owner_takes", "farms"),
    ],
)
def test_an_option_that_needs_another_is_refused_without_it(
    preset: str, overrides: dict[str, Any], field: str, needs: str
) -> None:
    """An option set away from its default where the others give it nothing to do raises
    INVALID_OPTION on it, saying what it needs, instead of being accepted and ignored."""
    with pytest.raises(InvalidOption) as err:
        make_ruleset(preset, overrides)
    assert (err.value.reason, err.value.field) == ("INVALID_OPTION", field)
    assert "does nothing here" in err.value.message and needs in err.value.message


@pytest.mark.parametrize(
    ("preset", "overrides"),
    [
        ("cirulla", {"dealer_bonus_low": True, "ace_sweep_counts": False}),
        ("cicera_bigia", {"players": 2, "dealer_bonus": True}),
        ("scopa15", {"capture_15_only": False, "capture_arithmetic": "signed"}),
        ("spazzino", {"specials_on_last_card": True, "picula_after_redeal": False}),
        ("fidasse", {"claim_answers": "next", "false_claim_points": 2}),
        ("fattoria", {"farm_raise": False, "farm_owner_takes": False}),
        ("scopa", {"capture_15_only": True, "farm_raise": True, "false_claim_points": 1}),
    ],
)
def test_an_option_with_what_it_needs_or_at_its_default_is_accepted(
    preset: str, overrides: dict[str, Any]
) -> None:
    """The same options are accepted with the option they need, or left at their default."""
    options = make_ruleset(preset, overrides).options
    assert all(getattr(options, name) == value for name, value in overrides.items())


def test_teams_alternate_with_four_and_six_players() -> None:
    """docs/rules.md's conventions: 4 players 0+2 vs 1+3, 6 players 0+2+4 vs 1+3+5, else alone."""
    four = make_ruleset("scopa4").options
    six = make_ruleset("scopa6").options
    three = make_ruleset("scopa3").options
    assert (four.sides, [four.side_of(s) for s in range(4)]) == (2, [0, 1, 0, 1])
    assert (six.sides, [six.side_of(s) for s in range(6)]) == (2, [0, 1, 0, 1, 0, 1])
    assert (three.sides, [three.side_of(s) for s in range(3)]) == (3, [0, 1, 2])
    alone = make_ruleset("scopa4", {"partnerships": False}).options
    assert (alone.sides, [alone.side_of(s) for s in range(4)]) == (4, [0, 1, 2, 3])


@pytest.mark.parametrize(
    ("preset", "players", "hand", "table", "target"),
    [
        ("scopa", 2, 3, 4, 11),
        ("scopa3", 3, 3, 4, 21),
        ("scopa4", 4, 3, 4, 21),
        ("scopa6", 6, 3, 4, 21),
        ("scopone", 4, 9, 4, 21),
        ("scopone_scientifico", 4, 10, 0, 21),
        ("spazzino", 2, 3, 4, 21),
        ("spatola", 2, 3, 4, 61),
    ],
)
def test_preset_table_shapes_follow_the_seeds(
    preset: str, players: int, hand: int, table: int, target: int
) -> None:
    """docs/rules.md Scopa/Scopone/Spazzino/Spatola: seats, hand size, table cards and target."""
    o = make_ruleset(preset).options
    assert (o.players, o.hand_size, o.table_cards, o.target_score) == (
        players,
        hand,
        table,
        target,
    )


def test_default_capture_rulings_per_family() -> None:
    """docs/rules.md capturing 3 and 5: equal-card precedence in Scopa, not in Spazzino/Spatola."""
    assert make_ruleset("scopa").options.equal_card_precedence
    assert make_ruleset("scopone").options.equal_card_precedence
    assert not make_ruleset("spazzino").options.equal_card_precedence
    assert not make_ruleset("spatola").options.equal_card_precedence
    assert make_ruleset("spazzino").options.figures_capture_only_figures
    assert not make_ruleset("spatola").options.figures_capture_only_figures
    assert not make_ruleset("spazzino").options.specials_on_last_card
    assert not make_ruleset("scopa").options.sweep_on_last_card


def test_docs_list_every_option_with_its_default() -> None:
    """docs/rules.md has a table row for every option of list_options() showing its default."""
    rows = doc_rows()
    for info in list_options():
        row = rows.get(f"`{info.name}`")
        assert row is not None, f"docs/rules.md has no row for option {info.name}"
        assert f"`{doc_value(info.default)}`" in row, f"{info.name}: default not in {row!r}"


def test_docs_list_every_preset_with_its_settings() -> None:
    """docs/rules.md has a row for every preset id showing each option it overrides."""
    rows = doc_rows()
    for preset in PRESETS.values():
        row = rows.get(f"`{preset.id}`")
        assert row is not None, f"docs/rules.md has no row for preset {preset.id}"
        for name, value in preset.overrides.items():
            assert f"{name}={doc_value(value)}" in row, f"{preset.id}: {name} missing"


def test_kings_redeal_defaults() -> None:
    """Scopa redeals on 3+ kings on the starting table (it.wikipedia); Spazzino and Spatola
    don't."""
    for preset in ("scopa", "scopa3", "scopa4", "scopa6", "scopone", "scopa15"):
        assert make_ruleset(preset).options.kings_redeal == 3, preset
    for preset in ("spazzino", "spatola", "spatola4"):
        assert make_ruleset(preset).options.kings_redeal == 0, preset


def test_aces_on_table_return_needs_a_stock_after_the_first_deal() -> None:
    """Returning aces turns a stock card, so it is allowed only when the first deal leaves one."""
    assert make_ruleset("scopa4", {"aces_on_table": "return"}).options.aces_on_table == "return"
    four_deals = make_ruleset("scopone", {"hand_size": 3, "aces_on_table": "return"})
    assert four_deals.options.aces_on_table == "return"
    with pytest.raises(InvalidOption) as err:
        make_ruleset("scopone", {"aces_on_table": "return"})
    assert err.value.field == "aces_on_table"


@pytest.mark.parametrize(
    ("preset", "overrides"),
    [
        ("scopa", {"table_cards": 34, "kings_redeal": 0}),
        ("scopa", {"table_cards": 28, "hand_size": 6}),
        ("scopone", {"table_cards": 4}),
        ("scopone_scientifico", {"table_cards": 0}),
        ("scopa", {"hand_size": 20, "table_cards": 0}),
    ],
)
def test_a_table_that_leaves_exactly_whole_deals_is_accepted(
    preset: str, overrides: dict[str, Any]
) -> None:
    """table_cards may take every card but at least one whole deal, dealt evenly."""
    o = make_ruleset(preset, overrides).options
    assert (DECK_SIZE - o.table_cards) % (o.players * o.hand_size) == 0
    assert o.players * o.hand_size <= DECK_SIZE - o.table_cards


@pytest.mark.parametrize(
    ("preset", "overrides", "target"),
    [
        ("scopa", {}, 11),
        ("scopa", {"players": 2}, 11),
        ("scopa", {"players": 3}, 21),
        ("scopa", {"players": 4}, 21),
        ("scopa", {"players": 6}, 21),
        ("scopa15", {"players": 4}, 21),
        ("asso_piglia_tutto", {"players": 3}, 21),
        ("scopa", {"players": 4, "target_score": 11}, 11),
        ("scopa", {"players": 3, "target_score": 31}, 31),
        ("scopa4", {"players": 4}, 21),
        ("spatola", {"players": 4}, 61),
    ],
)
def test_target_follows_the_player_count_unless_set(
    preset: str, overrides: dict[str, Any], target: int
) -> None:
    """docs/rules.md Scopa: to 11 with 2 players, 21 with 3 or more, unless preset/caller set it."""
    rules = make_ruleset(preset, overrides)
    assert rules.options.target_score == target
    assert make_ruleset(rules.preset, rules.overrides()) == rules


def test_overrides_name_a_target_only_when_it_differs_from_the_player_default() -> None:
    """Ruleset.overrides() omits the derived 21 and keeps a caller's 11 with four players."""
    assert make_ruleset("scopa", {"players": 4}).overrides() == {"players": 4}
    kept = make_ruleset("scopa", {"players": 4, "target_score": 11})
    assert kept.overrides() == {"players": 4, "target_score": 11}


@pytest.mark.parametrize(
    ("preset", "players"),
    [
        ("scopa", (2, 3, 4, 6)),
        ("scopa15", (2, 3, 4, 6)),
        ("scopa11", (2, 3, 4, 6)),
        ("asso_piglia_tutto", (2, 3, 4, 6)),
        ("scopa_d_assi", (2, 3, 4, 6)),
        ("scopa_napola", (2, 3, 4, 6)),
        ("scopa3", (3,)),
        ("scopa4", (4,)),
        ("scopa6", (6,)),
        ("scopone", (4,)),
        ("scopone_scientifico", (4,)),
        ("scopone_romano", (4,)),
        ("spazzino", (2,)),
        ("spatola", (2, 4)),
        ("spatola4", (4,)),
        ("cicera_bigia", (2, 3, 4)),
    ],
)
def test_each_preset_names_its_seat_counts(preset: str, players: tuple[int, ...]) -> None:
    """docs/rules.md: Scopa 2/3/4/6, Scopone 4, Spazzino 2 (Lo Spazzino), Spatola 2 or 4 in
    pairs."""
    assert sorted(PRESETS[preset].players) == list(players)
    assert PRESETS[preset].players[0] == make_ruleset(preset).options.players


@pytest.mark.parametrize(
    ("players", "hand", "table", "deals"), [(2, 12, 4, 2), (3, 4, 4, 4), (4, 13, 0, 1)]
)
def test_cicera_deals_by_its_seat_count(players: int, hand: int, table: int, deals: int) -> None:
    """Cicera bigia: two players 12 each and 4 on the table (twice), three 4 each (four
    deals), four in pairs 13 each (the seed); two and three play alone."""
    options = make_ruleset("cicera_bigia", {"players": players}).options
    assert (options.hand_size, options.table_cards) == (hand, table)
    assert (options.deck_size - table) // (players * hand) == deals
    assert options.sides == (2 if players == 4 else players)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_preset_builds_with_each_of_its_seat_counts_and_no_other(preset: str) -> None:
    """Every listed seat count deals evenly; any other count raises INVALID_OPTION on players."""
    for players in (1, 2, 3, 4, 5, 6, 8):
        if players in PRESETS[preset].players:
            options = make_ruleset(preset, {"players": players}).options
            assert options.players == players
            dealt = options.deck_size - options.table_cards
            assert dealt % (players * options.hand_size) == 0
        else:
            with pytest.raises(InvalidOption) as err:
                make_ruleset(preset, {"players": players})
            assert err.value.field == "players"


@pytest.mark.parametrize(
    ("preset", "overrides"),
    [
        ("scopa", {"table_cards": 38, "hand_size": 1}),
        ("scopa", {"table_cards": 34}),
        (
            "scopa",
            {"aces_on_table": "return", "kings_redeal": 0, "table_cards": 36, "hand_size": 1},
        ),
        ("scopa", {"aces_on_table": "return", "table_cards": 28, "hand_size": 3}),
    ],
)
def test_options_whose_deals_are_almost_always_void_are_refused(
    preset: str, overrides: dict[str, Any]
) -> None:
    """A table on which kings or aces void nearly every deal is INVALID_OPTION on table_cards."""
    with pytest.raises(InvalidOption) as err:
        make_ruleset(preset, overrides)
    assert err.value.field == "table_cards"
    assert "void" in err.value.message


def test_every_preset_deals_almost_never_void() -> None:
    """The presets' own tables are void on at most 1 deal in 500, but Cirulla's: its rule text
    voids every table with two or more aces (11 deals in 247)."""
    for preset in PRESETS.values():
        limit = Fraction(11, 247) if preset.id == "cirulla" else Fraction(1, 499)
        assert void_deal_chance(preset.options()) <= limit, preset.id


@pytest.mark.parametrize(
    "overrides",
    [
        {"table_cards": 20, "hand_size": 5},
        {"table_cards": 28, "hand_size": 6},
        {"kings_redeal": 2, "aces_on_table": "return", "table_cards": 10, "hand_size": 5},
        {"kings_redeal": 3, "aces_on_table": "return", "table_cards": 12, "hand_size": 2},
        {"kings_redeal": 0, "aces_on_table": "return", "table_cards": 16, "hand_size": 3},
        {"kings_redeal": 0, "aces_on_table": "redeal", "table_cards": 8, "hand_size": 4},
    ],
)
def test_void_deal_chance_matches_the_engine_deals(overrides: dict[str, Any]) -> None:
    """The computed chance agrees with the share of void deals the engine makes (seeded)."""
    ruleset = make_ruleset("scopa", overrides)
    expected = float(void_deal_chance(ruleset.options))
    assert 0.05 < expected <= MAX_VOID_CHANCE
    rng = random.Random(7)
    void = deals = 0
    for _ in range(400):
        _, events = new_match(ruleset, rng=rng)
        redeals = sum(isinstance(e, Redealt) for e in events)
        void += redeals
        deals += redeals + 1
    assert abs(void / deals - expected) < 0.05, (void / deals, expected)


def test_napola_top_takes_the_ranks_of_the_deck() -> None:
    """napola_top is 0 or a rank from 3 to the deck's top (10; 13 in the 52-card deck); the
    cirulla preset stops its piccola at 7, every other napola runs through the suit."""
    assert make_ruleset("cirulla").options.napola_top == 7
    assert make_ruleset("cirulla", {"napola_top": 0}).options.napola_top == 0
    assert make_ruleset("cirulla", {"napola_top": 10}).options.napola_top == 10
    assert make_ruleset("cicera_bigia", {"napola_top": 13}).options.napola_top == 13
    assert all(p.options().napola_top == 0 for p in PRESETS.values() if p.id != "cirulla")


def test_a_sweep_of_the_aces_table_voids_no_deal() -> None:
    """aces_on_table=sweep takes the aces' table for the dealer: only the kings void a deal, as
    with keep, where redeal voids two aces too."""
    keep = void_deal_chance(make_ruleset("cirulla", {"aces_on_table": "keep"}).options)
    sweep = void_deal_chance(make_ruleset("cirulla", {"aces_on_table": "sweep"}).options)
    redeal = void_deal_chance(make_ruleset("cirulla").options)
    assert sweep == keep < redeal


def test_options_that_can_never_score_are_refused() -> None:
    """A ruleset whose hands score nothing (FRAC without its points) would never end: refused."""
    with pytest.raises(InvalidOption) as raised:
        make_ruleset("frac", {"frac_points": False})
    assert raised.value.field == "target_score"


def test_bigger_decks_deal_their_own_card_counts() -> None:
    """deck_size 52 deals 4 x 13, deck_size 80 deals 4 x 5 four times; the deck sets the bounds."""
    bresciane = make_ruleset(
        "scopa", {"deck_size": 52, "players": 4, "hand_size": 13, "table_cards": 0}
    ).options
    assert bresciane.deck_size == 52
    two = make_ruleset(
        "scopa", {"deck_size": 80, "players": 4, "hand_size": 5, "table_cards": 0}
    ).options
    assert two.deck_size == 80
    with pytest.raises(InvalidOption) as err:
        make_ruleset("scopa", {"players": 4, "hand_size": 13, "table_cards": 0})
    assert err.value.field == "hand_size"


def test_void_deal_chance_counts_both_decks_kings() -> None:
    """With two decks eight kings may fall on the table: 3 kings of 4 cards is likelier."""
    one = make_ruleset("scopa").options
    two = make_ruleset("scopa", {"deck_size": 80, "hand_size": 5, "table_cards": 0}).options
    two_table = dataclasses.replace(two, table_cards=4)
    assert void_deal_chance(two_table) > void_deal_chance(one) > 0


def test_play_special_options_name_every_play_special_rule() -> None:
    """PLAY_SPECIAL_OPTIONS (refused beside sweep_claims) lists the option of every rule that
    scores a play, so a new one cannot score a trusted claim's hidden card."""
    assert set(PLAY_SPECIAL_OPTIONS) == {option for option, _ in SPECIAL_RULES}


def test_signed_captures_allow_tables_of_ten() -> None:
    """capture_arithmetic=signed takes a starting table of up to 10 cards (12 is refused), whose
    first move list stays in the thousands (the most over 20 seeded deals of 80 cards)."""
    rules = make_ruleset("inversa_mista", {"deck_size": 80, "table_cards": 10, "hand_size": 5})
    sizes = [len(legal_moves(new_match(rules, rng=random.Random(s))[0])) for s in range(20)]
    assert 100 < max(sizes) < 5_000, sizes


@pytest.mark.parametrize(
    ("preset", "overrides", "limit"),
    [
        ("scopa", {"sweep_claims": True}, 40),
        ("scopa", {"saponaro": True, "maresciallo": True}, 40),
        ("scopa", {"modular_captures": True, "modular_sweeps": True}, 40),
        ("scopa", {"sweep_claims": True, "hand_limit": 7}, 7),
        ("scopa", {"sweep_claims": True, "false_claim_points": 0, "wrong_doubt_points": 0}, 0),
        ("modulo_sette", {}, 40),
        ("marescialla", {"hand_limit": 999}, 999),
        ("scopa", {}, 0),
        ("frac", {"accusa": True, "frac_points": False}, 40),  # only declarations score
        ("frac", {"accusa": True}, 0),  # frac's points score too
        ("bazzica", {}, 0),
    ],
)
def test_a_new_game_whose_scores_can_fall_gets_a_hand_limit(
    preset: str, overrides: dict[str, Any], limit: int
) -> None:
    """Where a hand can cost points, or only declarations score, a new game ends by its 40th
    hand unless its preset or its creator sets a limit (make_ruleset refuses none); a game
    stored with none keeps none."""
    rules = make_ruleset(preset, overrides)
    assert rules.options.hand_limit == limit
    assert may_never_end(rules.options) == (limit != 0)
    assert make_ruleset(preset, rules.overrides()) == rules
    if limit:
        stored = make_ruleset(preset, {**overrides, "hand_limit": 0}, stored=True)
        assert stored.options.hand_limit == 0


def test_equal_rulesets_are_one_object() -> None:
    """Games of the same rules share one ruleset object (and what the engine derives from it by
    the object, such as capture tables), whether created or loaded; other rules get another."""
    first = make_ruleset("scopa", {"target_score": 21})
    assert make_ruleset("scopa", {"target_score": 21}) is first
    state, _ = new_match(first, rng=random.Random(1))
    assert load_state(dump_state(state)).ruleset is first
    assert make_ruleset("scopa", {"target_score": 16}) is not first
    assert make_ruleset("scopone", {"target_score": 21}) is not first
