"""Farms (Scopa della fattoria, it.wikipedia): the move type :data:`BUILD` and the card play
:data:`FARM_PLAY`.

A seat builds a farm on a loose card or raises one (:class:`~._farms.Build`); while farms lie
on the table, the ordinary card play is this module's (:data:`FARM_PLAY`): a card may take a
farm whole, and an owner must take its farm. The farm rules themselves are ``_farms.py``'s.
"""

from __future__ import annotations

import random
from bisect import insort
from typing import Final

from ._capture import TABLE_KEY_OF
from ._cards import _RANKS, Card, card_code
from ._errors import ActionNotLegal, CaptureChoiceRequired, CaptureNotLegal, CardNotInHand
from ._events import CardPlayed, Event
from ._farms import Build, Farm, _new, build_rules
from ._hand import (
    _add_specials,
    _after_card,
    _check_turn,
    _hands_without,
    _is_sweep,
    _replace_at,
    _score_specials,
)
from ._options import Options
from ._plan import MoveType, _Plan
from ._specials import Specials
from ._state import PLAY, MatchState, Move, _copy

__all__ = ["BUILD", "FARM_PLAY"]


def _farm_takes(
    plan: _Plan, card: Card, table: tuple[Card, ...], farms: tuple[Farm, ...]
) -> list[tuple[Card, ...]]:
    """Every capture of a farm ``card`` may make under the ruleset's farm rules."""
    takes: list[tuple[Card, ...]] = []
    for rule in plan.farm_takes:
        takes.extend(rule.takes(card, table, farms))
    return takes


def _due_farms(plan: _Plan, state: MatchState, seat: int) -> tuple[Farm, ...]:
    """The farms ``seat`` must take on this turn (empty: it is free).

    A duty binds only while the seat holds a card of the farm's value. Play keeps that true: an
    owner may do nothing but take its farm (no steal, no build; claims and farms never mix).
    But a game stored before steals obeyed the duty can hold an owner who spent that card on
    one; it plays freely rather than being left with no legal action.
    """
    farms = state.farms
    if not farms or not plan.farm_duties:
        return ()
    due: tuple[Farm, ...] = ()
    for rule in plan.farm_duties:
        due += rule.due(seat, farms)
    if due:
        held = {_RANKS[c] for c in state.hands[seat]}
        due = tuple([f for f in due if f.value in held])
    return due


def _farm_of(capture: tuple[Card, ...], farms: tuple[Farm, ...]) -> Farm | None:
    """The farm ``capture`` takes (its cards come first), or ``None``."""
    for farm in farms:
        if capture[: len(farm.cards)] == farm.cards:
            return farm
    return None


def _with_farms(state: MatchState, plan: _Plan, seat: int) -> list[Move]:
    """:func:`legal_moves` while farms lie on the table: each card's :func:`_farm_captures`."""
    due = _due_farms(plan, state, seat)
    out: list[Move] = []
    for card in state.hands[seat]:
        out.extend([_new(Move, (card, c)) for c in _farm_captures(plan, state, due, card)])
    return out


def _farm_captures(
    plan: _Plan, state: MatchState, due: tuple[Farm, ...], card: Card
) -> list[tuple[Card, ...]]:
    """The legal captures of ``card`` (``()`` to lay it) while farms lie on the table: those of
    the loose table cards, then its farm captures; a card that can take a farm may not be laid
    (capturing is compulsory), and a seat with farms ``due`` may only take one of them."""
    table = state.table
    takes = _farm_takes(plan, card, table, state.farms)
    if due:
        return [t for t in takes if _farm_of(t, due) is not None]
    sets = plan.captures.card_sets(table, card)
    if not sets:
        return takes if takes else [()]
    return [tuple([table[i] for i in s]) for s in sets] + takes


def _play_with_farms(
    state: MatchState, plan: _Plan, seat: int, move: Move, rng: random.Random | None
) -> tuple[MatchState, list[Event]]:
    """:func:`apply_move` while farms lie on the table: the capture is one of the card's entries
    of :func:`legal_moves` (any order), and a capture of a farm takes it whole."""
    _check_turn(state, plan, seat)
    card, wanted = move
    hand = state.hands[seat]
    if card not in hand:
        raise CardNotInHand(
            f"{card_code(card)} is not in your hand",
            field="card",
            metadata={"card": card_code(card)},
        )
    if state.phase != PLAY:
        raise ActionNotLegal(f"no card play in phase {state.phase!r}", field="action")
    choices = _farm_captures(plan, state, _due_farms(plan, state, seat), card)
    capture = _farm_capture_choice(state, plan, seat, card, choices, wanted)
    farm = _farm_of(capture, state.farms) if capture else None
    farms = tuple([f for f in state.farms if f is not farm])
    loose = capture[len(farm.cards) :] if farm is not None else capture
    hands = _hands_without(state.hands, seat, card)
    last_card = not state.stock and not any(hands)
    side = plan.side_of[seat]
    table = state.table
    piles = state.piles
    sweeps = state.sweeps
    specials = state.specials
    sweep = False
    scored: Specials = ()
    last_capturer = state.last_capturer
    if capture:
        rest = tuple([c for c in table if c not in loose])
        if not rest and not farms:
            sweep = _is_sweep(plan.sweeps, table, card, capture, last_card)
        rules = plan.specials_last if last_card else plan.specials
        if rules:
            scored = _score_specials(rules, card, capture, state.last_laid, sweep)
            if scored:
                specials = _add_specials(specials, side, scored)
        piles = piles[:side] + (piles[side] + capture + (card,),) + piles[side + 1 :]
        if sweep:
            sweeps = _replace_at(sweeps, side, sweeps[side] + 1)
        table = rest
        last_capturer = seat
        last_laid = -1
    else:
        table_list = list(table)
        insort(table_list, card, key=TABLE_KEY_OF)
        table = tuple(table_list)
        last_laid = card
    played = CardPlayed(seat, card, capture, bool(capture), sweep, scored, -1, None, farm)
    before = _copy(state)  # _after_card carries the state's farms: these are the play's
    before.farms = farms
    return _after_card(
        before,
        plan,
        played,
        hands,
        table,
        piles,
        sweeps,
        specials,
        last_capturer,
        last_laid,
        last_card,
        rng,
    )


def _farm_capture_choice(
    state: MatchState,
    plan: _Plan,
    seat: int,
    card: Card,
    choices: list[tuple[Card, ...]],
    wanted: tuple[Card, ...] | None,
) -> tuple[Card, ...]:
    """The entry of ``choices`` (the card's legal captures, ``()`` to lay it) that ``wanted``
    names in any order; ``None`` names the only one."""
    if not choices:
        due = _due_farms(plan, state, seat)
        values = ", ".join(sorted({str(f.value) for f in due}))
        raise ActionNotLegal(
            f"seat {seat} must take its farm (worth {values}) on this turn",
            field="card",
            metadata={"card": card_code(card)},
        )
    if wanted is None:
        if len(choices) > 1:
            raise CaptureChoiceRequired(
                f"card {card_code(card)} has {len(choices)} legal captures; name one",
                field="capture",
                metadata={"card": card_code(card), "choices": str(len(choices))},
            )
        return choices[0]
    named = sorted(wanted)
    for choice in choices:
        if sorted(choice) == named:
            return choice
    if choices == [()]:
        raise CaptureNotLegal("this card captures nothing; it must be laid", field="capture")
    raise CaptureNotLegal(
        "capturing is compulsory and must take one of the legal sets"
        if not wanted
        else "that set of table cards is not a legal capture for this card",
        field="capture",
    )


def _open_builds(
    state: MatchState, plan: _Plan, cards: tuple[Card, ...] | None = None
) -> list[Build]:
    """The builds open to the seat to play (only those with ``cards``, when given): none while
    it has a farm due; otherwise each build rule's, with the cards of its hand that take nothing
    (capturing stays compulsory)."""
    if not plan.builds:
        return []
    seat = state.turn
    farms = state.farms
    if farms and _due_farms(plan, state, seat):
        return []
    hand = state.hands[seat]
    table = state.table
    card_sets = plan.captures.card_sets  # the capture's sets, its card filter applied
    mine = hand if cards is None else tuple([c for c in cards if c in hand])
    free = tuple(
        [
            c
            for c in mine
            if not card_sets(table, c) and not (farms and _farm_takes(plan, c, table, farms))
        ]
    )
    return _builds_with(state, plan, free) if free else []


def _builds_with(state: MatchState, plan: _Plan, free: tuple[Card, ...]) -> list[Build]:
    """Every build rule's builds for the seat to play with ``free``, the cards of its hand that
    take nothing (:func:`_open_builds` found them; the random policy counts them on its way)."""
    seat = state.turn
    builds: list[Build] = []
    for rule in plan.builds:
        builds.extend(rule.builds(seat, state.hands[seat], free, state.table, state.farms))
    return builds


def _build(
    state: MatchState, plan: _Plan, seat: int, action: Build, rng: random.Random | None
) -> tuple[MatchState, list[Event]]:
    """Build a farm on a loose card or raise a farm (Scopa della fattoria, it.wikipedia): the card
    joins the farm, which is now the seat's, worth ``action.value``."""
    _check_turn(state, plan, seat)
    onto = sorted(action.onto)
    for build in _open_builds(state, plan, (action.card,)):
        if build.card == action.card and build.value == action.value and sorted(build.onto) == onto:
            break
    else:
        codes = " ".join([card_code(c) for c in action.onto]) or "nothing"
        raise ActionNotLegal(
            f"seat {seat} cannot build a farm of {action.value} with {card_code(action.card)}"
            f" onto {codes} now (the card must take nothing, the farm be worth the cards' sum,"
            " at most 10, and the seat hold another card of that value)",
            field="action",
        )
    card = build.card
    table = state.table
    farms = state.farms
    raised = _farm_of(build.onto, farms) if len(build.onto) > 1 else None  # a farm: 2+ cards
    if raised is not None:
        farm = Farm(seat, build.value, raised.cards + (card,))
        farms = tuple([farm if f is raised else f for f in farms])
    else:
        farm = Farm(seat, build.value, (build.onto[0], card))
        table = tuple([c for c in table if c != build.onto[0]])
        farms = (*farms, farm)
    hands = _hands_without(state.hands, seat, card)
    played = CardPlayed(seat, card, (), False, False, (), -1, None, farm)
    before = _copy(state)  # _after_card carries the state's farms: these are the build's
    before.farms = farms
    last_card = not any(hands) and not state.stock
    return _after_card(
        before,
        plan,
        played,
        hands,
        table,
        state.piles,
        state.sweeps,
        state.specials,
        state.last_capturer,
        -1,
        last_card,
        rng,
    )


class _FarmPlay:
    """The card play while farms lie on the table (a :class:`~._plan.CardPlay`)."""

    __slots__ = ()

    def enabled(self, options: Options) -> bool:
        return bool(build_rules(options))

    def active(self, state: MatchState) -> bool:
        return bool(state.farms)

    def moves(self, state: MatchState, plan: _Plan, seat: int) -> list[Move]:
        return _with_farms(state, plan, seat)

    def play(
        self, state: MatchState, plan: _Plan, seat: int, move: Move, rng: random.Random | None
    ) -> tuple[MatchState, list[Event]]:
        return _play_with_farms(state, plan, seat, move, rng)


BUILD: Final = MoveType(PLAY, Build, build_rules, _open_builds, _build)
"""Building or raising a farm (:class:`~._farms.Build`)."""
FARM_PLAY: Final = _FarmPlay()
"""Playing a card while farms lie on the table."""
