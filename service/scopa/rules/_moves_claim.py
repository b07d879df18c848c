"""Claimed sweeps (Scopa fidasse, it.wikipedia): the move types :data:`CLAIM` and
:data:`ANSWER_CLAIM`.

A seat plays a card face down claiming that it sweeps the table (:class:`Claim`); the match
enters the ``answer`` phase, in which each opponent in turn trusts or doubts it
(:class:`Answer`); the first doubt, or the last trust, settles it (:func:`_settle`). The
engine lists and applies them through the :class:`~._plan.MoveType` it declares.
"""

from __future__ import annotations

import random
from bisect import insort
from typing import Final, NamedTuple

from ._capture import TABLE_KEY_OF
from ._cards import Card, card_code
from ._errors import ActionNotLegal, CardNotInHand
from ._events import CardPlayed, ClaimAnswered, ClaimOutcome, Event, PendingClaim, SweepClaimed
from ._hand import (
    _add_specials,
    _after_card,
    _check_turn,
    _hands_without,
    _is_sweep,
    _next_in,
    _replace_at,
    _seats_from,
)
from ._plan import MoveType, _Plan
from ._specials import claim_rules
from ._state import PLAY, MatchState, _copy

__all__ = ["ANSWER", "ANSWER_CLAIM", "CLAIM", "HIDDEN_CARD", "Answer", "Claim"]


class Claim(NamedTuple):
    """Play ``card`` face down claiming that it sweeps the whole table: "ti fidi?" (Scopa
    fidasse, it.wikipedia). The opponents then answer (:class:`Answer`) before anything moves."""

    card: Card


class Answer(NamedTuple):
    """Answer the claimed sweep that awaits this seat: ``trust`` it (True) or doubt it."""

    trust: bool


ANSWER: Final = "answer"
"""The phase after a claimed sweep: the seat to play (``turn``) is the opponent whose answer
(:class:`Answer`) is awaited; :attr:`MatchState.claim` holds the claim."""


HIDDEN_CARD: Final[Card] = -1
"""What another seat sees instead of a card played face down (a trusted claim's card)."""


def _open_claims(state: MatchState, plan: _Plan) -> list[Claim]:
    """The sweep claims open to the seat to play, while the table holds cards: each card of its
    hand whose clearing of the table the sweep rules would score as a sweep, asked as for a real
    sweep (:func:`_is_sweep`; e.g. no claim with the hand's last card under
    ``NoSweepOnLastCard``)."""
    table = state.table
    if not plan.claims or not table:
        return []
    hand = state.hands[state.turn]
    last_card = not state.stock and len(hand) == 1 and sum([len(h) for h in state.hands]) == 1
    return [
        Claim(card=card) for card in hand if _is_sweep(plan.sweeps, table, card, table, last_card)
    ]


def _open_answers(state: MatchState, plan: _Plan) -> list[Answer]:
    """Trust, then doubt: the answers of the seat a pending claim awaits (the seat to play)."""
    if state.claim is None:
        return []
    return [Answer(trust=True), Answer(trust=False)]


def _claim(
    state: MatchState, plan: _Plan, seat: int, action: Claim, rng: random.Random | None
) -> tuple[MatchState, list[Event]]:
    """Play ``action.card`` face down claiming a sweep: nothing moves but the card out of the
    hand; the ``answer`` phase hands the turn to the first seat that answers."""
    _check_turn(state, plan, seat)
    if action not in _open_claims(state, plan):
        if action.card not in state.hands[seat]:
            raise CardNotInHand(
                f"{card_code(action.card)} is not in your hand",
                field="card",
                metadata={"card": card_code(action.card)},
            )
        raise ActionNotLegal(
            "a sweep can be claimed only while the table holds cards, and only with a card whose"
            " clearing of the table would score a sweep (not the hand's last card, unless"
            " sweep_on_last_card)",
            field="action",
        )
    others = _seats_from(plan.players, _next_in(plan.players, seat, state.out), state.out)
    answering = plan.claims[0].answering(seat, tuple([s for s in others if s != seat]),
                                         plan.side_of)  # fmt: skip
    new = _awaiting(state, PendingClaim(seat, action.card, answering, ()))
    new.hands = _hands_without(state.hands, seat, action.card)
    return new, [SweepClaimed(seat=seat, table=state.table, answering=answering)]


def _awaiting(state: MatchState, claim: PendingClaim) -> MatchState:
    """A copy of ``state`` in the ``answer`` phase of ``claim``: the one place that sets a
    pending claim, so the seat to play is always the first of ``claim.answering``."""
    new = _copy(state)
    new.phase = ANSWER
    new.claim = claim
    new.turn = claim.answering[0]
    return new


def _answer(
    state: MatchState, plan: _Plan, seat: int, action: Answer, rng: random.Random | None
) -> tuple[MatchState, list[Event]]:
    """Answer the pending claim: a trust passes the question on (or, the last one, lets the
    sweep stand unseen); a doubt shows the card and settles the claim at once."""
    _check_turn(state, plan, seat)
    claim = state.claim
    assert claim is not None  # the answer phase always holds its claim
    answered = ClaimAnswered(seat=seat, trust=bool(action.trust))
    if action.trust and len(claim.answering) > 1:
        passed = claim._replace(answering=claim.answering[1:], trusted=(*claim.trusted, seat))
        return _awaiting(state, passed), [answered]
    new, events = _settle(state, plan, claim, -1 if action.trust else seat, rng)
    events.insert(0, answered)
    return new, events


def _settle(
    state: MatchState,
    plan: _Plan,
    claim: PendingClaim,
    doubter: int,
    rng: random.Random | None,
) -> tuple[MatchState, list[Event]]:
    """Settle a claim: trusted (``doubter`` -1) or true, the card takes the table, a sweep when
    the sweep rules say so as for a real sweep (:func:`_is_sweep`); doubted and false, the
    sweep is annulled, the card is laid and the claimer's side pays the rule's points; a wrong
    doubt makes the doubter's side pay."""
    rule = plan.claims[0]
    seat, card = claim.seat, claim.card
    table = state.table
    hands = state.hands
    last_card = not state.stock and not any(hands)
    sweep = _is_sweep(plan.sweeps, table, card, table, last_card)
    genuine = doubter >= 0 and sweep and _takes_whole(plan, table, card)
    side = plan.side_of[seat]
    specials = state.specials
    piles = state.piles
    sweeps = state.sweeps
    if doubter < 0 or genuine:
        paid = rule.wrong_doubt() if genuine else ()
        if paid:
            specials = _add_specials(specials, plan.side_of[doubter], paid)
        outcome = ClaimOutcome(doubter=doubter, genuine=genuine, doubter_specials=paid)
        piles = _replace_pile(piles, side, piles[side] + table + (card,))
        if sweep:
            sweeps = _replace_at(sweeps, side, sweeps[side] + 1)
        played = CardPlayed(seat, card, table, True, sweep, (), -1, outcome)
        rest: tuple[Card, ...] = ()
        last_capturer = seat
        last_laid = -1
    else:
        scored = rule.false_claim()
        if scored:
            specials = _add_specials(specials, side, scored)
        table_list = list(table)
        insort(table_list, card, key=TABLE_KEY_OF)
        outcome = ClaimOutcome(doubter=doubter, genuine=False, doubter_specials=())
        played = CardPlayed(seat, card, (), False, False, scored, -1, outcome)
        rest = tuple(table_list)
        last_capturer = state.last_capturer
        last_laid = card
    before = _copy(state)  # _after_card carries the rest of the state: the claim is settled
    before.phase = PLAY
    before.claim = None
    return _after_card(
        before,
        plan,
        played,
        hands,
        rest,
        piles,
        sweeps,
        specials,
        last_capturer,
        last_laid,
        last_card,
        rng,
    )


def _takes_whole(plan: _Plan, table: tuple[Card, ...], card: Card) -> bool:
    """Whether ``card`` may legally take the whole ``table``."""
    whole = len(table)
    return any([len(s) == whole for s in plan.captures.card_sets(table, card)])


def _replace_pile(
    piles: tuple[tuple[Card, ...], ...], side: int, pile: tuple[Card, ...]
) -> tuple[tuple[Card, ...], ...]:
    return piles[:side] + (pile,) + piles[side + 1 :]


CLAIM: Final = MoveType(PLAY, Claim, claim_rules, _open_claims, _claim)
"""Claiming a sweep (:class:`Claim`)."""
ANSWER_CLAIM: Final = MoveType(ANSWER, Answer, claim_rules, _open_answers, _answer)
"""Answering the pending claim (:class:`Answer`)."""
