"""Cards of the 40-card Italian deck, as small integers.

A card is an ``int`` in ``0..39``: ``suit * 10 + (rank - 1)``. Suits are numbered in the
order of RULINGS.md (coppe, denari, bastoni, spade); ranks run 1..7, fante 8, cavallo 9,
re 10, and a card's capture value is its rank.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

__all__ = [
    "ALL_CARDS",
    "DECK_SIZE",
    "Card",
    "Suit",
    "card_code",
    "card_of",
    "parse_card",
    "rank_of",
    "suit_of",
]

Card = int
"""A card: ``suit * 10 + rank - 1``."""

DECK_SIZE: Final = 40


class Suit(IntEnum):
    """The four Italian suits, in the order used everywhere in the API."""

    COPPE = 0
    DENARI = 1
    BASTONI = 2
    SPADE = 3


SUIT_LETTERS: Final = "CDBS"
ALL_CARDS: Final[tuple[Card, ...]] = tuple(range(DECK_SIZE))
_RANKS: Final[tuple[int, ...]] = tuple(c % 10 + 1 for c in ALL_CARDS)
_SUITS: Final[tuple[Suit, ...]] = tuple(Suit(c // 10) for c in ALL_CARDS)


def card_of(suit: Suit | int, rank: int) -> Card:
    """Return the card of ``suit`` and ``rank`` (1..10)."""
    if not 1 <= rank <= 10 or not 0 <= int(suit) <= 3:
        raise ValueError(f"no such card: suit={suit!r} rank={rank!r}")
    return int(suit) * 10 + rank - 1


def rank_of(card: Card) -> int:
    """Return the rank (1..10) of ``card``, which is also its capture value."""
    return _RANKS[card]


def suit_of(card: Card) -> Suit:
    """Return the suit of ``card``."""
    return _SUITS[card]


def card_code(card: Card) -> str:
    """Return the short code of ``card``: rank then suit letter, e.g. ``7D`` (settebello)."""
    return f"{_RANKS[card]}{SUIT_LETTERS[card // 10]}"


def parse_card(code: str) -> Card:
    """Parse a short code such as ``7D`` or ``10S`` (case-insensitive)."""
    text = code.strip().upper()
    if len(text) < 2 or text[-1] not in SUIT_LETTERS or not text[:-1].isdigit():
        raise ValueError(f"not a card code: {code!r}")
    return card_of(SUIT_LETTERS.index(text[-1]), int(text[:-1]))
