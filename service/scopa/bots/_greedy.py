"""The one-ply heuristic bot: the play that takes the most value and gives the least away.

Each legal action is applied by the engine itself to one determinisation of the seat's view (so
sweeps, specials and declarations score exactly as the variant's rules say; the hidden cards drawn
for it change nothing in the play's own outcome) and scored on what it takes (each card at what the
ruleset's scoring rules make it worth, :func:`scopa.bots.card_points`; sweeps; the variant's
special points) minus what it leaves: the chance that the next seat, if it is an opponent, holds a
card that sweeps the new table, estimated from the cards the seat has not seen.

Claimed sweeps (Scopa fidasse): a claim is scored as if the first opponent asked doubted it (a
true claim then also costs the doubter; a false one is laid and costs the claimer), so greedy
claims only sweeps it holds. An answer weighs the chance that the hidden card sweeps, taken over
the cards the seat has not seen (never the true card): doubting gains the sweep denied and the
claimer's penalty when the claim is false and loses the doubter's penalty when it is true.
"""

from __future__ import annotations

import random
from math import comb
from typing import Final

from scopa.rules import (
    Action,
    Answer,
    Card,
    CardPlayed,
    Claim,
    Declare,
    Declared,
    Event,
    HandScored,
    Options,
    SeatView,
    apply_action,
    capture_options,
    figure_rank,
    rank_of,
    state_from_view,
    unseen_cards,
)

from ._rollout import card_points

__all__ = ["card_value", "greedy_action", "score_actions"]

_CARD_WEIGHT: Final = 8.0
"""Heuristic units per point a card is worth (``card_points``: a share of lines yet to be won)."""
_SWEEP_WEIGHT: Final = 15.0
_SPECIAL_WEIGHT: Final = 12.0


def card_value(options: Options, card: Card) -> float:
    """What taking ``card`` is worth on ``options``' score sheet, from its scoring rules.

    :func:`scopa.bots.card_points` (cards, denari, spade, primiera, settebello, and every line a
    variant adds: re bello, rosmarino, napola, denari each, ...) in heuristic units.
    """
    return _CARD_WEIGHT * card_points(options)[card]


def _holds_rank(unseen: tuple[Card, ...], rank: int, hand_size: int) -> float:
    """The chance that a hand of ``hand_size`` unseen cards holds one of ``rank``."""
    total = len(unseen)
    of_rank = sum(1 for c in unseen if rank_of(c) == rank)
    if not of_rank or not hand_size or total < hand_size:
        return 0.0
    return 1.0 - comb(total - of_rank, hand_size) / comb(total, hand_size)


def _sweep_risk(view: SeatView, table: tuple[Card, ...], hand_size: int) -> float:
    """The chance that a seat with ``hand_size`` unseen cards can take the whole ``table``."""
    if not table:
        return 0.0
    unseen = unseen_cards(view)
    risk = 0.0
    for rank in range(1, figure_rank(view.options.deck_size) + 3):  # ace to re
        sample = next((c for c in unseen if rank_of(c) == rank), None)
        if sample is None:
            continue
        if any(len(c) == len(table) for c in capture_options(view.options, table, sample)):
            risk = max(risk, _holds_rank(unseen, rank, hand_size))
    return risk


def _play_score(view: SeatView, played: CardPlayed) -> float:
    options = view.options
    if not played.taken and played.farm is not None:  # a farm built or raised: half its worth
        return 0.5 * sum(card_value(options, c) for c in played.farm.cards)
    if not played.taken:  # laid (a doubted false claim's card too, with what it cost)
        specials = sum(points for _name, points in played.specials)
        return -0.5 * card_value(options, played.card) + _SPECIAL_WEIGHT * specials
    score = sum(card_value(options, c) for c in played.captured) + card_value(options, played.card)
    if played.sweep:
        score += _SWEEP_WEIGHT * view.options.sweep_points
    return score + _SPECIAL_WEIGHT * sum(points for _name, points in played.specials)


def _genuine_chance(view: SeatView) -> float:
    """The chance that the pending claim's hidden card sweeps the table, over the unseen cards
    (uniform: the seat does not know which card it is)."""
    unseen = unseen_cards(view)
    if not unseen:
        return 0.0
    table = view.table
    whole = len(table)
    sweeping = sum(
        1 for c in unseen if any(len(t) == whole for t in capture_options(view.options, table, c))
    )
    return sweeping / len(unseen)


def _answer_score(view: SeatView, action: Answer) -> float:
    """Trusting scores 0; doubting its expected gain over trusting, in special-point units."""
    if action.trust:
        return 0.0
    options = view.options
    p = _genuine_chance(view)
    gain = (1.0 - p) * (options.sweep_points + options.false_claim_points)
    return _SPECIAL_WEIGHT * (gain - p * options.wrong_doubt_points)


def _score(view: SeatView, action: Action, rng: random.Random) -> float:
    assert view.seat is not None
    if isinstance(action, Answer):
        return _answer_score(view, action)
    state = state_from_view(view, rng)
    after, events = apply_action(state, view.seat, action, random.Random(0))
    if isinstance(action, Claim):  # the pessimistic answer: the first opponent asked doubts
        after, doubted = apply_action(after, after.turn, Answer(trust=False), random.Random(0))
        events = events + doubted
    score = 0.0
    for event in events:
        score += _event_score(view, event)
    if any(isinstance(e, HandScored) for e in events) or isinstance(action, Declare):
        return score
    next_seat = after.turn
    if after.farms:  # a sweep must take the farms too: rare enough to leave out
        return score
    if view.side_of_seat[next_seat] != view.side_of_seat[view.seat]:
        risk = _sweep_risk(view, after.table, len(after.hands[next_seat]))
        taken_back = sum(card_value(view.options, c) for c in after.table)
        score -= risk * (_SWEEP_WEIGHT * view.options.sweep_points + taken_back)
    return score


def _event_score(view: SeatView, event: Event) -> float:
    if isinstance(event, CardPlayed):
        score = _play_score(view, event)
        if event.claim is not None:  # a wrong doubt costs the doubter (an opponent)
            score -= _SPECIAL_WEIGHT * sum(p for _name, p in event.claim.doubter_specials)
        return score
    if isinstance(event, Declared):
        return _SPECIAL_WEIGHT * event.points
    return 0.0


def score_actions(view: SeatView, rng: random.Random) -> list[tuple[float, Action]]:
    """Every legal action of the view with its one-ply score (higher is better)."""
    return [(_score(view, action, rng), action) for action in view.legal_actions]


def greedy_action(view: SeatView, rng: random.Random) -> Action:
    """The legal action of the best one-ply score (the first of equals, in the view's order)."""
    scored = score_actions(view, rng)
    if not scored:
        raise ValueError("no legal action: it is not this seat's turn")
    best = scored[0]
    for entry in scored[1:]:
        if entry[0] > best[0]:
            best = entry
    return best[1]
