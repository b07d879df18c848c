"""Cards of the Italian decks (40, 52 and two 40-card decks = 80 cards), as small integers.

A card is an ``int``. The 40-card deck's cards are ``0..39``: ``suit * 10 + (rank - 1)``, ranks
1..7, fante 8, cavallo 9, re 10 (their capture value is their rank). The 52-card (Bresciane) deck
adds the ranks 11..13 as ``40 + suit * 3 + (rank - 11)`` (``40..51``); there the ranks 8..10 are
the numerals and 11 fante, 12 cavallo, 13 re. A second copy of a card (the 80-card deck is two
40-card decks) is the first copy's int plus :data:`COPY_STRIDE`, so ``copy_of`` tells two
otherwise identical cards apart. Suits are numbered in the order of docs/rules.md (coppe, denari,
bastoni, spade). The deck a game is dealt from is a ruleset option (:func:`deck_cards`).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

__all__ = [
    "ALL_CARDS",
    "COPY_STRIDE",
    "DECK_SIZE",
    "DECK_SIZES",
    "MAX_CARD",
    "Card",
    "Suit",
    "base_card",
    "card_code",
    "card_of",
    "copy_of",
    "deck_cards",
    "figure_rank",
    "parse_card",
    "rank_of",
    "suit_of",
]

Card = int
"""A card: ``suit * 10 + rank - 1`` for ranks 1..10, ``40 + suit * 3 + rank - 11`` for 11..13,
plus :data:`COPY_STRIDE` for a second copy."""

DECK_SIZE: Final = 40
"""The standard deck (every preset but those that say otherwise)."""

DECK_SIZES: Final[tuple[int, ...]] = (40, 52, 80)
"""The decks a ruleset may deal from: the Italian 40 cards, the Bresciane 52, two 40-card decks."""

COPY_STRIDE: Final = 52
"""The second copy of a card is the first copy's int plus this."""

MAX_CARD: Final = 2 * COPY_STRIDE
"""Every card int is below this."""


class Suit(IntEnum):
    """The four Italian suits, in the order used everywhere in the API."""

    COPPE = 0
    DENARI = 1
    BASTONI = 2
    SPADE = 3


SUIT_LETTERS: Final = "CDBS"
_HIGH_BASE: Final = 40
"""The first card of ranks 11..13."""


def _decode(card: int) -> tuple[int, int, int]:
    """(suit, rank, copy) of every int below :data:`MAX_CARD`."""
    copy, base = divmod(card, COPY_STRIDE)
    if base < _HIGH_BASE:
        return base // 10, base % 10 + 1, copy
    suit, high = divmod(base - _HIGH_BASE, 3)
    return suit, high + 11, copy


_DECODED: Final = tuple(_decode(c) for c in range(MAX_CARD))
_RANKS: Final[tuple[int, ...]] = tuple(d[1] for d in _DECODED)
_SUITS: Final[tuple[Suit, ...]] = tuple(Suit(d[0]) for d in _DECODED)
_SUIT_NUMS: Final[tuple[int, ...]] = tuple(d[0] for d in _DECODED)
"""Per card, its suit as a plain int (for loops that compare many suits)."""
_COPIES: Final[tuple[int, ...]] = tuple(d[2] for d in _DECODED)
_BASES: Final[tuple[Card, ...]] = tuple(c % COPY_STRIDE for c in range(MAX_CARD))

ALL_CARDS: Final[tuple[Card, ...]] = tuple(range(DECK_SIZE))
"""The 40-card deck."""

_DECKS: Final[dict[int, tuple[Card, ...]]] = {
    40: ALL_CARDS,
    52: tuple(range(_HIGH_BASE + 12)),
    80: ALL_CARDS + tuple(c + COPY_STRIDE for c in ALL_CARDS),
}


def deck_cards(size: int) -> tuple[Card, ...]:
    """Every card of the deck of ``size`` cards (one of :data:`DECK_SIZES`), in int order."""
    try:
        return _DECKS[size]
    except KeyError:
        raise ValueError(f"no {size}-card deck; decks: {DECK_SIZES}") from None


def figure_rank(size: int) -> int:
    """The lowest figure (fante) rank of the ``size``-card deck: 8, or 11 in the 52-card deck."""
    return 11 if size == 52 else 8


def card_of(suit: Suit | int, rank: int, copy: int = 0) -> Card:
    """Return the card of ``suit`` and ``rank`` (1..13), first (0) or second (1) copy."""
    if not 1 <= rank <= 13 or not 0 <= int(suit) <= 3 or copy not in (0, 1):
        raise ValueError(f"no such card: suit={suit!r} rank={rank!r} copy={copy!r}")
    low = rank <= 10
    base = int(suit) * 10 + rank - 1 if low else _HIGH_BASE + int(suit) * 3 + rank - 11
    return base + copy * COPY_STRIDE


def rank_of(card: Card) -> int:
    """Return the rank (1..13) of ``card``, which is also its capture value."""
    return _RANKS[card]


def suit_of(card: Card) -> Suit:
    """Return the suit of ``card``."""
    return _SUITS[card]


def copy_of(card: Card) -> int:
    """Return 0 for a card's first copy, 1 for its second (the 80-card deck)."""
    return _COPIES[card]


def base_card(card: Card) -> Card:
    """Return the first copy of ``card`` (``card`` itself unless it is a second copy)."""
    return _BASES[card]


def card_code(card: Card) -> str:
    """Return the short code of ``card``: rank then suit letter, e.g. ``7D`` (settebello);
    a second copy ends in ``'`` (``7D'``)."""
    code = f"{_RANKS[card]}{SUIT_LETTERS[_SUITS[card]]}"
    return code + "'" if _COPIES[card] else code


def parse_card(code: str) -> Card:
    """Parse a short code such as ``7D``, ``10S``, ``13B`` or ``7D'`` (case-insensitive)."""
    text = code.strip().upper()
    copy = 0
    if text.endswith("'"):
        text, copy = text[:-1], 1
    if len(text) < 2 or text[-1] not in SUIT_LETTERS or not text[:-1].isdigit():
        raise ValueError(f"not a card code: {code!r}")
    return card_of(SUIT_LETTERS.index(text[-1]), int(text[:-1]), copy)
