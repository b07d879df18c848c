"""Shared builders for the rules-engine tests: card lists, stacked decks, table situations."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from scopa.rules import (
    ALL_CARDS,
    Card,
    Event,
    MatchState,
    Move,
    Ruleset,
    SeatView,
    apply_move,
    legal_moves,
    make_ruleset,
    new_match,
    observe,
    parse_card,
)
from scopa.rules._capture import table_key

T = TypeVar("T")


def cards(codes: str) -> tuple[Card, ...]:
    """Parse space-separated card codes such as ``"7C 7D 6S"``."""
    return tuple(parse_card(code) for code in codes.split())


def stacked(prefix: str | Sequence[Card] = ()) -> tuple[Card, ...]:
    """A 40-card deck (index 0 = top) starting with ``prefix``, then every other card in order."""
    head = cards(prefix) if isinstance(prefix, str) else tuple(prefix)
    assert len(set(head)) == len(head), "a stacked prefix repeats a card"
    return head + tuple(c for c in ALL_CARDS if c not in head)


def ruleset(preset: str = "scopa", **overrides: Any) -> Ruleset:
    """``make_ruleset`` with keyword overrides."""
    return make_ruleset(preset, overrides)


def situation(
    rules: Ruleset,
    *,
    hands: Sequence[str],
    table: str = "",
    stock: str = "",
    turn: int = 0,
    **fields: Any,
) -> MatchState:
    """A match in the exact situation given (hands per seat, table, stock); other fields kept."""
    state, _ = new_match(rules, rng=random.Random(0))
    return replace(
        state,
        hands=tuple(cards(h) for h in hands),
        table=tuple(sorted(cards(table), key=table_key)),
        stock=cards(stock),
        turn=turn,
        **fields,
    )


def play(
    state: MatchState, seat: int, card: str, capture: str | None = None
) -> tuple[MatchState, list[Event]]:
    """Apply a move given as codes; ``capture`` "" lays the card, ``None`` lets the engine pick."""
    move = Move(parse_card(card), None if capture is None else cards(capture))
    return apply_move(state, seat, move, random.Random(1))


def random_move(state: MatchState, rng: random.Random) -> Move:
    """A random legal move: first a card, then one of its captures (independent of list order)."""
    moves = legal_moves(state)
    card = rng.choice(sorted({m.card for m in moves}))
    options = sorted((m for m in moves if m.card == card), key=lambda m: m.capture or ())
    return rng.choice(options)


def play_out(
    state: MatchState, rng: random.Random, *, stop_after_hand: bool = False
) -> tuple[MatchState, list[Event]]:
    """Play random legal moves until the game ends (or the current hand ends)."""
    events: list[Event] = []
    hand = state.hand_number
    while not state.finished and not (stop_after_hand and state.hand_number != hand):
        state, new = apply_move(state, state.turn, random_move(state, rng), rng)
        events.extend(new)
    return state, events


def of_type(events: Iterable[Any], kind: type[T]) -> list[T]:
    """The events of one type, in order."""
    return [e for e in events if isinstance(e, kind)]


def view_cards(view: SeatView) -> set[Card]:
    """Every card named by any Card-typed field of a view."""
    seen = set(view.hand) | set(view.table)
    seen |= {c for p in view.history for c in (p.card, *p.captured)}
    seen |= {c for bonus in view.bonuses for c in bonus.cards}
    if view.claim is not None:
        seen.add(view.claim.card)
    return seen | {c for m in view.legal_moves for c in (m.card, *(m.capture or ()))}


def check_views(state: MatchState) -> None:
    """No seat's view (nor a spectator's) names another seat's hand card or a stock card."""
    players = state.ruleset.options.players
    for seat in (*range(players), None):
        hidden = set(state.stock) | {c for s, h in enumerate(state.hands) if s != seat for c in h}
        if state.claim is not None and state.claim.seat != seat:
            hidden.add(state.claim.card)  # a claimed sweep's card, face down
        hidden |= {
            p.card
            for p in state.history
            if p.claim is not None and p.claim.doubter < 0 and p.seat != seat
        }  # trusted claims stay face down in the claimer's pile
        view = observe(state, seat)
        assert not view_cards(view) & hidden, f"seat {seat} sees hidden cards"
        if view.claim is not None:
            assert view.claim.card not in hidden
