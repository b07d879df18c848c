"""The common flow of a hand: dealing, what follows every card played, and the end of a hand.

Every move type (the ordinary play in ``_game.py``, the plug-ins ``_moves_*.py``) ends its turn
through :func:`_after_card`, which passes the turn, deals again when the hands are empty and
scores the hand after its last card. Everything here is pure.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from ._capture import TABLE_KEY_OF
from ._cards import DECK_SIZE, Card, deck_cards
from ._draw import shuffle
from ._errors import InvalidDeck, InvalidSeat, NotYourTurn, RulesError
from ._events import (
    AceReturned,
    BonusScored,
    CardPlayed,
    CardsDealt,
    Event,
    FinishReason,
    GameFinished,
    HandResult,
    HandScored,
    HandStarted,
    LeftoverTaken,
    Redealt,
)
from ._farms import _new
from ._flow import DealRule, LoneTakeRule, SweepRule
from ._plan import _Plan
from ._scoring import HandScore, SideTally, score_hand
from ._specials import SpecialRule, Specials
from ._state import _PLAYING, PLAY, MatchState, _copy

__all__ = ["check_deck"]


_MAX_REDEALS: Final = 100


def check_deck(
    deck: Sequence[Card], field: str = "stacked_decks", size: int = DECK_SIZE
) -> tuple[Card, ...]:
    """``deck`` as a tuple if it holds each card of the ``size``-card deck exactly once, else
    InvalidDeck (the 80-card deck holds each card's two copies once each).

    ``field`` names the deck in the error (e.g. ``"stacked_decks[1]"``).
    """
    cards = tuple(deck)
    if len(cards) != size or sorted(cards) != list(deck_cards(size)):
        raise InvalidDeck(
            f"a stacked deck must hold each of the {size} cards exactly once", field=field
        )
    return cards


def _next_deck(
    decks: tuple[tuple[Card, ...], ...], rng: random.Random | None, size: int
) -> tuple[tuple[Card, ...], tuple[tuple[Card, ...], ...]]:
    if decks:
        return decks[0], decks[1:]
    if rng is None:
        raise InvalidDeck(
            "no stacked deck left and no RNG to shuffle a new one", field="stacked_decks"
        )
    deck = list(deck_cards(size))
    if type(rng) is random.Random:
        shuffle(rng, deck)  # the same draws as rng.shuffle, compiled
    else:
        rng.shuffle(deck)  # a subclass may shuffle its own way (tests stack void deals so)
    return tuple(deck), decks


def _seats_from(players: int, leader: int, out: tuple[int, ...]) -> tuple[int, ...]:
    """The seats in the match in playing order from ``leader`` (itself in the match)."""
    return tuple([s % players for s in range(leader, leader + players) if s % players not in out])


def _next_in(players: int, seat: int, out: tuple[int, ...]) -> int:
    """The first seat after ``seat`` that is still in the match."""
    nxt = (seat + 1) % players
    while nxt in out:
        nxt = (nxt + 1) % players
    return nxt


def _deal_seats(
    stock: tuple[Card, ...], players: int, order: tuple[int, ...], per_seat: int
) -> tuple[tuple[tuple[Card, ...], ...], tuple[Card, ...]]:
    """Deal ``per_seat`` cards one at a time round-robin to the seats of ``order`` only."""
    n = len(order)
    taken = n * per_seat
    dealt = stock[:taken]
    hands: list[tuple[Card, ...]] = [()] * players
    for offset, seat in enumerate(order):
        hands[seat] = tuple(dealt[offset::n])
    return tuple(hands), stock[taken:]


def _void_reason(rules: tuple[DealRule, ...], table: list[Card]) -> str:
    """The first reason one of the deal ``rules`` gives to void a starting ``table``, or ``""``."""
    for rule in rules:
        reason = rule.void(table)
        if reason:
            return reason
    return ""


def _fix_table(
    rules: tuple[DealRule, ...], table: list[Card], stock: tuple[Card, ...]
) -> tuple[tuple[Card, ...], list[Event], str]:
    """Let each deal rule fix up the starting ``table`` (in place): the new stock, an
    :class:`AceReturned` per card sent under it, and a void reason when it cannot be fixed."""
    returned: list[Event] = []

    def void(cards: list[Card]) -> str:
        return _void_reason(rules, cards)

    for rule in rules:
        stock, back, reason = rule.fix(table, stock, void)
        returned.extend([AceReturned(card) for card in back])
        if reason:
            return stock, returned, reason
    return stock, returned, ""


def _start_hand(
    plan: _Plan,
    hand_number: int,
    dealer: int,
    decks: tuple[tuple[Card, ...], ...],
    rng: random.Random | None,
    out: tuple[int, ...] = (),
) -> tuple[
    tuple[tuple[Card, ...], ...],
    tuple[Card, ...],
    tuple[Card, ...],
    tuple[tuple[Card, ...], ...],
    list[Event],
]:
    """Deal a new hand to the seats not ``out``, as the ruleset's match flow shapes it.

    Returns hands, table, stock, remaining decks and the events.
    """
    events: list[Event] = []
    options = plan.options
    players = options.players
    leader = _next_in(players, dealer, out)
    order = _seats_from(players, leader, out)
    per_seat, table_cards = plan.flow.deal_shape(options, len(order))
    stacked = bool(decks)
    rules = plan.deals
    for _ in range(_MAX_REDEALS):
        deck, decks = _next_deck(decks, rng, options.deck_size)
        hands, stock = _deal_seats(deck, players, order, per_seat)
        table = list(stock[:table_cards])
        stock = stock[table_cards:]
        stock, returned, reason = _fix_table(rules, table, stock)
        reason = reason or _void_reason(rules, table)
        if reason:
            events.append(Redealt(hand_number, reason, tuple(sorted(table, key=TABLE_KEY_OF))))
            continue
        events.extend(returned)
        table.sort(key=TABLE_KEY_OF)
        events.append(HandStarted(hand_number, dealer, tuple(table)))
        events.extend(_dealt_events(hands, order))
        for bonus in plan.table_bonuses:
            points = bonus.points(tuple(table))
            if points:  # the dealer's side takes the starting table (Cirulla)
                side = options.side_of(dealer)
                events.append(BonusScored(dealer, side, bonus.name, points, tuple(table)))
                table = []
        return hands, tuple(table), stock, decks, events
    message = f"hand {hand_number} was dealt void {_MAX_REDEALS} times in a row"
    if stacked:
        raise InvalidDeck(f"{message} (stacked decks)", field="stacked_decks")
    raise RulesError(f"{message}; these options leave almost no playable deal")


def _bonuses(events: list[Event]) -> tuple[BonusScored, ...]:
    """The bonuses a deal's events scored."""
    return tuple([e for e in events if type(e) is BonusScored])


def _bonus_tallies(
    bonuses: tuple[BonusScored, ...], sides: int
) -> tuple[tuple[tuple[Card, ...], ...], tuple[Specials, ...]]:
    """The piles and special points a new hand starts with: its ``bonuses``' cards and points."""
    piles: list[tuple[Card, ...]] = [()] * sides
    specials: tuple[Specials, ...] = ((),) * sides
    for bonus in bonuses:
        piles[bonus.side] = piles[bonus.side] + bonus.cards
        specials = _add_specials(specials, bonus.side, ((bonus.name, bonus.points),))
    return tuple(piles), specials


def _returned(events: list[Event]) -> tuple[Card, ...]:
    """The aces a deal's events say went under the stock, in order."""
    return tuple([e.card for e in events if type(e) is AceReturned])


def _dealt_events(hands: tuple[tuple[Card, ...], ...], order: tuple[int, ...]) -> list[Event]:
    """One :class:`CardsDealt` per seat of ``order`` (the seats dealt to, in dealing order)."""
    events: list[Event] = []
    for seat in order:
        events.append(_new(CardsDealt, (seat, len(hands[seat]), hands[seat])))
    return events


def _hands_without(
    hands: tuple[tuple[Card, ...], ...], seat: int, card: Card
) -> tuple[tuple[Card, ...], ...]:
    """``hands`` with ``card`` taken out of ``seat``'s hand, which holds it."""
    hand = hands[seat]
    at = hand.index(card)
    return hands[:seat] + (hand[:at] + hand[at + 1 :],) + hands[seat + 1 :]


def _replace_at(items: tuple[int, ...], index: int, value: int) -> tuple[int, ...]:
    return items[:index] + (value,) + items[index + 1 :]


def _score_specials(
    rules: tuple[SpecialRule, ...],
    card: Card,
    capture: tuple[Card, ...],
    last_laid: Card,
    sweep: bool,
) -> Specials:
    """What each rule gives playing ``card`` to take ``capture`` (rules scoring 0 left out)."""
    scored: list[tuple[str, int]] = []
    for rule in rules:
        points = rule.points(card, capture, last_laid, sweep)
        if points:
            scored.append((rule.name, points))
    return tuple(scored)


def _add_specials(
    per_side: tuple[Specials, ...], side: int, scored: Specials
) -> tuple[Specials, ...]:
    """``per_side`` with ``scored`` added to ``side``'s points (names kept in first-seen order)."""
    points = dict(per_side[side])
    for name, value in scored:
        points[name] = points.get(name, 0) + value
    return per_side[:side] + (tuple(points.items()),) + per_side[side + 1 :]


def _check_turn(state: MatchState, plan: _Plan, seat: int) -> None:
    """Refuse a seat that does not exist or whose turn it is not (the order every action checks)."""
    if not 0 <= seat < plan.players:
        raise InvalidSeat(f"no seat {seat}", field="seat")
    if seat != state.turn:
        raise NotYourTurn(f"it is seat {state.turn}'s turn")


def _after_card(
    state: MatchState,
    plan: _Plan,
    played: CardPlayed,
    hands: tuple[tuple[Card, ...], ...],
    table: tuple[Card, ...],
    piles: tuple[tuple[Card, ...], ...],
    sweeps: tuple[int, ...],
    specials: tuple[Specials, ...],
    last_capturer: int,
    last_laid: Card,
    last_card: bool,
    rng: random.Random | None,
) -> tuple[MatchState, list[Event]]:
    """The state after a play on ``state``, given what the play changed: the hands without the
    card, its table, piles, tallies, last capturer and last laid card. Adds the next turn, a new
    deal when the hands are empty, the end of the hand after its last card."""
    events: list[Event] = [played]
    history = state.history + (played,)
    out = state.out
    if not last_card and any(hands):  # the common case: the next seat plays, built in one call
        seat = played.seat
        turn = plan.next_seat[seat] if not out else _next_in(plan.players, seat, out)
        # Positional, in __init__'s order (tests/rules/test_game.py pins every field's place).
        new = MatchState(
            state.ruleset,
            state.hand_number,
            state.dealer,
            turn,
            hands,
            table,
            state.stock,
            piles,
            sweeps,
            specials,
            state.phase,
            state.declared,
            state.declarations,
            last_capturer,
            last_laid,
            history,
            state.scores,
            state.results,
            state.winners,
            state.finish_reason,
            state.decks,
            out,
            state.returned,
            state.claim,
            state.farms,
            state.bonuses,
        )
        return new, events
    new = _copy(state)
    new.hands = hands
    new.table = table
    new.piles = piles
    new.sweeps = sweeps
    new.specials = specials
    new.last_capturer = last_capturer
    new.last_laid = last_laid
    new.history = history
    if last_card:
        return _end_hand(new, plan, events, rng), events
    dealer = new.dealer  # deal again from the stock
    if out:
        order = _seats_from(plan.players, _next_in(plan.players, dealer, out), out)
    else:
        order = plan.order[plan.next_seat[dealer]]
    per_seat = plan.flow.deal_shape(plan.options, len(order))[0]
    new.hands, new.stock = _deal_seats(new.stock, plan.players, order, per_seat)
    new.turn = order[0]
    new.declared = ()
    new.declarations = ()
    if not plan.laid_survives_deal:
        new.last_laid = -1
    events.extend(_dealt_events(new.hands, order))
    return new, events


def _takes_alone(rules: tuple[LoneTakeRule, ...], card: Card) -> bool:
    """Whether ``card``, played on an empty table, takes itself under one of ``rules``."""
    return any(rule.takes_alone(card) for rule in rules)


def _is_sweep(
    rules: tuple[SweepRule, ...],
    table: tuple[Card, ...],
    card: Card,
    capture: tuple[Card, ...],
    last_card: bool,
) -> bool:
    """Whether a play that left the table empty is a sweep: the first sweep rule with a say,
    else whether it captured."""
    for rule in rules:
        verdict = rule.sweep(table, card, capture, last_card)
        if verdict is not None:
            return verdict
    return bool(capture)


def _end_hand(
    state: MatchState, plan: _Plan, events: list[Event], rng: random.Random | None
) -> MatchState:
    """The state after the hand's last card: the leftovers taken, the hand scored, then the
    match over or the next hand dealt (``events`` gets what happened)."""
    options = plan.options
    sides = options.sides
    piles = state.piles
    table = state.table
    for farm in state.farms:  # a farm left at the hand's end goes with the loose cards
        table = table + farm.cards
    if table:
        taker = state.last_capturer if state.last_capturer >= 0 else state.dealer
        events.append(LeftoverTaken(taker, table))
        side = options.side_of(taker)
        piles = piles[:side] + (piles[side] + table,) + piles[side + 1 :]
    tallies = [SideTally(piles[s], state.sweeps[s], state.specials[s]) for s in range(sides)]
    score = score_hand(options, tallies)
    scores = tuple([a + b for a, b in zip(state.scores, score.totals, strict=True)])
    result = HandResult(state.hand_number, score, scores)
    events.append(HandScored(result))
    results = (*state.results, result)
    empty: tuple[tuple[Card, ...], ...] = ((),) * sides
    winners, reason, out = _match_outcome(plan, score, scores, state.out, len(results))
    if winners:
        events.append(GameFinished(winners, reason, scores))
        return MatchState(
            ruleset=state.ruleset,
            hand_number=state.hand_number,
            dealer=state.dealer,
            turn=-1,
            hands=state.hands,
            table=(),
            stock=state.stock,
            piles=empty,
            sweeps=state.sweeps,
            specials=state.specials,
            phase=state.phase,
            declared=state.declared,
            declarations=state.declarations,
            last_capturer=state.last_capturer,
            last_laid=state.last_laid,
            history=(),
            scores=scores,
            results=results,
            winners=winners,
            finish_reason=reason,
            decks=state.decks,
            out=out,
            returned=(),
            claim=None,
            farms=(),
            bonuses=state.bonuses,
        )
    players = options.players
    dealer = _next_in(players, state.dealer, out)
    hand_number = state.hand_number + 1
    hands, table, stock, decks, dealt = _start_hand(
        plan, hand_number, dealer, state.decks, rng, out
    )
    events.extend(dealt)
    new = _copy(state)
    new.hand_number = hand_number
    new.dealer = dealer
    new.turn = _next_in(players, dealer, out)
    new.hands = hands
    new.table = table
    new.stock = stock
    new.bonuses = _bonuses(dealt)
    new.piles, new.specials = _bonus_tallies(new.bonuses, sides)
    new.sweeps = (0,) * sides
    new.phase = PLAY
    new.declared = ()
    new.declarations = ()
    new.last_capturer = -1
    new.last_laid = -1
    new.history = ()
    new.scores = scores
    new.results = results
    new.decks = decks
    new.out = out
    new.returned = _returned(dealt)
    new.farms = ()
    return new


def _match_outcome(
    plan: _Plan,
    score: HandScore,
    scores: tuple[int, ...],
    out: tuple[int, ...],
    hands: int,
) -> tuple[tuple[int, ...], FinishReason, tuple[int, ...]]:
    """The winners (empty: play on), why, and the seats out, after a hand scored ``score``, the
    match's ``hands``-th."""
    options = plan.options
    for rule in plan.instant_wins:
        winners = rule.winners(score)
        if winners:
            return winners, FinishReason(rule.reason), out
    outcome = plan.flow.after_hand(options, scores, out)
    if outcome.winners:
        return outcome.winners, FinishReason(outcome.reason), outcome.out
    if options.hand_limit and hands >= options.hand_limit:
        return plan.flow.leaders(scores, outcome.out), FinishReason.HAND_LIMIT, outcome.out
    return (), _PLAYING, outcome.out
