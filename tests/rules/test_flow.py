"""Tests of the match-flow exceptions as rules (scopa.rules._flow): sweeps, lone takes, deals."""

from __future__ import annotations

import pytest
from rules_helpers import cards

from scopa.rules import (
    AceOnEmptyTableTakes,
    AcesOnTable,
    AcesRedeal,
    AcesReturn,
    AceSweep,
    KingsRedeal,
    NoSweepOnLastCard,
    NoSweeps,
    Options,
    deal_rules,
    lone_take_rules,
    sweep_rules,
    sweeps_score,
)
from scopa.rules._options import SWEEP_SPECIAL_OPTIONS
from scopa.rules._specials import SPECIAL_RULES, SpecialRule


def _one(codes: str) -> int:
    return cards(codes)[0]


def _never_void(table: list[int]) -> str:
    return ""


def test_no_sweep_on_last_card_speaks_only_for_the_last_card() -> None:
    """The last card's clearing is no sweep; any other play is left to the next rule."""
    rule = NoSweepOnLastCard()
    assert rule.sweep(cards("5C"), _one("5D"), cards("5C"), last_card=True) is False
    assert rule.sweep(cards("5C"), _one("5D"), cards("5C"), last_card=False) is None


@pytest.mark.parametrize(
    ("counts", "only_table_ace", "table", "card", "expected"),
    [
        (False, True, "3C 5D", "1S", False),  # asso piglia tutto: the ace's clearing is no sweep
        (True, True, "3C 5D", "1S", True),  # Scopa d'assi: it is
        (False, True, "1C", "1S", None),  # took the table ace by the ordinary rule
        (False, False, "1C 3D", "1S", False),  # no only_table_ace: the ace rule took all
        (False, True, "", "1S", True),  # ace alone on an empty table
        (True, True, "3C 4D", "7S", None),  # not an ace: no say
    ],
)
def test_ace_sweep_answers_for_aces_only(
    counts: bool, only_table_ace: bool, table: str, card: str, expected: bool | None
) -> None:
    """The Scopa page and it.wikipedia: an ace's clearing sweeps per ace_sweep_counts; a table ace
    is ordinary."""
    rule = AceSweep(counts=counts, only_table_ace=only_table_ace)
    taken = cards(table) if table else ()
    assert rule.sweep(taken, _one(card), taken, last_card=False) is expected


def test_ace_on_empty_table_takes_only_aces() -> None:
    """An ace on an empty table takes itself; any other card is laid."""
    rule = AceOnEmptyTableTakes()
    assert rule.takes_alone(_one("1D"))
    assert not rule.takes_alone(_one("2D"))


@pytest.mark.parametrize(
    ("count", "table", "reason"),
    [(3, "10C 10D 10S 4B", "kings"), (3, "10C 10D 4S 4B", ""), (2, "10C 10D 4S 4B", "kings")],
)
def test_kings_redeal_voids_from_its_count(count: int, table: str, reason: str) -> None:
    """kings_redeal=N: N or more kings on the starting table void the deal."""
    rule = KingsRedeal(count)
    assert rule.void(list(cards(table))) == reason
    stock = cards("5C 6C")
    assert rule.fix(list(cards(table)), stock, _never_void) == (stock, [], "")


def test_aces_return_sends_a_lone_ace_under_the_stock() -> None:
    """The Scopa page: a lone ace goes under the stock and the next card is turned in its place."""
    table = list(cards("1C 4D 5S 6B"))
    stock, back, reason = AcesReturn().fix(table, cards("1D 7C 8C"), _never_void)
    assert table == list(cards("4D 5S 6B 7C"))  # the turned 1D went back too
    assert (stock, back, reason) == (cards("8C 1C 1D"), list(cards("1C 1D")), "")


def test_aces_return_voids_two_aces_and_a_stock_of_aces() -> None:
    """Two aces on the table void the deal; so does a lone ace with only aces left to turn."""
    rule = AcesReturn()
    assert rule.void(list(cards("1C 1D 5S 6B"))) == "aces"
    assert rule.void(list(cards("1C 4D 5S 6B"))) == ""
    table = list(cards("1C 4D 5S 6B"))
    assert rule.fix(table, cards("1D 1S"), _never_void) == (cards("1D 1S"), [], "aces")


def test_aces_return_stops_when_the_deal_is_void() -> None:
    """A fix-up stops as soon as another rule voids the table (e.g. the turned card is a king)."""
    table = list(cards("1C 10D 10S 6B"))
    stock, back, reason = AcesReturn().fix(table, cards("10C 7C"), KingsRedeal(3).void)
    assert table == list(cards("10D 10S 6B 10C"))
    assert (stock, back, reason) == (cards("7C 1C"), [_one("1C")], "")


def test_the_options_list_the_flow_rules_in_order() -> None:
    """Each option enables its rule; the ace rules come only with asso piglia tutto."""
    assert [type(r) for r in sweep_rules(Options())] == [NoSweepOnLastCard]
    assert sweep_rules(Options(sweep_on_last_card=True)) == ()
    assert [type(r) for r in sweep_rules(Options(ace_takes_all=True))] == [
        NoSweepOnLastCard,
        AceSweep,
    ]
    assert lone_take_rules(Options(ace_on_empty_table_sweeps=True)) == ()
    lone = lone_take_rules(Options(ace_takes_all=True, ace_on_empty_table_sweeps=True))
    assert [type(r) for r in lone] == [AceOnEmptyTableTakes]
    assert [type(r) for r in deal_rules(Options())] == [KingsRedeal]
    assert deal_rules(Options(kings_redeal=0)) == ()
    returning = deal_rules(Options(kings_redeal=2, aces_on_table=AcesOnTable.RETURN))
    assert [type(r) for r in returning] == [KingsRedeal, AcesReturn]


def test_cirullas_aces_redeal_voids_two_aces_and_keeps_one() -> None:
    """Cirulla (regoledelgioco): two or more aces void the deal; a lone ace is not fixed up."""
    rule = AcesRedeal()
    assert rule.void(list(cards("1C 1D 5S 7B"))) == "aces"
    assert rule.void(list(cards("1C 2D 5S 7B"))) == ""
    table = list(cards("1C 2D 5S 7B"))
    assert rule.fix(table, cards("3C 4C"), rule.void) == (cards("3C 4C"), [], "")
    assert table == list(cards("1C 2D 5S 7B"))
    redealing = deal_rules(Options(kings_redeal=0, aces_on_table=AcesOnTable.REDEAL))
    assert [type(r) for r in redealing] == [AcesRedeal]


def test_a_ruleset_scoring_no_sweep_records_none() -> None:
    """Rubamazzo (sweep_points 0, no rule scoring a sweep): a clearing is never a sweep, asked
    before the ace and the last-card rules; any rule that scores a sweep keeps them."""
    rubamazzo = Options(sweep_points=0, pile_steal=True, ace_takes_all=True)
    assert not sweeps_score(rubamazzo)
    assert [type(r) for r in sweep_rules(rubamazzo)] == [NoSweeps]
    assert NoSweeps().sweep(cards("5C"), _one("5D"), cards("5C"), last_card=False) is False
    for scored in (
        Options(),
        Options(sweep_points=0, modular_sweeps=True),
        Options(sweep_points=0, maresciallo=True),
        Options(sweep_points=0, deck_size=80, twin_captures=True),
        Options(sweep_points=0, sweep_claims=True),
    ):
        assert sweeps_score(scored)
        assert NoSweeps not in [type(r) for r in sweep_rules(scored)]


@pytest.mark.parametrize(("option", "rule"), SPECIAL_RULES)
def test_only_the_sweep_special_rules_look_at_the_sweep(option: str, rule: SpecialRule) -> None:
    """The special rules outside SWEEP_SPECIAL_OPTIONS score a play alike swept or not, so
    sweeps_score may leave them out."""
    plays = [
        ("5C", "5D", "5D"),
        ("7C", "3C 4C", "-"),
        ("10S", "10S", "-"),
        ("10S", "3C 7D", "-"),
        ("2C", "6D 10B", "-"),
        ("7B", "7D", "-"),
    ]
    differs = False
    for card, capture, laid in plays:
        last_laid = -1 if laid == "-" else _one(laid)
        args = (_one(card), cards(capture), last_laid)
        differs |= rule.points(*args, True) != rule.points(*args, False)
    assert differs == (option in SWEEP_SPECIAL_OPTIONS)
