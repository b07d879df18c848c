"""What the engine reports: the events of a match, and the parts of the state they carry.

Every event is a NamedTuple, public in the order it happened; :mod:`._serial` stores them and
:mod:`._observer` filters them per seat. Plain data: nothing here knows the rules.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from ._cards import Card
from ._farms import Farm
from ._scoring import HandScore
from ._specials import Specials

__all__ = [
    "AceReturned",
    "BonusScored",
    "CardPlayed",
    "CardsDealt",
    "ClaimAnswered",
    "ClaimOutcome",
    "Declared",
    "Event",
    "FinishReason",
    "GameFinished",
    "HandResult",
    "HandScored",
    "HandStarted",
    "LeftoverTaken",
    "PendingClaim",
    "Redealt",
    "SeatResigned",
    "SweepClaimed",
]


class FinishReason(StrEnum):
    """Why a finished game ended."""

    NONE = ""
    TARGET = "target"
    NAPOLEONE = "napoleone"
    RESIGNED = "resigned"
    LOWEST = "lowest"
    """A side reached the (losing) target; the lowest score won (``lowest_wins``)."""
    ELIMINATION = "elimination"
    """Every other seat reached the target and left; the last seat left won (``elimination``)."""
    HAND_LIMIT = "hand_limit"
    """The match reached ``hand_limit`` hands; the side(s) with the best score won."""


class HandStarted(NamedTuple):
    """A hand (smazzata) begins: who deals and the cards face up on the table."""

    hand_number: int
    dealer: int
    table: tuple[Card, ...]


class Redealt(NamedTuple):
    """The starting deal was void and dealt again (``kings`` or ``aces`` on the table)."""

    hand_number: int
    reason: str
    table: tuple[Card, ...]
    """The face-up cards that voided the deal (public: they were turned up)."""


class AceReturned(NamedTuple):
    """An ace turned onto the starting table went back under the stock."""

    card: Card


class BonusScored(NamedTuple):
    """Points a seat's side scored outside a play, under the ruleset's rule ``name`` (its
    score-sheet line): the dealer's bonus for the starting table (Cirulla). ``cards`` are the
    public cards it took into the side's pile (the starting table), if any."""

    seat: int
    side: int
    name: str
    points: int
    cards: tuple[Card, ...]


class CardsDealt(NamedTuple):
    """Cards dealt to one seat. Only that seat may see ``cards``; others see ``n_cards``."""

    seat: int
    n_cards: int
    cards: tuple[Card, ...]


class ClaimOutcome(NamedTuple):
    """How a claimed sweep was answered."""

    doubter: int
    """The seat that doubted it, or -1: every seat asked trusted it."""
    genuine: bool
    """Doubted: whether the card did sweep the table (judged only when doubted)."""
    doubter_specials: Specials
    """What the doubt cost the doubter's side (a wrong doubt), e.g. ``(("wrong_doubt", -1),)``."""


class CardPlayed(NamedTuple):
    """A seat played a card: laid it (``taken`` false) or captured ``captured`` with it."""

    seat: int
    card: Card
    captured: tuple[Card, ...]
    taken: bool
    sweep: bool
    specials: Specials
    """The points each special rule gave this play, e.g. ``(("picula", 1),)``."""
    stolen_from: int = -1
    """The side whose whole pile the card stole (``captured``, Rubamazzo), or -1: a table play."""
    claim: ClaimOutcome | None = None
    """How the play's claimed sweep was answered (Scopa fidasse), or None: an open play. A
    claim every opponent trusted is not shown: other seats see ``HIDDEN_CARD`` as its card."""
    farm: Farm | None = None
    """The farm this play built or raised (``taken`` false: the card lies in it) or took
    (``captured`` holds its cards first); ``None``: no farm (Scopa della fattoria)."""


class SweepClaimed(NamedTuple):
    """A seat played a card face down claiming that it sweeps ``table`` and asked the opponents
    "ti fidi?" (the card is not shown); ``answering`` answer in this order."""

    seat: int
    table: tuple[Card, ...]
    answering: tuple[int, ...]


class ClaimAnswered(NamedTuple):
    """A seat answered the pending claim: trusted it, or doubted it (the card is then shown)."""

    seat: int
    trust: bool


class PendingClaim(NamedTuple):
    """A claimed sweep awaiting answers (the ``answer`` phase)."""

    seat: int
    """The claiming seat."""
    card: Card
    """The card played face down: only the claimer may see it."""
    answering: tuple[int, ...]
    """The seats still to answer, in order; the first is ``MatchState.turn`` (``_awaiting``
    sets both, the one place a claim is made pending)."""
    trusted: tuple[int, ...]
    """The seats that trusted it so far."""


class Declared(NamedTuple):
    """A seat declared a combination of its hand; ``cards`` are now public."""

    seat: int
    name: str
    cards: tuple[Card, ...]
    points: int


class LeftoverTaken(NamedTuple):
    """At the end of a hand the table cards go to the last capturer (or the dealer)."""

    seat: int
    cards: tuple[Card, ...]


class HandResult(NamedTuple):
    """The score sheet of one finished hand and the match totals after it."""

    hand_number: int
    score: HandScore
    totals: tuple[int, ...]


class HandScored(NamedTuple):
    """A hand was scored."""

    result: HandResult


class GameFinished(NamedTuple):
    """The game is over."""

    winners: tuple[int, ...]
    reason: FinishReason
    scores: tuple[int, ...]


class SeatResigned(NamedTuple):
    """A seat resigned; its side loses."""

    seat: int


Event = (
    HandStarted
    | Redealt
    | AceReturned
    | CardsDealt
    | BonusScored
    | CardPlayed
    | Declared
    | SweepClaimed
    | ClaimAnswered
    | LeftoverTaken
    | HandScored
    | GameFinished
    | SeatResigned
)
