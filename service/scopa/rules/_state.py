"""The state of a match (:class:`MatchState`), the ordinary card play (:class:`Move`) and the
``play`` phase every turn starts in.

A state is only data: the engine (``_game.py``, ``_hand.py`` and the move types'
``_moves_*.py``) makes each new one and never changes a state it was given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, NamedTuple

from ._cards import Card
from ._events import (
    BonusScored,
    CardPlayed,
    Declared,
    FinishReason,
    HandResult,
    PendingClaim,
)
from ._farms import Farm
from ._options import Options
from ._ruleset import Ruleset
from ._specials import Specials

__all__ = ["PLAY", "MatchState", "Move"]


class Move(NamedTuple):
    """A card to play and the exact table cards it takes.

    ``capture`` is a tuple of table cards (any order), ``()`` to lay the card, or ``None`` to let
    the engine pick the only legal choice (error when there are several).
    """

    card: Card
    capture: tuple[Card, ...] | None = None


PLAY: Final = "play"
"""The phase of an ordinary turn: play a card (or make a declaration the ruleset allows)."""


_PLAYING: Final = FinishReason.NONE
"""``FinishReason.NONE`` bound once: enum member look-ups cost ~0.2 us each on Python 3.11."""


@dataclass(init=False, slots=True)
class MatchState:
    """The whole truth of one match. Hidden parts (hands, stock, decks) never leave the server.

    Built by name (keywords; ``dataclasses.replace`` for a changed copy), so mypy checks every
    field. The positional calls are :func:`_copy`, the copy the engine then sets changed fields
    on by name, and the ordinary play's new state in ``_after_card``; tests pin their field
    order. Treat a state as immutable: the engine never changes a state it was given. The
    explicit ``__init__`` makes construction a direct native call under mypyc (the generated
    dataclass ``__init__`` would be an interpreted function); its parameters are not
    keyword-only because an interpreted call with 20 keywords costs about four times a
    positional one (callgrind: ~12,500 against ~3,300 instructions), which was most of the
    engine's slowdown after the dataclass came in. No parameter has a default, so a call that
    leaves a field out (a positional build written before the field was added) is a TypeError,
    not a state that silently drops the field.
    """

    ruleset: Ruleset
    hand_number: int
    dealer: int
    turn: int
    """Seat to play, or -1 once the game is over."""
    hands: tuple[tuple[Card, ...], ...]
    table: tuple[Card, ...]
    """Face-up cards, sorted by rank then suit."""
    stock: tuple[Card, ...]
    """Undealt cards of this hand, top first."""
    piles: tuple[tuple[Card, ...], ...]
    """Cards captured this hand, per side."""
    sweeps: tuple[int, ...]
    specials: tuple[Specials, ...]
    """Per side, the points of special plays and declarations this hand, by name."""
    phase: str
    """What the seat to play may do; the ruleset's action table is keyed by phase and kind."""
    declared: tuple[int, ...]
    """Seats that made a declaration in the current deal."""
    declarations: tuple[Declared, ...]
    """The declarations of the current deal (public: their cards were shown)."""
    last_capturer: int
    last_laid: Card
    """The card the previous play laid without capturing, or -1 (for the picula)."""
    history: tuple[CardPlayed, ...]
    """The plays of the current hand (public)."""
    scores: tuple[int, ...]
    results: tuple[HandResult, ...]
    winners: tuple[int, ...]
    finish_reason: FinishReason
    decks: tuple[tuple[Card, ...], ...]
    """Stacked decks not used yet, for the next deals (tests and replays)."""
    out: tuple[int, ...]
    """Seats out of the match (sorted): they are dealt nothing and skipped (``elimination``)."""
    returned: tuple[Card, ...]
    """The aces this hand's deal sent under the stock (``aces_on_table`` "return"), in the order
    they went: public (:class:`AceReturned`), so every seat knows the stock ends with them."""
    claim: PendingClaim | None
    """The claimed sweep awaiting answers in the ``answer`` phase, else None."""
    farms: tuple[Farm, ...]
    """The farms on the table beside the loose ``table`` cards, oldest first (``farms``)."""
    bonuses: tuple[BonusScored, ...]
    """This hand's bonuses scored outside the plays (public: the dealer's starting-table bonus,
    ``dealer_bonus``); their cards are in the sides' piles and their points in ``specials``."""

    def __init__(
        self,
        ruleset: Ruleset,
        hand_number: int,
        dealer: int,
        turn: int,
        hands: tuple[tuple[Card, ...], ...],
        table: tuple[Card, ...],
        stock: tuple[Card, ...],
        piles: tuple[tuple[Card, ...], ...],
        sweeps: tuple[int, ...],
        specials: tuple[Specials, ...],
        phase: str,
        declared: tuple[int, ...],
        declarations: tuple[Declared, ...],
        last_capturer: int,
        last_laid: Card,
        history: tuple[CardPlayed, ...],
        scores: tuple[int, ...],
        results: tuple[HandResult, ...],
        winners: tuple[int, ...],
        finish_reason: FinishReason,
        decks: tuple[tuple[Card, ...], ...],
        out: tuple[int, ...],
        returned: tuple[Card, ...],
        claim: PendingClaim | None,
        farms: tuple[Farm, ...],
        bonuses: tuple[BonusScored, ...],
    ) -> None:
        self.ruleset = ruleset
        self.hand_number = hand_number
        self.dealer = dealer
        self.turn = turn
        self.hands = hands
        self.table = table
        self.stock = stock
        self.piles = piles
        self.sweeps = sweeps
        self.specials = specials
        self.phase = phase
        self.declared = declared
        self.declarations = declarations
        self.last_capturer = last_capturer
        self.last_laid = last_laid
        self.history = history
        self.scores = scores
        self.results = results
        self.winners = winners
        self.finish_reason = finish_reason
        self.decks = decks
        self.out = out
        self.returned = returned
        self.claim = claim
        self.farms = farms
        self.bonuses = bonuses

    @property
    def options(self) -> Options:
        """The options of this match's ruleset."""
        return self.ruleset.options

    @property
    def finished(self) -> bool:
        """Whether the game is over."""
        return self.finish_reason is not FinishReason.NONE


def _copy(state: MatchState) -> MatchState:
    """A fresh copy of ``state`` for the engine to set changed fields on before returning it.

    Positional, in ``__init__``'s order (tests/rules/test_state.py pins that every field is
    copied to itself): the interpreted engine's one cheap way to build a state.
    """
    return MatchState(
        state.ruleset,
        state.hand_number,
        state.dealer,
        state.turn,
        state.hands,
        state.table,
        state.stock,
        state.piles,
        state.sweeps,
        state.specials,
        state.phase,
        state.declared,
        state.declarations,
        state.last_capturer,
        state.last_laid,
        state.history,
        state.scores,
        state.results,
        state.winners,
        state.finish_reason,
        state.decks,
        state.out,
        state.returned,
        state.claim,
        state.farms,
        state.bonuses,
    )
