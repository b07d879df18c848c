"""Tests of the card encoding (scopa.rules._cards): ints ``suit * 10 + rank - 1`` and codes, the
52-card deck's ranks 11..13 and the 80-card deck's second copies."""

from __future__ import annotations

import pytest

from scopa.rules import (
    ALL_CARDS,
    DECK_SIZE,
    DECK_SIZES,
    MAX_CARD,
    Suit,
    base_card,
    card_code,
    card_of,
    copy_of,
    deck_cards,
    figure_rank,
    parse_card,
    rank_of,
    suit_of,
)


def test_deck_has_forty_distinct_cards() -> None:
    """docs/rules.md's conventions: the deck is 40 cards, 4 suits of ranks 1..10."""
    assert DECK_SIZE == 40
    assert len(set(ALL_CARDS)) == 40
    assert {(suit_of(c), rank_of(c)) for c in ALL_CARDS} == {
        (s, r) for s in Suit for r in range(1, 11)
    }


def test_suit_order_is_coppe_denari_bastoni_spade() -> None:
    """docs/rules.md's conventions: suits are numbered coppe, denari, bastoni, spade."""
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
    """docs/rules.md's conventions: ranks 1..7, fante 8, cavallo 9, re 10, value = rank."""
    assert [rank_of(parse_card(f"{r}B")) for r in range(1, 11)] == list(range(1, 11))


@pytest.mark.parametrize("code", ["", "7", "D", "7X", "0D", "14C", "AD", "7DD", "7D''", "'"])
def test_bad_codes_are_rejected(code: str) -> None:
    """Malformed card codes raise ValueError instead of naming some other card."""
    with pytest.raises(ValueError):
        parse_card(code)


def test_card_of_rejects_out_of_range() -> None:
    """card_of refuses ranks outside 1..13, suits outside 0..3 and copies other than 0 and 1."""
    with pytest.raises(ValueError):
        card_of(Suit.COPPE, 0)
    with pytest.raises(ValueError):
        card_of(Suit.COPPE, 14)
    with pytest.raises(ValueError):
        card_of(4, 1)
    with pytest.raises(ValueError):
        card_of(Suit.COPPE, 1, 2)


def test_the_52_card_deck_adds_ranks_11_to_13() -> None:
    """The Bresciane deck is the 40 cards plus ranks 11 (fante), 12 and 13 (re) of each suit."""
    deck = deck_cards(52)
    assert len(set(deck)) == 52
    assert deck[:40] == ALL_CARDS
    assert {(suit_of(c), rank_of(c)) for c in deck} == {(s, r) for s in Suit for r in range(1, 14)}
    assert figure_rank(52) == 11
    assert figure_rank(40) == figure_rank(80) == 8


def test_the_80_card_deck_holds_every_card_twice() -> None:
    """The two-deck 80 holds each 40-card card once as copy 0 and once as copy 1."""
    deck = deck_cards(80)
    assert len(set(deck)) == 80
    assert [c for c in deck if copy_of(c) == 0] == list(ALL_CARDS)
    seconds = [c for c in deck if copy_of(c) == 1]
    assert [base_card(c) for c in seconds] == list(ALL_CARDS)
    assert all(suit_of(c) == suit_of(base_card(c)) for c in seconds)
    assert all(rank_of(c) == rank_of(base_card(c)) for c in seconds)


@pytest.mark.parametrize("card", range(MAX_CARD))
def test_every_card_int_round_trips(card: int) -> None:
    """Every card int (any deck) is card_of its suit, rank and copy, and its code parses back."""
    assert card_of(suit_of(card), rank_of(card), copy_of(card)) == card
    assert parse_card(card_code(card)) == card


def test_second_copies_are_coded_with_a_prime() -> None:
    """The second settebello is 7D' and differs from the first; 13S is the 52-card re of spade."""
    second = parse_card("7D'")
    assert second != parse_card("7D")
    assert base_card(second) == parse_card("7D")
    assert card_code(second) == "7D'"
    assert card_code(card_of(Suit.SPADE, 13)) == "13S"


def test_unknown_deck_sizes_are_refused() -> None:
    """deck_cards knows the 40, 52 and 80 decks only."""
    assert DECK_SIZES == (40, 52, 80)
    with pytest.raises(ValueError):
        deck_cards(36)
