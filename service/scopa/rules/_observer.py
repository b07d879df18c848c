"""What one seat, or a spectator, may see of a match, and the states a seat cannot tell apart.

The observer builds a view from the full truth. A view holds the seat's own hand and, for
everyone else, only counts: other hands, the stock and stacked decks are never copied into it,
and events are filtered the same way until the game is over.

:func:`state_from_view` goes the other way for a seat's search (determinisation): a complete
:class:`MatchState` the seat cannot tell from the truth, its hidden cards dealt at random from
what the seat has not seen. Each hand is dealt from a fresh deck (the ruleset's), so the unseen
cards are the deck minus the seat's hand, the table, every card played or taken this hand (the
public ``history``) and the cards other seats showed in declarations this deal, which stay in the
hands that showed them until played. A card played face down in a claimed sweep (Scopa
fidasse) that the seat may not see is one of the unseen cards too, dealt at random into the
claimer's pile (or the pending claim); the search never reads the true one.
"""

from __future__ import annotations

import random
from typing import NamedTuple, assert_never

from ._cards import _RANKS, Card, deck_cards
from ._draw import shuffle
from ._events import (
    AceReturned,
    BonusScored,
    CardPlayed,
    CardsDealt,
    ClaimAnswered,
    Declared,
    Event,
    FinishReason,
    GameFinished,
    HandResult,
    HandScored,
    HandStarted,
    LeftoverTaken,
    PendingClaim,
    Redealt,
    SeatResigned,
    SweepClaimed,
)
from ._farms import Farm, farm_duty_rules
from ._game import _plan, legal_actions
from ._hand import _next_in
from ._moves import Action
from ._moves_claim import HIDDEN_CARD
from ._options import Options
from ._ruleset import Ruleset
from ._specials import Specials
from ._state import PLAY, MatchState, Move

__all__ = [
    "SeatView",
    "observe",
    "seen_cards",
    "shown_cards",
    "state_from_view",
    "unseen_cards",
    "visible_event",
    "visible_events",
]


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
    declarations: tuple[Declared, ...]
    """The declarations of the current deal: their cards were shown to everyone."""
    results: tuple[HandResult, ...]
    legal_moves: tuple[Move, ...]
    """Every legal move, only when it is the viewer's turn."""
    legal_actions: tuple[Action, ...]
    """Every legal action of every kind (moves, then declarations), only on the viewer's turn."""
    winners: tuple[int, ...]
    finish_reason: FinishReason
    out: tuple[int, ...] = ()
    """Seats out of the match (``elimination``)."""
    returned: tuple[Card, ...] = ()
    """The aces this hand's deal sent under the stock, in order (public: the stock ends with
    them until they are dealt, and then the deal's order says which seat got each)."""
    phase: str = PLAY
    """``play``, or ``answer`` while a claimed sweep awaits the answer of the seat ``turn``."""
    claim: PendingClaim | None = None
    """The claimed sweep awaiting answers; its card is ``HIDDEN_CARD`` but to the claimer."""
    farms: tuple[Farm, ...] = ()
    """The farms on the table (public), oldest first (Scopa della fattoria)."""
    bonuses: tuple[BonusScored, ...] = ()
    """This hand's bonuses scored outside the plays (public: the dealer's starting table)."""


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
    claim = state.claim
    if claim is not None and claim.seat != seat:
        claim = claim._replace(card=HIDDEN_CARD)
    history = state.history
    if any([play.claim is not None for play in history]):
        history = tuple([_visible_play(play, seat) for play in history])
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
        history=history,
        declarations=state.declarations,
        results=state.results,
        legal_moves=moves,
        legal_actions=actions,
        winners=state.winners,
        finish_reason=state.finish_reason,
        out=state.out,
        returned=state.returned,
        phase=state.phase,
        claim=claim,
        farms=state.farms,
        bonuses=state.bonuses,
    )


def _visible_play(play: CardPlayed, seat: int | None) -> CardPlayed:
    """``play`` as ``seat`` may see it: a claim every seat asked trusted keeps its card hidden
    from every seat but the claimer's (it.wikipedia: a trusted sweep "need not be shown")."""
    claim = play.claim
    if claim is None or claim.doubter >= 0 or play.seat == seat:
        return play
    return play._replace(card=HIDDEN_CARD)


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
        case CardPlayed():
            return _visible_play(event, seat)
        case (
            HandStarted()
            | Redealt()
            | AceReturned()
            | BonusScored()
            | SweepClaimed()
            | ClaimAnswered()
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


# --- states consistent with a view (determinisation) ----------------------------------------


def shown_cards(view: SeatView) -> tuple[tuple[Card, ...], ...]:
    """Per seat, the cards it showed in a declaration this deal and has not played since."""
    played = {play.card for play in view.history}
    shown: list[list[Card]] = [[] for _ in view.hand_sizes]
    for declared in view.declarations:
        shown[declared.seat].extend(c for c in declared.cards if c not in played)
    return tuple(tuple(cards) for cards in shown)


def seen_cards(view: SeatView) -> frozenset[Card]:
    """The cards of this hand the seat has seen: its hand, the table, every card played or
    taken, and every card shown in a declaration this deal."""
    seen: set[Card] = set(view.hand)
    seen.update(view.table)
    for farm in view.farms:
        seen.update(farm.cards)
    for play in view.history:
        seen.add(play.card)
        seen.update(play.captured)
    for declared in view.declarations:
        seen.update(declared.cards)
    for bonus in view.bonuses:
        seen.update(bonus.cards)
    if view.claim is not None:
        seen.add(view.claim.card)
    seen.discard(HIDDEN_CARD)
    return frozenset(seen)


def unseen_cards(view: SeatView) -> tuple[Card, ...]:
    """The cards that may be in another hand or the stock, in card order."""
    seen = seen_cards(view)
    return tuple([c for c in deck_cards(view.options.deck_size) if c not in seen])


def returned_aces(view: SeatView) -> tuple[tuple[Card, ...], tuple[tuple[int, Card], ...]]:
    """Where the aces returned under the stock this hand are, as every seat can work out: those
    still at the stock's bottom (in stock order), and (seat, ace) for each one already dealt,
    to the seat the deal's order gave it (whether it has been played since is not checked).

    The stock is dealt from the top in blocks of ``per_seat`` x seats, one card at a time
    round-robin from the seat after the dealer, so an ace's place in the hand's starting stock
    (its end) says which seat a deal gave it.
    """
    returned = view.returned
    if not returned:
        return (), ()
    options = view.options
    players = options.players
    seated = [s for s in range(players) if s not in view.out]
    n = len(seated)
    per_seat = _plan(options).flow.deal_shape(options, n)[0]
    block = per_seat * n
    start = seated.index(_next_in(players, view.dealer, view.out))
    dealt_later = len(view.history) + sum(view.hand_sizes) - block  # after the first deal
    first_stock = dealt_later + view.stock_size
    gone = first_stock - view.stock_size  # stock cards dealt so far this hand
    bottom: list[Card] = []
    held: list[tuple[int, Card]] = []
    for at, ace in enumerate(returned, start=first_stock - len(returned)):
        if at >= gone:
            bottom.append(ace)
        else:
            held.append((seated[(start + at % block) % n], ace))
    return tuple(bottom), tuple(held)


def state_from_view(view: SeatView, rng: random.Random) -> MatchState:
    """A complete state consistent with ``view``: its hidden cards dealt at random.

    Every other seat holds the cards it showed in declarations and not yet played, and the
    returned aces (:func:`returned_aces`) a deal gave it and it has not played; the returned
    aces still in the stock stay at its bottom, in their order; the other unseen cards are
    shuffled with ``rng`` and fill the other hands, the rest is the stock. Piles, specials and
    the last capture are rebuilt from the public history and declarations.
    ``observe(state_from_view(view, rng), view.seat) == view``. Raises ``ValueError`` for a
    spectator's view, a finished game, or a view whose counts do not add up.
    """
    seat = view.seat
    if seat is None or view.turn < 0:
        raise ValueError("only a seat of a live game can be determinised")
    shown = [list(cards) for cards in shown_cards(view)]
    hidden = unseen_cards(view)
    bottom, dealt = returned_aces(view)
    for holder, ace in dealt:
        if ace in hidden:  # neither played nor in this seat's own hand: the holder has it
            shown[holder].append(ace)
    placed = set(bottom) | {ace for holder, ace in dealt if ace in hidden}
    unseen = [c for c in hidden if c not in placed]
    sizes = view.hand_sizes
    others = [s for s in range(len(sizes)) if s != seat]
    history = view.history
    face_down = [i for i, play in enumerate(history) if play.card == HIDDEN_CARD]
    claim = view.claim
    pending = claim is not None and claim.card == HIDDEN_CARD
    wanted = sum(sizes[s] - len(shown[s]) for s in others) + view.stock_size - len(bottom)
    wanted += len(face_down) + pending
    if wanted != len(unseen) or any(len(shown[s]) > sizes[s] for s in others):
        raise ValueError(f"view holds {len(unseen)} unseen cards, its counts need {wanted}")
    shuffle(rng, unseen)
    held = _farm_holders(view, shown, unseen)
    hands: list[tuple[Card, ...]] = [()] * len(sizes)
    hands[seat] = view.hand
    at = 0
    for other in others:
        fill = sizes[other] - len(held[other])
        hands[other] = held[other] + tuple(unseen[at : at + fill])
        at += fill
    if face_down:  # trusted claims: their cards lie face down in the claimers' piles
        plays = list(history)
        for i in face_down:
            plays[i] = plays[i]._replace(card=unseen[at])
            at += 1
        history = tuple(plays)
    if claim is not None and pending:
        claim = claim._replace(card=unseen[at])
        at += 1
    return MatchState(
        ruleset=Ruleset(view.preset, view.options),
        hand_number=view.hand_number,
        dealer=view.dealer,
        turn=view.turn,
        hands=tuple(hands),
        table=view.table,
        stock=tuple(unseen[at:]) + bottom,
        piles=_piles(view, history),
        sweeps=view.sweeps,
        specials=_specials(view),
        phase=view.phase,
        declared=tuple([d.seat for d in view.declarations]),
        declarations=view.declarations,
        last_capturer=_last_capturer(view),
        last_laid=_last_laid(history),
        history=history,
        scores=view.scores,
        results=view.results,
        winners=view.winners,
        finish_reason=view.finish_reason,
        decks=(),
        out=view.out,
        returned=view.returned,
        claim=claim,
        farms=view.farms,
        bonuses=view.bonuses,
    )


def _farm_holders(
    view: SeatView, shown: list[list[Card]], unseen: list[Card]
) -> tuple[tuple[Card, ...], ...]:
    """``shown`` plus, for each other seat that must take its farm (a farm duty rule), one unseen
    card of the farm's value (the first in ``unseen``'s shuffled order, removed from it): it built
    or raised the farm holding one and has not played since."""
    held = [list(cards) for cards in shown]
    if not view.farms:
        return tuple([tuple(cards) for cards in held])
    rules = farm_duty_rules(view.options)
    due = [f for rule in rules for s in range(len(held)) for f in rule.due(s, view.farms)]
    for farm in due:
        owner = farm.owner
        if owner == view.seat or any(_RANKS[c] == farm.value for c in held[owner]):
            continue
        pick = next((c for c in unseen if _RANKS[c] == farm.value), None)
        if pick is not None and len(held[owner]) < view.hand_sizes[owner]:
            unseen.remove(pick)
            held[owner].append(pick)
    return tuple([tuple(cards) for cards in held])


def _last_laid(history: tuple[CardPlayed, ...]) -> Card:
    """The card the latest play laid loose on the table (not into a farm), or -1."""
    if history and not history[-1].taken and history[-1].farm is None:
        return history[-1].card
    return -1


def _piles(view: SeatView, history: tuple[CardPlayed, ...]) -> tuple[tuple[Card, ...], ...]:
    """Each side's captures this hand, rebuilt from the public ``history`` (its hidden cards
    dealt)."""
    piles: list[tuple[Card, ...]] = [()] * view.options.sides
    for bonus in view.bonuses:  # the dealer's starting table, taken before the first play
        piles[bonus.side] = piles[bonus.side] + bonus.cards
    for play in history:
        if play.taken:
            side = view.side_of_seat[play.seat]
            if play.stolen_from >= 0:  # Rubamazzo: the stolen pile left its side whole
                piles[play.stolen_from] = ()
            piles[side] = piles[side] + play.captured + (play.card,)
    return tuple(piles)


def _specials(view: SeatView) -> tuple[Specials, ...]:
    """Each side's special points this hand, from the public history and declarations."""
    per_side: list[dict[str, int]] = [{} for _ in range(view.options.sides)]
    for bonus in view.bonuses:
        points = per_side[bonus.side]
        points[bonus.name] = points.get(bonus.name, 0) + bonus.points
    for play in view.history:
        points = per_side[view.side_of_seat[play.seat]]
        for name, value in play.specials:
            points[name] = points.get(name, 0) + value
        if play.claim is not None and play.claim.doubter_specials:
            points = per_side[view.side_of_seat[play.claim.doubter]]
            for name, value in play.claim.doubter_specials:
                points[name] = points.get(name, 0) + value
    for declared in view.declarations:
        points = per_side[view.side_of_seat[declared.seat]]
        points[declared.name] = points.get(declared.name, 0) + declared.points
    return tuple(tuple(p.items()) for p in per_side)


def _last_capturer(view: SeatView) -> int:
    for play in reversed(view.history):
        if play.taken:
            return play.seat
    return -1
