"""The match: state, dealing, legal moves, applying a move, and match flow.

Everything here is pure. A match is created from a ruleset and either an RNG or stacked decks
(RULINGS.md: index 0 is the top; hands are dealt one card at a time round-robin from the
leading seat, then the table cards). :func:`apply_move` returns a new state and the events it
caused and never changes its input; an illegal move raises a :class:`RulesError` subclass.
"""

from __future__ import annotations

import random
from bisect import insort
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final, NamedTuple

from ._capture import TABLE_KEY_OF, CaptureTable, capture_table, pick
from ._cards import _RANKS, DECK_SIZE, Card, card_code, deck_cards
from ._draw import shuffle
from ._errors import (
    ActionNotLegal,
    CaptureChoiceRequired,
    CaptureNotLegal,
    CardNotInHand,
    GameOver,
    InvalidDeck,
    InvalidSeat,
    NotYourTurn,
    RulesError,
)
from ._farms import (
    Build,
    BuildRule,
    Farm,
    FarmDutyRule,
    FarmTakeRule,
    _new,
    build_rules,
    farm_duty_rules,
    farm_take_rules,
)
from ._flow import DealRule, LoneTakeRule, SweepRule, deal_rules, lone_take_rules, sweep_rules
from ._matchflow import (
    InstantWinRule,
    MatchFlow,
    instant_win_rules,
    match_flow,
)
from ._options import Options
from ._ruleset import Ruleset
from ._scoring import HandScore, SideTally, score_hand
from ._specials import (
    ClaimRule,
    DeclarationRule,
    SpecialRule,
    Specials,
    StealRule,
    TableBonusRule,
    claim_rules,
    declaration_rules,
    special_rules,
    steal_rules,
    table_bonus_rules,
)

__all__ = [
    "ANSWER",
    "HIDDEN_CARD",
    "PLAY",
    "AceReturned",
    "Action",
    "Answer",
    "BonusScored",
    "Build",
    "CardPlayed",
    "CardsDealt",
    "Claim",
    "ClaimAnswered",
    "ClaimOutcome",
    "Declare",
    "Declared",
    "Event",
    "Farm",
    "FinishReason",
    "GameFinished",
    "HandResult",
    "HandScored",
    "HandStarted",
    "LeftoverTaken",
    "MatchState",
    "Move",
    "PendingClaim",
    "Redealt",
    "SeatResigned",
    "Steal",
    "SweepClaimed",
    "apply_action",
    "apply_move",
    "check_deck",
    "is_stuck",
    "legal_actions",
    "legal_moves",
    "new_match",
    "resign",
]

_MAX_REDEALS: Final = 100


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


class Move(NamedTuple):
    """A card to play and the exact table cards it takes.

    ``capture`` is a tuple of table cards (any order), ``()`` to lay the card, or ``None`` to let
    the engine pick the only legal choice (error when there are several).
    """

    card: Card
    capture: tuple[Card, ...] | None = None


class Declare(NamedTuple):
    """Declare the combination ``name`` (e.g. ``"accusa"``) showing ``cards`` of the hand."""

    name: str
    cards: tuple[Card, ...]


class Steal(NamedTuple):
    """Play ``card`` to steal the whole pile of side ``side``, whose top card is of the played
    card's rank (Rubamazzo, seed 004)."""

    card: Card
    side: int


class Claim(NamedTuple):
    """Play ``card`` face down claiming that it sweeps the whole table: "ti fidi?" (Scopa
    fidasse, seed 004). The opponents then answer (:class:`Answer`) before anything moves."""

    card: Card


class Answer(NamedTuple):
    """Answer the claimed sweep that awaits this seat: ``trust`` it (True) or doubt it."""

    trust: bool


Action = Move | Declare | Steal | Claim | Answer | Build
"""Every kind of action a seat may take: playing a card, declaring, stealing a pile, claiming a
sweep, answering a claim, and building or raising a farm. The next variants add kinds and the
handlers a ruleset lists."""

PLAY: Final = "play"
"""The phase of an ordinary turn: play a card (or make a declaration the ruleset allows)."""
ANSWER: Final = "answer"
"""The phase after a claimed sweep: the seat to play (``turn``) is the opponent whose answer
(:class:`Answer`) is awaited; :attr:`MatchState.claim` holds the claim."""

HIDDEN_CARD: Final[Card] = -1
"""What another seat sees instead of a card played face down (a trusted claim's card)."""

_PLAYING: Final = FinishReason.NONE
"""``FinishReason.NONE`` bound once: enum member look-ups cost ~0.2 us each on Python 3.11."""


# --- events --------------------------------------------------------------------------------


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


# --- state ---------------------------------------------------------------------------------


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

    Positional, in ``__init__``'s order (tests/rules/test_game.py pins that every field is
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


# --- creating a match and dealing ----------------------------------------------------------


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
    options: Options,
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
    players = options.players
    leader = _next_in(players, dealer, out)
    order = _seats_from(players, leader, out)
    per_seat, table_cards = _plan(options).flow.deal_shape(options, len(order))
    stacked = bool(decks)
    rules = _plan(options).deals
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
        for bonus in _plan(options).table_bonuses:
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


def new_match(
    ruleset: Ruleset,
    *,
    rng: random.Random | None = None,
    decks: tuple[tuple[Card, ...], ...] | list[list[Card]] = (),
) -> tuple[MatchState, list[Event]]:
    """Create a match and deal its first hand.

    ``decks`` are stacked decks used in order for each deal (redeals included); once they run
    out, ``rng`` shuffles new ones. One of the two must be given.
    """
    options = ruleset.options
    stacked = tuple(check_deck(d, size=options.deck_size) for d in decks)
    if not stacked and rng is None:
        raise InvalidDeck("new_match needs an RNG or stacked decks", field="stacked_decks")
    dealer = options.first_dealer_seat
    hands, table, stock, rest, events = _start_hand(options, 1, dealer, stacked, rng)
    sides = options.sides
    zeros = (0,) * sides
    bonuses = _bonuses(events)
    piles, specials = _bonus_tallies(bonuses, sides)
    state = MatchState(
        ruleset=ruleset,
        hand_number=1,
        dealer=dealer,
        turn=(dealer + 1) % options.players,
        hands=hands,
        table=table,
        stock=stock,
        piles=piles,
        sweeps=zeros,
        specials=specials,
        phase=PLAY,
        declared=(),
        declarations=(),
        last_capturer=-1,
        last_laid=-1,
        history=(),
        scores=zeros,
        results=(),
        winners=(),
        finish_reason=FinishReason.NONE,
        decks=rest,
        out=(),
        returned=_returned(events),
        claim=None,
        farms=(),
        bonuses=bonuses,
    )
    return state, events


# --- per-ruleset constants ----------------------------------------------------------------


Handler = Callable[
    ["MatchState", int, Any, "random.Random | None"], "tuple[MatchState, list[Event]]"
]
"""Applies one kind of action: (state, seat, action, rng) -> (new state, events)."""


@dataclass(frozen=True, slots=True)
class _Plan:
    """What the hot path needs from a ruleset, worked out once per :class:`Options` object.

    A slotted class, not a NamedTuple: the interpreter specialises reading a slot, not a
    NamedTuple field (a descriptor call each time), and the hot path reads a dozen a play.
    """

    options: Options
    captures: CaptureTable
    players: int
    side_of: tuple[int, ...]
    """The side of each seat."""
    next_seat: tuple[int, ...]
    """The seat after each seat."""
    lone_takes: tuple[LoneTakeRule, ...]
    """The rules under which a card played on an empty table takes itself."""
    sweeps: tuple[SweepRule, ...]
    """The sweep exceptions, asked in order when a play leaves the table empty."""
    deals: tuple[DealRule, ...]
    """The deal exceptions: void starting deals and starting-table fix-ups."""
    specials: tuple[SpecialRule, ...]
    """The special-play rules, asked at every capture."""
    specials_last: tuple[SpecialRule, ...]
    """The special-play rules that also score the hand's final play."""
    laid_survives_deal: bool
    """Whether the last laid card is still "just laid" after a mid-hand re-deal."""
    declarations: tuple[DeclarationRule, ...]
    """The declaration rules, asked on every turn."""
    steals: tuple[StealRule, ...]
    """The pile-steal rules (Rubamazzo), asked on every turn."""
    claims: tuple[ClaimRule, ...]
    """The claimed-sweep rules (Scopa fidasse): who answers a claim and what answers cost."""
    builds: tuple[BuildRule, ...]
    """The farm-building rules (Scopa della fattoria), asked on every turn."""
    farm_takes: tuple[FarmTakeRule, ...]
    """How a played card takes a farm, asked while farms lie on the table."""
    farm_duties: tuple[FarmDutyRule, ...]
    """The farms a seat must take on its turn, asked while farms lie on the table."""
    instant_wins: tuple[InstantWinRule, ...]
    """The rules that may end the match after a hand whatever the scores."""
    table_bonuses: tuple[TableBonusRule, ...]
    """The rules scoring the starting table for the dealer (Cirulla), asked at each deal."""
    actions: dict[tuple[str, type], Handler]
    """The action table: (phase, action kind) -> the handler that applies it."""
    flow: MatchFlow
    """How each hand is dealt and when the match ends."""
    order: tuple[tuple[int, ...], ...]
    """Per leading seat, every seat in playing order from it (no seat out)."""


_PLANS: dict[int, _Plan] = {}
_MAX_PLANS = 256


def _plan(options: Options) -> _Plan:
    """The :class:`_Plan` of ``options``, cached by identity (bounded; checked with ``is``)."""
    plan = _PLANS.get(id(options))
    if plan is not None and plan.options is options:
        return plan
    if len(_PLANS) >= _MAX_PLANS:
        _PLANS.clear()
    players = options.players
    plan = _Plan(
        options,
        capture_table(options),
        players,
        tuple(options.side_of(seat) for seat in range(players)),
        tuple((seat + 1) % players for seat in range(players)),
        lone_take_rules(options),
        sweep_rules(options),
        deal_rules(options),
        special_rules(options),
        tuple([rule for rule in special_rules(options) if rule.on_last_card(options)]),
        all([rule.keeps_laid_card(options) for rule in special_rules(options)]),
        declaration_rules(options),
        steal_rules(options),
        claim_rules(options),
        build_rules(options),
        farm_take_rules(options),
        farm_duty_rules(options),
        instant_win_rules(options),
        table_bonus_rules(options),
        _action_table(options),
        match_flow(options),
        tuple([_seats_from(players, leader, ()) for leader in range(players)]),
    )
    _PLANS[id(options)] = plan
    return plan


def _action_table(options: Options) -> dict[tuple[str, type], Handler]:
    """The handlers of the actions ``options`` allow, by (phase, action kind)."""
    table: dict[tuple[str, type], Handler] = {(PLAY, Move): _play_action}
    if declaration_rules(options):
        table[(PLAY, Declare)] = _declare
    if steal_rules(options):
        table[(PLAY, Steal)] = _steal
    if claim_rules(options):
        table[(PLAY, Claim)] = _claim
        table[(ANSWER, Answer)] = _answer
    if build_rules(options):
        table[(PLAY, Build)] = _build
    return table


# --- legal moves ---------------------------------------------------------------------------


def legal_moves(state: MatchState, seat: int | None = None) -> list[Move]:
    """Every legal move of the seat to play (one entry per capture choice).

    With ``seat`` given, the list is empty unless it is that seat's turn.
    """
    if state.finish_reason is not _PLAYING or state.phase != PLAY:
        return []
    turn = state.turn
    if seat is not None and seat != turn:
        return []
    return _moves(state, _plan(state.ruleset.options), turn)


def _moves(state: MatchState, plan: _Plan, turn: int) -> list[Move]:
    """:func:`legal_moves` of ``turn``, the seat to play in the ``play`` phase."""
    if state.farms:
        return _with_farms(state, plan, turn)
    table = state.table
    captures = plan.captures
    by_rank = captures.by_rank(table)
    only = captures.card_filter
    moves: list[Move] = []
    for card in state.hands[turn]:
        sets = by_rank[_RANKS[card]]
        if only is not None:
            sets = only(table, card, sets)
        if sets:
            for s in sets:
                if len(s) == 1:  # one card, spelled without a comprehension
                    moves.append(_new(Move, (card, (table[s[0]],))))
                else:
                    moves.append(_new(Move, (card, tuple([table[i] for i in s]))))
        else:
            moves.append(_new(Move, (card, ())))
    return moves


# --- applying a move -----------------------------------------------------------------------


def _choose_capture(
    table: tuple[Card, ...],
    card: Card,
    index_sets: tuple[tuple[int, ...], ...],
    capture: tuple[Card, ...] | None,
) -> tuple[Card, ...]:
    """The capture ``card`` makes when its move names ``capture``, given the card's legal
    ``index_sets`` on ``table``: the named set in canonical (table) order, or the only one when
    it names none. :func:`apply_move` has already taken a canonical spelling as it is."""
    captures = pick(table, index_sets)
    if capture is None:
        if len(captures) > 1:
            raise CaptureChoiceRequired(
                f"card {card_code(card)} has {len(captures)} legal captures; name one",
                field="capture",
                metadata={"card": card_code(card), "choices": str(len(captures))},
            )
        return captures[0] if captures else ()
    wanted = tuple(capture)
    if wanted in captures:
        return wanted  # already in canonical (table) order
    wanted = tuple(sorted(wanted, key=TABLE_KEY_OF))
    if not captures:
        if wanted:
            raise CaptureNotLegal("this card captures nothing; it must be laid", field="capture")
        return ()
    if wanted not in captures:
        raise CaptureNotLegal(
            "capturing is compulsory and must take one of the legal sets"
            if not wanted
            else "that set of table cards is not a legal capture for this card",
            field="capture",
        )
    return wanted


def _is_listed(
    table: tuple[Card, ...], index_sets: tuple[tuple[int, ...], ...], capture: tuple[Card, ...]
) -> bool:
    """Whether ``capture`` is exactly the table cards at one of ``index_sets``, in table order."""
    n = len(capture)
    for positions in index_sets:
        if len(positions) == n:
            for j in range(n):
                if table[positions[j]] != capture[j]:
                    break
            else:
                return True
    return False


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


def apply_move(
    state: MatchState, seat: int, move: Move, rng: random.Random | None = None
) -> tuple[MatchState, list[Event]]:
    """Play ``move`` for ``seat``. Returns the new state and the events, in order.

    ``rng`` shuffles the next hand's deck when this move ends a hand and no stacked deck is
    left. Raises a :class:`RulesError` subclass, leaving ``state`` untouched, when illegal.
    """
    if state.finish_reason is not _PLAYING:
        raise GameOver("the game is over")
    if state.farms:
        return _play_with_farms(state, seat, move, rng)
    turn = state.turn
    hands = state.hands
    table = state.table
    piles = state.piles
    sweeps = state.sweeps
    specials = state.specials
    last_laid = state.last_laid
    options = state.ruleset.options
    plan = _PLANS.get(id(options))  # _plan(options), inlined: two calls of it per play
    if plan is None or plan.options is not options:
        plan = _plan(options)
    if not 0 <= seat < plan.players:
        raise InvalidSeat(f"no seat {seat}", field="seat")
    if seat != turn:
        raise NotYourTurn(f"it is seat {turn}'s turn")
    if state.phase != PLAY:
        raise ActionNotLegal(f"no card play in phase {state.phase!r}", field="action")
    hand = hands[seat]
    card, wanted = move
    if card not in hand:
        raise CardNotInHand(
            f"{card_code(card)} is not in your hand",
            field="card",
            metadata={"card": card_code(card)},
        )
    captures = plan.captures
    index_sets = captures.by_rank(table)[_RANKS[card]]
    if captures.card_filter is not None:
        index_sets = captures.card_filter(table, card, index_sets)
    if type(wanted) is tuple and (
        not wanted if not index_sets else _is_listed(table, index_sets, wanted)
    ):
        capture = wanted  # laid with no capture, or a legal set in table order (legal_moves')
    else:
        capture = _choose_capture(table, card, index_sets, wanted)

    at = hand.index(card)  # _hands_without, inlined: the hot path
    hands = hands[:seat] + (hand[:at] + hand[at + 1 :],) + hands[seat + 1 :]
    last_card = not state.stock and not any(hands)
    if capture or (not table and plan.lone_takes and _takes_alone(plan.lone_takes, card)):
        side = plan.side_of[seat]
        if len(capture) == 1:  # the common capture: cut the one card out where it lies
            taken = table.index(capture[0])
            rest = table[:taken] + table[taken + 1 :]
        else:
            rest = tuple([c for c in table if c not in capture]) if capture else table
        sweep = not rest and _is_sweep(plan.sweeps, table, card, capture, last_card)
        scored: Specials = ()
        rules = plan.specials_last if last_card else plan.specials
        if rules:
            scored = _score_specials(rules, card, capture, last_laid, sweep)
            if scored:
                specials = _add_specials(specials, side, scored)
        piles = piles[:side] + (piles[side] + capture + (card,),) + piles[side + 1 :]
        if sweep:
            sweeps = _replace_at(sweeps, side, sweeps[side] + 1)
        played = _new(CardPlayed, (seat, card, capture, True, sweep, scored, -1, None, None))
        return _after_card(
            state, plan, played, hands, rest, piles, sweeps, specials, seat, -1, last_card, rng
        )
    table_list = list(table)
    insort(table_list, card, key=TABLE_KEY_OF)
    played = _new(CardPlayed, (seat, card, capture, False, False, (), -1, None, None))
    return _after_card(
        state,
        plan,
        played,
        hands,
        tuple(table_list),
        piles,
        sweeps,
        specials,
        state.last_capturer,
        card,
        last_card,
        rng,
    )


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
        return _end_hand(new, events, rng), events
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


def _play_action(
    state: MatchState, seat: int, action: Move, rng: random.Random | None
) -> tuple[MatchState, list[Event]]:
    return apply_move(state, seat, action, rng)


def apply_action(
    state: MatchState, seat: int, action: Action, rng: random.Random | None = None
) -> tuple[MatchState, list[Event]]:
    """Take ``action`` for ``seat`` through the ruleset's action table (phase, kind -> handler).

    :func:`apply_move` is the same for a :class:`Move`. Raises :class:`ActionNotLegal` when the
    ruleset has no handler for this kind of action in the current phase.
    """
    if state.finish_reason is not _PLAYING:
        raise GameOver("the game is over")
    handler = _plan(state.ruleset.options).actions.get((state.phase, type(action)))
    if handler is None:
        raise ActionNotLegal(
            f"no {type(action).__name__} action in phase {state.phase!r} of this ruleset",
            field="action",
        )
    return handler(state, seat, action, rng)


def legal_actions(state: MatchState, seat: int | None = None) -> list[Action]:
    """Every legal action of every kind of the seat to play: its moves, then its declarations,
    pile steals and sweep claims; in the ``answer`` phase, trusting then doubting the claim.

    With ``seat`` given, the list is empty unless it is that seat's turn.
    """
    if state.phase != PLAY:
        return _open_answers(state, seat)
    if state.finish_reason is not _PLAYING or (seat is not None and seat != state.turn):
        return []
    return _actions(state, _plan(state.ruleset.options))


def is_stuck(state: MatchState) -> bool:
    """Whether the game is not over and the seat it awaits has no legal action: a state the
    engine must never reach (tools/fuzz_rules.py looks for one), which the service refuses to
    serve rather than leave every seat waiting."""
    return state.finish_reason is _PLAYING and not legal_actions(state)


def _actions(state: MatchState, plan: _Plan) -> list[Action]:
    """:func:`legal_actions` of the seat to play in the ``play`` phase of a game not over."""
    actions: list[Action] = list(_moves(state, plan, state.turn))
    if actions:  # each kind asked only where the ruleset has it
        if plan.declarations:
            for rule, cards, _points in _open_declarations(state):
                actions.append(Declare(name=rule.name, cards=cards))
        if plan.steals:
            actions.extend(_open_steals(state))
        if plan.claims:
            actions.extend(_open_claims(state))
        if plan.builds:
            actions.extend(_open_builds(state, plan))
    return actions


# --- claimed sweeps (Scopa fidasse) ---------------------------------------------------------


def _open_claims(state: MatchState) -> list[Claim]:
    """The sweep claims open to the seat to play, while the table holds cards: each card of its
    hand whose clearing of the table the sweep rules would score as a sweep, asked as for a real
    sweep (:func:`_is_sweep`; e.g. no claim with the hand's last card under
    ``NoSweepOnLastCard``)."""
    plan = _plan(state.ruleset.options)
    table = state.table
    if not plan.claims or not table:
        return []
    hand = state.hands[state.turn]
    last_card = not state.stock and len(hand) == 1 and sum([len(h) for h in state.hands]) == 1
    return [
        Claim(card=card) for card in hand if _is_sweep(plan.sweeps, table, card, table, last_card)
    ]


def _open_answers(state: MatchState, seat: int | None) -> list[Action]:
    """Trust, then doubt: the answers of the seat a pending claim awaits."""
    if state.finish_reason is not _PLAYING or state.claim is None:
        return []
    if seat is not None and seat != state.turn:
        return []
    return [Answer(trust=True), Answer(trust=False)]


def _check_turn(state: MatchState, plan: _Plan, seat: int) -> None:
    """Refuse a seat that does not exist or whose turn it is not (the order every action checks)."""
    if not 0 <= seat < plan.players:
        raise InvalidSeat(f"no seat {seat}", field="seat")
    if seat != state.turn:
        raise NotYourTurn(f"it is seat {state.turn}'s turn")


def _claim(
    state: MatchState, seat: int, action: Claim, rng: random.Random | None
) -> tuple[MatchState, list[Event]]:
    """Play ``action.card`` face down claiming a sweep: nothing moves but the card out of the
    hand; the ``answer`` phase hands the turn to the first seat that answers."""
    plan = _plan(state.ruleset.options)
    _check_turn(state, plan, seat)
    if action not in _open_claims(state):
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
    state: MatchState, seat: int, action: Answer, rng: random.Random | None
) -> tuple[MatchState, list[Event]]:
    """Answer the pending claim: a trust passes the question on (or, the last one, lets the
    sweep stand unseen); a doubt shows the card and settles the claim at once."""
    plan = _plan(state.ruleset.options)
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


def _open_steals(state: MatchState) -> list[Steal]:
    """The pile steals open to the seat to play: a card of its hand on another side's pile
    whose top card a steal rule lets it take, by card then side."""
    plan = _plan(state.ruleset.options)
    if not plan.steals or _due_farms(plan, state, state.turn):
        return []  # a farm's owner may only take its farm: no card of its value spent on a pile
    own = plan.side_of[state.turn]
    tops = [(side, pile[-1]) for side, pile in enumerate(state.piles) if pile and side != own]
    return [
        Steal(card=card, side=side)
        for card in state.hands[state.turn]
        for side, top in tops
        if any(rule.can_steal(card, top) for rule in plan.steals)
    ]


def _steal(
    state: MatchState, seat: int, action: Steal, rng: random.Random | None
) -> tuple[MatchState, list[Event]]:
    """Steal a pile: the played card takes another side's whole pile and lies on top of its own
    side's pile, which the others may steal in turn (Rubamazzo, seed 004)."""
    plan = _plan(state.ruleset.options)
    _check_turn(state, plan, seat)
    if action not in _open_steals(state):
        raise ActionNotLegal(
            f"seat {seat} cannot steal the pile of side {action.side} with"
            f" {card_code(action.card)} now",
            field="action",
        )
    card, target = action
    side = plan.side_of[seat]
    stolen = state.piles[target]
    piles = list(state.piles)
    piles[side] = piles[side] + stolen + (card,)
    piles[target] = ()
    hands = _hands_without(state.hands, seat, card)
    played = CardPlayed(seat, card, stolen, True, False, (), target)
    last_card = not any(hands) and not state.stock
    return _after_card(
        state,
        plan,
        played,
        hands,
        state.table,
        tuple(piles),
        state.sweeps,
        state.specials,
        seat,
        -1,
        last_card,
        rng,
    )


# --- farms (Scopa della fattoria) ------------------------------------------------------------


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
    state: MatchState, seat: int, move: Move, rng: random.Random | None
) -> tuple[MatchState, list[Event]]:
    """:func:`apply_move` while farms lie on the table: the capture is one of the card's entries
    of :func:`legal_moves` (any order), and a capture of a farm takes it whole."""
    plan = _plan(state.ruleset.options)
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
    capture = _farm_capture_choice(state, seat, card, choices, wanted)
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
    seat: int,
    card: Card,
    choices: list[tuple[Card, ...]],
    wanted: tuple[Card, ...] | None,
) -> tuple[Card, ...]:
    """The entry of ``choices`` (the card's legal captures, ``()`` to lay it) that ``wanted``
    names in any order; ``None`` names the only one."""
    if not choices:
        due = _due_farms(_plan(state.ruleset.options), state, seat)
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
    state: MatchState, seat: int, action: Build, rng: random.Random | None
) -> tuple[MatchState, list[Event]]:
    """Build a farm on a loose card or raise a farm (Scopa della fattoria, seed 004): the card
    joins the farm, which is now the seat's, worth ``action.value``."""
    plan = _plan(state.ruleset.options)
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


def _open_declarations(
    state: MatchState,
) -> list[tuple[DeclarationRule, tuple[Card, ...], int]]:
    """The declarations the seat to play may make now, with their points.

    Only before it plays a card of the deal (a full hand) and once per deal.
    """
    plan = _plan(state.ruleset.options)
    seat = state.turn
    if not plan.declarations or seat < 0 or seat in state.declared:
        return []
    hand = state.hands[seat]
    if len(hand) != plan.options.hand_size:
        return []
    return [
        (rule, cards, points)
        for rule in plan.declarations
        for cards, points in rule.declarations(hand, plan.options)
    ]


def _declare(
    state: MatchState, seat: int, action: Declare, rng: random.Random | None
) -> tuple[MatchState, list[Event]]:
    """Make the declaration ``action``: its points go to the seat's side, its cards are shown."""
    plan = _plan(state.ruleset.options)
    _check_turn(state, plan, seat)
    shown = tuple(sorted(action.cards))
    for rule, cards, points in _open_declarations(state):
        if rule.name == action.name and cards == shown:
            side = plan.side_of[seat]
            declared = Declared(seat=seat, name=rule.name, cards=cards, points=points)
            new = replace(
                state,
                specials=_add_specials(state.specials, side, ((rule.name, points),)),
                declared=(*state.declared, seat),
                declarations=(*state.declarations, declared),
            )
            return new, [declared]
    raise ActionNotLegal(
        f"no declaration {action.name!r} of these cards is open to seat {seat} now",
        field="action",
    )


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


def _end_hand(state: MatchState, events: list[Event], rng: random.Random | None) -> MatchState:
    options = state.ruleset.options
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
    winners, reason, out = _match_outcome(options, score, scores, state.out, len(results))
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
        options, hand_number, dealer, state.decks, rng, out
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
    options: Options,
    score: HandScore,
    scores: tuple[int, ...],
    out: tuple[int, ...],
    hands: int,
) -> tuple[tuple[int, ...], FinishReason, tuple[int, ...]]:
    """The winners (empty: play on), why, and the seats out, after a hand scored ``score``, the
    match's ``hands``-th."""
    plan = _plan(options)
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


def resign(state: MatchState, seat: int) -> tuple[MatchState, list[Event]]:
    """``seat`` resigns (or leaves): the game ends and every other side wins."""
    if state.finish_reason is not FinishReason.NONE:
        raise GameOver("the game is over")
    options = state.ruleset.options
    if not 0 <= seat < options.players:
        raise InvalidSeat(f"no seat {seat}", field="seat")
    loser = options.side_of(seat)
    winners = tuple(s for s in range(options.sides) if s != loser)
    events: list[Event] = [
        SeatResigned(seat),
        GameFinished(winners, FinishReason.RESIGNED, state.scores),
    ]
    new = replace(
        state,
        turn=-1,
        winners=winners,
        finish_reason=FinishReason.RESIGNED,
    )
    return new, events
