"""Tests of the card encoding (scopa.rules._cards): ints ``suit * 10 + rank - 1`` and codes."""

from __future__ import annotations

import pytest

from scopa.rules import (
    ALL_CARDS,
    DECK_SIZE,
    Suit,
    card_code,
    card_of,
    parse_card,
    rank_of,
    suit_of,
)


def test_deck_has_forty_distinct_cards() -> None:
    """RULINGS.md conventions: the deck is 40 cards, 4 suits of ranks 1..10."""
    assert DECK_SIZE == 40
    assert len(set(ALL_CARDS)) == 40
    assert {(suit_of(c), rank_of(c)) for c in ALL_CARDS} == {
        (s, r) for s in Suit for r in range(1, 11)
    }


def test_suit_order_is_coppe_denari_bastoni_spade() -> None:
    """RULINGS.md conventions: suits are numbered coppe, denari, bastoni, spade."""
    assert [s.name for s in Suit] == ["COPPE", "DENARI", "BASTONI", "SPADE"]


@pytest.mark.parametrize("card", ALL_CARDS)
def test_encoding_is_suit_times_ten_plus_rank_minus_one(card: int) -> None:
    """Every card is ``suit * 10 + rank - 1`` and its code parses back to it."""
    assert card == suit_of(card) * 10 + rank_of(card) - 1
    assert card_of(suit_of(card), rank_of(card)) == card
    assert parse_card(card_code(card)) == card


def test_named_cards_have_the_expected_codes() -> None:
    """The settebello is 7D (16), the re of spade 10S (39), the ace of coppe 1C (0)."""
    assert parse_card("7D") == 16 == card_of(Suit.DENARI, 7)
    assert parse_card("10S") == 39
    assert parse_card("1c") == 0
    assert card_code(16) == "7D"
    assert card_code(card_of(Suit.BASTONI, 8)) == "8B"


def test_capture_value_is_the_rank() -> None:
    """RULINGS.md conventions: ranks 1..7, fante 8, cavallo 9, re 10, value = rank."""
    assert [rank_of(parse_card(f"{r}B")) for r in range(1, 11)] == list(range(1, 11))


@pytest.mark.parametrize("code", ["", "7", "D", "7X", "0D", "11C", "AD", "7DD"])
def test_bad_codes_are_rejected(code: str) -> None:
    """Malformed card codes raise ValueError instead of naming some other card."""
    with pytest.raises(ValueError):
        parse_card(code)


def test_card_of_rejects_out_of_range() -> None:
    """card_of refuses ranks outside 1..10 and suits outside 0..3."""
    with pytest.raises(ValueError):
        card_of(Suit.COPPE, 0)
    with pytest.raises(ValueError):
        card_of(4, 1)
