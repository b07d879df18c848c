"""Tests of capturing (scopa.rules._capture) against docs/rules.md "Capturing" and the seeds."""

from __future__ import annotations

from typing import Any

import pytest
from rules_helpers import cards

from scopa.rules import capture_options, card_code, make_ruleset, parse_card
from scopa.rules._capture import table_key


def takes(preset: str, table: str, card: str, **overrides: Any) -> set[str]:
    """The legal captures of ``card`` on ``table``, each as sorted space-separated codes."""
    options = make_ruleset(preset, overrides).options
    laid = tuple(sorted(cards(table), key=table_key))
    found = capture_options(options, laid, parse_card(card))
    return {" ".join(sorted(card_code(c) for c in s)) for s in found}


@pytest.mark.parametrize("rank", range(1, 8))
def test_each_rank_one_to_seven_takes_an_equal_card(rank: int) -> None:
    """docs/rules.md capturing 1: a played card takes one table card of equal rank."""
    assert takes("scopa", f"{rank}C 10B", f"{rank}D") == {f"{rank}C"}


def test_a_sum_of_two_or_more_cards_is_taken() -> None:
    """docs/rules.md capturing 1: a card takes a set of cards whose ranks add up to its rank."""
    assert takes("scopa", "1C 2B 4S 9D", "7D") == {"1C 2B 4S"}
    assert takes("scopa", "2C 3B 5S 9D", "5D") == {"5S"}  # equal first, Scopa default
    assert takes("scopa", "2C 3B 4S 1D", "5D") == {"1D 4S", "2C 3B"}


def test_no_capture_when_nothing_matches() -> None:
    """docs/rules.md capturing 2: a card that can take nothing has no capture (it is laid)."""
    assert takes("scopa", "8C 9B", "6D") == set()
    assert takes("scopa", "", "6D") == set()


def test_every_legal_set_is_listed() -> None:
    """docs/rules.md capturing 4: every legal capture set is offered, each once."""
    found = takes("spazzino", "1C 2C 3B 4S 6D", "7D")
    assert found == {"1C 2C 4S", "1C 6D", "3B 4S"}


def test_equal_card_precedence_in_scopa() -> None:
    """docs/rules.md capturing 3 (the Scopa page and it.wikipedia): with an equal card on the table,
    no sum."""
    assert takes("scopa", "7C 3B 4S", "7D") == {"7C"}
    assert takes("scopa", "7C 7S 3B 4S", "7D") == {"7C", "7S"}


def test_free_choice_in_spazzino() -> None:
    """docs/rules.md capturing 3: Spazzino's 7 on 7, 3, 4 may take [7] or [3, 4]."""
    assert takes("spazzino", "7C 3B 4S", "7D") == {"7C", "3B 4S"}
    assert takes("scopa", "7C 3B 4S", "7D", equal_card_precedence=False) == {"7C", "3B 4S"}


def test_figures_take_only_figures_in_spazzino() -> None:
    """docs/rules.md capturing 5 (Lo Spazzino): a Spazzino figure takes an equal figure, never a
    sum."""
    assert takes("spazzino", "3C 5B 2S", "8D") == set()
    assert takes("spazzino", "8C 3B 5S", "8D") == {"8C"}
    assert takes("spazzino", "3C 7B", "10D") == set()
    assert takes("spatola", "3C 5B", "8D") == {"3C 5B"}  # Spatola has no such restriction
    assert takes("scopa", "3C 7B", "10D") == {"3C 7B"}


def test_asso_piglia_tutto_takes_the_whole_table() -> None:
    """docs/rules.md asso piglia tutto (the Scopa page and it.wikipedia): an ace takes every card on
    the table."""
    assert takes("asso_piglia_tutto", "2C 5B 9S", "1D") == {"2C 5B 9S"}
    assert takes("scopa", "2C 5B 9S", "1D") == set()


def test_asso_piglia_tutto_with_an_ace_on_the_table_takes_only_that_ace() -> None:
    """docs/rules.md asso piglia tutto (it.wikipedia): with an ace on the table, the ace takes just
    it."""
    assert takes("asso_piglia_tutto", "1C 5B 9S", "1D") == {"1C"}
    assert takes("asso_piglia_tutto", "1C 1B 9S", "1D") == {"1C", "1B"}
    both = takes("asso_piglia_tutto", "1C 5B 9S", "1D", ace_takes_only_table_ace=False)
    assert both == {"1C 5B 9S"}


def test_asso_piglia_tutto_on_an_empty_table_takes_nothing() -> None:
    """docs/rules.md asso piglia tutto: on an empty table the ace has no capture (default: laid)."""
    assert takes("asso_piglia_tutto", "", "1D") == set()


def test_asso_piglia_tutto_leaves_other_cards_alone() -> None:
    """Asso piglia tutto changes only aces: other cards capture as in Scopa."""
    assert takes("asso_piglia_tutto", "2C 5B 9S", "7D") == {"2C 5B"}


def test_scopa_a_15_takes_the_fewest_cards() -> None:
    """it.wikipedia example: on A, 3, 4, 5, fante a 6 takes A+fante or 4+5, not A+3+5."""
    assert takes("scopa15", "1C 3B 4S 5D 8C", "6B") == {"1C 8C", "4S 5D"}


def test_scopa_a_15_alone_or_beside_ordinary_captures() -> None:
    """docs/rules.md scopa a 15: by default only 15-captures; capture_15_only=False adds the
    others."""
    assert takes("scopa15", "2C 3B", "5D") == set()
    assert takes("scopa15", "2C 3B 10S", "5D") == {"10S"}
    assert takes("scopa15", "2C 3B 10S", "5D", capture_15_only=False) == {"10S", "2C 3B"}


def test_scopa_a_11_fante_takes_a_three() -> None:
    """docs/rules.md scopa a 11 (it.wikipedia): a fante may also take a 3 (8 + 3 = 11)."""
    assert takes("scopa11", "3C 5B", "8D") == {"3C", "3C 5B"}
    assert takes("scopa", "3C 5B", "8D") == {"3C 5B"}


def test_scopa_a_11_even_with_an_equal_card_on_the_table() -> None:
    """docs/rules.md scopa a 11: the 11-capture is allowed even when an equal card lies there."""
    assert takes("scopa11", "3C 8B", "8D") == {"3C", "8B"}
    assert takes("scopa", "3C 8B", "8D") == {"8B"}


def test_frac_has_no_equal_card_obligation() -> None:
    """it.wikipedia Scopa FRAC: with an equal card and a sum on the table, either may be taken."""
    assert takes("frac", "7C 3B 4S", "7D") == {"7C", "3B 4S"}
    assert takes("scopa", "7C 3B 4S", "7D") == {"7C"}


def test_sbarazzino_ace_takes_the_whole_table() -> None:
    """it.wikipedia Sbarazzino: a played ace takes every card face up on the table."""
    assert takes("sbarazzino", "2C 5B 9S", "1D") == {"2C 5B 9S"}


def test_differenze_takes_by_the_difference_of_seed_004() -> None:
    """it.wikipedia Scopa delle differenze: fante and 2 by a 6 (8 - 2); ace, re and 7 by a 2."""
    assert takes("differenze", "8C 2B", "6D") == {"2B 8C"}
    assert takes("differenze", "1C 10B 7S", "2D") == {"10B 1C 7S"}
    assert takes("differenze", "8C 2B", "10D") == set()  # no sums
    assert takes("differenze", "8C 5B", "8D") == {"8C"}  # one card: an equal card, as usual
    assert takes("differenze", "5C 9B", "5D") == {"5C"}


def test_differenze_lists_every_difference() -> None:
    """Every set whose highest card minus the others is the played card is listed."""
    assert takes("differenze", "1C 3B 4S 10D", "6D") == {"10D 4S", "10D 1C 3B"}
    assert takes("differenze", "3C 3B 9S", "3D", equal_card_precedence=False) == {
        "3C",
        "3B",
        "3B 3C 9S",
    }


def test_inversa_takes_by_sum_or_by_difference() -> None:
    """it.wikipedia Scopa inversa, hybrid form: both additions and subtractions capture."""
    assert takes("inversa", "8C 2B", "6D") == {"2B 8C"}
    assert takes("inversa", "8C 2B", "10D") == {"2B 8C"}
    assert takes("inversa", "1C 4B 5S", "9D") == {"4B 5S"}
    assert takes("inversa", "1C 4B 5S", "2D") == set()  # nothing adds or subtracts to 2


def test_inversa_mista_takes_by_any_mix_of_signs() -> None:
    """it.wikipedia Scopa inversa read with mixed signs: each card added or subtracted."""
    assert takes("inversa_mista", "1C 4B 5S", "2D") == {"1C 4B 5S"}  # 5 - 4 + 1
    assert takes("inversa_mista", "2C 3B 5S", "6D") == {"2C 3B 5S"}  # 5 + 3 - 2
    assert takes("inversa_mista", "8C 2B", "6D") == {"2B 8C"}  # the seed's difference
    assert takes("inversa_mista", "8C 2B", "10D") == {"2B 8C"}  # a sum
    assert takes("inversa_mista", "1C 7B 10S", "2D") == {"10S 1C 7B"}  # 10 - 7 - 1
    assert takes("inversa_mista", "1C 7B 10S", "4D") == {"10S 1C 7B"}  # 10 - 7 + 1
    assert takes("inversa_mista", "2C 6B", "6D") == {"6B"}  # an equal card comes first
    assert takes("inversa_mista", "2C 9B", "6D") == set()  # 11 or 7: nothing makes 6


def test_modulo_sette_counts_values_and_sums_modulo_seven() -> None:
    """it.wikipedia Modulo sette: a 2 takes a 6 and a re (16 = 2 mod 7); a 4 takes an ace and a
    3."""
    assert "10B 6C" in takes("modulo_sette", "6C 10B", "2D")
    assert takes("modulo_sette", "1C 3B", "4D") == {"1C 3B"}
    assert takes("modulo_sette", "6C 4B", "10D") == {"4B 6C"}


def test_modulo_sette_choice_where_ambiguous() -> None:
    """it.wikipedia "axiom of choice": on 7 and 2 a cavallo takes the 2 alone, or the 2 and the
    7."""
    assert takes("modulo_sette", "7C 2B", "9D") == {"2B", "2B 7C"}


def test_modulo_sette_keeps_the_equal_card_first() -> None:
    """it.wikipedia: on a 7 and a cavallo the cavallo must take the cavallo; a 2 may take both."""
    assert takes("modulo_sette", "7C 9B", "9D") == {"9B"}
    assert takes("modulo_sette", "7C 9B", "2D") == {"9B", "7C 9B"}


def test_cirulla_takes_sums_and_fifteens_freely() -> None:
    """Cirulla (Pagat): equal card, sum or 15 with the played card; every 15 set, not the fewest."""
    assert takes("cirulla", "1C 3B 4S 5D 8C", "6D") == {"1C 5D", "1C 8C", "4S 5D", "1C 3B 5D"}
    assert takes("cirulla", "7C 3B 4S", "7D") == {"7C"}  # an equal card before a sum of 7
    assert takes("cirulla", "8C 2B 9S", "1D") == {"2B 8C 9S"}  # the ace takes the table


def test_a_cirulla_ace_beside_a_table_ace_takes_it_or_makes_15() -> None:
    """Cirulla (genovagioca.it: "prende il solo asso [...] a meno che non sia quindici la somma
    totale"): with an ace on the table a played ace takes that ace, or a set making 15 with it."""
    assert takes("cirulla", "1C 4B 10S", "1D") == {"1C", "10S 4B"}
    assert takes("cirulla", "1C 4B 9S", "1D") == {"1C 4B 9S", "1C"}  # 1 + 1 + 4 + 9: the table
    assert takes("cirulla", "1C 6B 9S", "1D") == {"1C"}  # nothing else makes 15
    assert takes("cirulla", "1C 4B 10S", "1D", table_ace_15=False) == {"1C"}
    assert takes("cirulla", "4B 10S", "1D") == {"10S 4B"}  # no table ace: the whole table


def test_an_ace_with_no_table_ace_makes_15_only_by_option() -> None:
    """Issue 27: the rule pages' ace takes the whole table ("l'asso piglia tutto"); with
    ace_takes_15 (an engine's reading) it may instead take a set making 15 with it."""
    assert takes("cirulla", "4B 10S 5C", "1D") == {"10S 4B 5C"}
    assert takes("cirulla", "4B 10S 5C", "1D", ace_takes_15=True) == {"10S 4B 5C", "10S 4B"}
    assert takes("cirulla", "4B 10S", "1D", ace_takes_15=True) == {"10S 4B"}  # 15 is the table
    assert takes("cirulla", "6B 9S 2C", "1D", ace_takes_15=True) == {"2C 6B 9S"}  # no 15
    assert takes("cirulla", "1C 4B 10S", "1D", ace_takes_15=True) == {"1C", "10S 4B"}


def test_the_52_card_deck_figures_take_only_figures() -> None:
    """figures_capture_only_figures in the 52-card deck: 11..13 are the figures, 8..10 numerals."""
    deck = {"deck_size": 52, "players": 4, "hand_size": 13, "table_cards": 0, "kings_redeal": 0}
    only = {**deck, "figures_capture_only_figures": True}
    assert takes("scopa", "11C 5B 6S", "11D", **only) == {"11C"}
    assert takes("scopa", "12C 5B 6S", "11D", **only) == set()
    assert takes("scopa", "4C 6B", "10D", **only) == {"4C 6B"}  # a numeral 10 takes a sum
    assert takes("scopa", "4C 6B", "10D", figures_capture_only_figures=True) == set()  # a re
    assert takes("scopa", "6C 7B", "13D", **deck) == {"6C 7B"}  # without the option: value 13


def test_a_twin_is_taken_only_to_sweep() -> None:
    """twin_captures (it.wikipedia, 80 cards): 5S takes 5S' only when that clears the table."""
    deck = {"deck_size": 80, "players": 4, "hand_size": 5, "table_cards": 0}
    twins = {**deck, "twin_captures": True}
    assert takes("scopa", "5S' 3C", "5S", **twins) == set()
    assert takes("scopa", "5S'", "5S", **twins) == {"5S'"}
    assert takes("scopa", "5S' 5C", "5S", **twins) == {"5C"}
    assert takes("scopa", "2S 3S'", "5S", **twins) == {"2S 3S'"}  # other cards of the suit
    assert takes("scopa", "5S' 3C", "5S", **deck) == {"5S'"}  # the option off: as any 5


def test_table_key_orders_by_rank_then_suit_then_copy() -> None:
    """The table is sorted by rank, suit and copy, so 7D sorts before 7D' and after 7C'."""
    codes = ["7D'", "7D", "7C'", "13C", "1S'", "8B"]
    ordered = [card_code(c) for c in sorted(cards(" ".join(codes)), key=table_key)]
    assert ordered == ["1S'", "7C'", "7D", "7D'", "8B", "13C"]


def test_signed_captures_tell_cards_of_one_rank_apart() -> None:
    """inversa_mista: cards of one rank are separate cards of a set: 2C 2B 1S give a 3 three
    sets (2 + 1 either way, 2 + 2 - 1), a 5 one (2 + 2 + 1); two 3s cancel to 0, so a 2 takes
    nothing; with two decks 9B 3C 3C' are taken by a 3 (9 - 3 - 3) while the twins alone are
    not."""
    assert takes("inversa_mista", "2C 2B 1S", "3D") == {"1S 2C", "1S 2B", "1S 2B 2C"}
    assert takes("inversa_mista", "2C 2B 1S", "5D") == {"1S 2B 2C"}
    assert takes("inversa_mista", "3C 3B", "2D") == set()
    twins = {"deck_size": 80, "hand_size": 2, "equal_card_precedence": False}
    assert takes("inversa_mista", "3C 3C' 9B", "3D", **twins) == {"3C", "3C'", "3C 3C' 9B"}


def test_optional_captures_keep_the_other_capture_rules() -> None:
    """optional_captures=all adds the lay to what the other rules allow and changes nothing
    else: an equal card still comes first (5C, not 2B 3S), an ace still takes the whole table,
    and Cirulla's ace beside a table ace takes that ace or a 15 set."""
    every = {"optional_captures": "all"}
    assert takes("scopa", "5C 2B 3S", "5D", **every) == {"5C", ""}
    assert takes("asso_piglia_tutto", "5C 2B 3S", "1D", **every) == {"2B 3S 5C", ""}
    assert takes("cirulla", "1C 4B 10S", "1D", **every) == {"1C", "10S 4B", ""}


def test_optional_captures_add_the_lay_to_figures_or_to_every_card() -> None:
    """Cicera: with optional_captures=figures (regoledelgioco) a figure that could take an equal
    figure may be laid instead, a numeral still must capture; with all (gamerules.com) any card
    may; a card that takes nothing is laid as ever (the empty set is listed once)."""
    cicera = {"optional_captures": "figures"}
    assert takes("cicera_bigia", "11C 5B 6S", "11D", **cicera) == {"11C", ""}
    assert takes("cicera_bigia", "4C 5B 6S", "10D", **cicera) == {"4C 6S"}
    assert takes("cicera_bigia", "11C 5B 6S", "11D") == {"11C"}  # compulsory by default
    # outside Cicera a figure may still only decline an equal figure, never a sum
    assert takes("scopa", "5C 3B", "8D", **cicera) == {"3B 5C"}
    assert takes("scopa", "8C 5B 3S", "8D", **cicera) == {"8C", ""}
    every = {"optional_captures": "all"}
    assert takes("cicera_bigia", "4C 5B 6S", "10D", **every) == {"4C 6S", ""}
    assert takes("cicera_bigia", "4C 5B 6S", "2D", **every) == set()  # nothing to take: laid
    assert takes("scopa", "3C 4B", "7D", **every) == {"3C 4B", ""}
