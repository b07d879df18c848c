"""What one seat, or a spectator, may see of a match.

The observer builds a view from the full truth. A view holds the seat's own hand and, for
everyone else, only counts: other hands, the stock and stacked decks are never copied into it,
and events are filtered the same way until the game is over.
"""

from __future__ import annotations

from typing import NamedTuple, assert_never

from ._cards import Card
from ._game import (
    AceReturned,
    Action,
    CardPlayed,
    CardsDealt,
    Declared,
    Event,
    FinishReason,
    GameFinished,
    HandResult,
    HandScored,
    HandStarted,
    LeftoverTaken,
    MatchState,
    Move,
    Redealt,
    SeatResigned,
    legal_actions,
)
from ._options import Options

__all__ = ["SeatView", "observe", "visible_event", "visible_events"]


class SeatView(NamedTuple):
    """One seat's (or a spectator's, ``seat is None``) view of a match."""

    seat: int | None
    preset: str
    options: Options
    hand_number: int
    dealer: int
    turn: int
    """Seat to play, -1 when the game is over."""
    hand: tuple[Card, ...]
    """The viewer's own cards; empty for spectators."""
    hand_sizes: tuple[int, ...]
    table: tuple[Card, ...]
    stock_size: int
    side_of_seat: tuple[int, ...]
    captured_counts: tuple[int, ...]
    sweeps: tuple[int, ...]
    scores: tuple[int, ...]
    history: tuple[CardPlayed, ...]
    results: tuple[HandResult, ...]
    legal_moves: tuple[Move, ...]
    """Every legal move, only when it is the viewer's turn."""
    legal_actions: tuple[Action, ...]
    """Every legal action of every kind (moves, then declarations), only on the viewer's turn."""
    winners: tuple[int, ...]
    finish_reason: FinishReason


def observe(state: MatchState, seat: int | None) -> SeatView:
    """Build what ``seat`` may see (``None``: a spectator)."""
    options = state.ruleset.options
    own: tuple[Card, ...] = ()
    moves: tuple[Move, ...] = ()
    actions: tuple[Action, ...] = ()
    if seat is not None:
        own = state.hands[seat]
        if seat == state.turn:
            actions = tuple(legal_actions(state, seat))
            moves = tuple([a for a in actions if isinstance(a, Move)])
    return SeatView(
        seat=seat,
        preset=state.ruleset.preset,
        options=options,
        hand_number=state.hand_number,
        dealer=state.dealer,
        turn=state.turn,
        hand=own,
        hand_sizes=tuple(len(h) for h in state.hands),
        table=state.table,
        stock_size=len(state.stock),
        side_of_seat=tuple(options.side_of(s) for s in range(options.players)),
        captured_counts=tuple(len(p) for p in state.piles),
        sweeps=state.sweeps,
        scores=state.scores,
        history=state.history,
        results=state.results,
        legal_moves=moves,
        legal_actions=actions,
        winners=state.winners,
        finish_reason=state.finish_reason,
    )


def visible_event(event: Event, seat: int | None) -> Event:
    """``event`` as ``seat`` may see it: other seats' dealt cards become a count only.

    A ``match`` over the whole event union (mypy checks it is total), so a new event kind must
    say here what of it is hidden.
    """
    match event:
        case CardsDealt():
            if event.seat == seat:
                return event
            return CardsDealt(seat=event.seat, n_cards=event.n_cards, cards=())
        case (
            HandStarted()
            | Redealt()
            | AceReturned()
            | CardPlayed()
            | Declared()
            | LeftoverTaken()
            | HandScored()
            | GameFinished()
            | SeatResigned()
        ):
            return event  # public
        case _:
            assert_never(event)


def visible_events(events: list[Event] | tuple[Event, ...], seat: int | None) -> list[Event]:
    """The events as ``seat`` may see them (:func:`visible_event` of each)."""
    return [visible_event(e, seat) for e in events]
