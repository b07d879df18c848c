"""What a seat knows of a match, from its :class:`~scopa.rules.SeatView` only.

Each hand is dealt from a fresh 40-card deck, so the cards a seat has not seen this hand are the
deck minus its own hand, the table, and every card played or captured so far this hand (the
view's public ``history``). :func:`determinise` deals those unseen cards at random to the other
hands and the stock: one complete :class:`~scopa.rules.MatchState` the seat cannot tell from the
truth. Nothing here reads a true state.
"""

from __future__ import annotations

import random

from scopa.rules import (
    ALL_CARDS,
    PLAY,
    Card,
    Declare,
    MatchState,
    Ruleset,
    SeatView,
)

__all__ = ["determinise", "seen_cards", "unseen_cards"]


def seen_cards(view: SeatView) -> frozenset[Card]:
    """The cards of this hand the seat has seen: its hand, the table, every card played or taken."""
    seen: set[Card] = set(view.hand)
    seen.update(view.table)
    for play in view.history:
        seen.add(play.card)
        seen.update(play.captured)
    return frozenset(seen)


def unseen_cards(view: SeatView) -> tuple[Card, ...]:
    """The cards that may be in another hand or the stock, in card order."""
    seen = seen_cards(view)
    return tuple([c for c in ALL_CARDS if c not in seen])


def _piles(view: SeatView) -> tuple[tuple[Card, ...], ...]:
    """Each side's captures this hand, rebuilt from the public history."""
    piles: list[tuple[Card, ...]] = [()] * view.options.sides
    for play in view.history:
        if play.taken:
            side = view.side_of_seat[play.seat]
            piles[side] = piles[side] + play.captured + (play.card,)
    return tuple(piles)


def _specials(view: SeatView) -> tuple[tuple[tuple[str, int], ...], ...]:
    """Each side's special-play points this hand, rebuilt from the public history."""
    per_side: list[dict[str, int]] = [{} for _ in range(view.options.sides)]
    for play in view.history:
        points = per_side[view.side_of_seat[play.seat]]
        for name, value in play.specials:
            points[name] = points.get(name, 0) + value
    return tuple(tuple(p.items()) for p in per_side)


def _last_capturer(view: SeatView) -> int:
    for play in reversed(view.history):
        if play.taken:
            return play.seat
    return -1


def determinise(view: SeatView, rng: random.Random) -> MatchState:
    """A full state consistent with ``view``: the unseen cards dealt at random to the others.

    Raises ``ValueError`` for a spectator's view, a finished game, or a view whose counts do not
    add up (it was not built by :func:`~scopa.rules.observe` on a live game).
    """
    seat = view.seat
    if seat is None or view.turn < 0:
        raise ValueError("only a seat of a live game can be determinised")
    unseen = list(unseen_cards(view))
    others = [s for s in range(len(view.hand_sizes)) if s != seat]
    wanted = sum(view.hand_sizes[s] for s in others) + view.stock_size
    if wanted != len(unseen):
        raise ValueError(f"view holds {len(unseen)} unseen cards, its counts need {wanted}")
    rng.shuffle(unseen)
    hands: list[tuple[Card, ...]] = [()] * len(view.hand_sizes)
    hands[seat] = view.hand
    at = 0
    for other in others:
        size = view.hand_sizes[other]
        hands[other] = tuple(unseen[at : at + size])
        at += size
    history = view.history
    return MatchState(
        ruleset=Ruleset(view.preset, view.options),
        hand_number=view.hand_number,
        dealer=view.dealer,
        turn=view.turn,
        hands=tuple(hands),
        table=view.table,
        stock=tuple(unseen[at:]),
        piles=_piles(view),
        sweeps=view.sweeps,
        specials=_specials(view),
        phase=PLAY,
        declared=_declared(view),
        last_capturer=_last_capturer(view),
        last_laid=history[-1].card if history and not history[-1].taken else -1,
        history=history,
        scores=view.scores,
        results=view.results,
        winners=view.winners,
        finish_reason=view.finish_reason,
        decks=(),
    )


def _declared(view: SeatView) -> tuple[int, ...]:
    """The seat itself, when it is its turn and it may no longer declare (others: unknown)."""
    seat = view.seat
    if seat is None or view.turn != seat:
        return ()
    if any(isinstance(a, Declare) for a in view.legal_actions):
        return ()
    return (seat,)
