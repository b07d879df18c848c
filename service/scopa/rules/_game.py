"""The match: creating one, legal moves, applying a move or any action, resigning.

Everything here is pure. A match is created from a ruleset and either an RNG or stacked decks
(docs/rules.md: index 0 is the top; hands are dealt one card at a time round-robin from the
leading seat, then the table cards). :func:`apply_move` returns a new state and the events it
caused and never changes its input; an illegal move raises a :class:`RulesError` subclass.

The ordinary card play is here; every other kind of action is a move type (``_moves.py`` lists
the plug-ins), which the per-ruleset plan (:func:`_plan`) lists legal actions from and keys the
action table by. The flow every play ends in (dealing, end of hand) is ``_hand.py``'s.
"""

from __future__ import annotations

import random
from bisect import insort
from dataclasses import replace
from typing import Final

from ._capture import TABLE_KEY_OF, capture_table, pick
from ._cards import _RANKS, Card, card_code
from ._errors import (
    ActionNotLegal,
    CaptureChoiceRequired,
    CaptureNotLegal,
    CardNotInHand,
    GameOver,
    InvalidDeck,
    InvalidSeat,
    NotYourTurn,
)
from ._events import CardPlayed, Event, FinishReason, GameFinished, SeatResigned
from ._farms import _new, build_rules, farm_duty_rules, farm_take_rules
from ._flow import deal_rules, lone_take_rules, sweep_rules
from ._hand import (
    _add_specials,
    _after_card,
    _bonus_tallies,
    _bonuses,
    _is_sweep,
    _replace_at,
    _returned,
    _score_specials,
    _seats_from,
    _start_hand,
    _takes_alone,
    check_deck,
)
from ._matchflow import instant_win_rules, match_flow
from ._moves import CARD_PLAYS, MOVE_TYPES, Action
from ._options import Options
from ._plan import CardPlay, Handler, MoveType, _Plan
from ._ruleset import Ruleset
from ._specials import (
    Specials,
    claim_rules,
    declaration_rules,
    special_rules,
    steal_rules,
    table_bonus_rules,
)
from ._state import _PLAYING, PLAY, MatchState, Move

__all__ = [
    "apply_action",
    "apply_move",
    "is_stuck",
    "legal_actions",
    "legal_moves",
    "new_match",
    "resign",
]


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
    hands, table, stock, rest, events = _start_hand(_plan(options), 1, dealer, stacked, rng)
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


_PLANS: Final[dict[int, _Plan]] = {}
_MAX_PLANS: Final = 256


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
        *_move_types(options),
        match_flow(options),
        tuple([_seats_from(players, leader, ()) for leader in range(players)]),
    )
    _PLANS[id(options)] = plan
    return plan


def _move_types(
    options: Options,
) -> tuple[
    dict[tuple[str, type], Handler],
    tuple[MoveType, ...],
    dict[str, tuple[MoveType, ...]],
    CardPlay | None,
]:
    """The plan's action table, the move types it lists in the ``play`` phase and in each
    other phase, and its card play: those of ``_moves.py`` that ``options`` enable, in order."""
    actions: dict[tuple[str, type], Handler] = {(PLAY, Move): _play_action}
    play_opens: list[MoveType] = []
    phase_opens: dict[str, tuple[MoveType, ...]] = {}
    for move_type in MOVE_TYPES:
        if move_type.enabled(options):
            actions[(move_type.phase, move_type.kind)] = move_type.apply
            if move_type.phase == PLAY:
                play_opens.append(move_type)
            else:
                phase_opens[move_type.phase] = (*phase_opens.get(move_type.phase, ()), move_type)
    card_play = next((play for play in CARD_PLAYS if play.enabled(options)), None)
    return actions, tuple(play_opens), phase_opens, card_play


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
    card_play = plan.card_play  # a move type's pieces on the table (farms) play the cards
    if card_play is not None and card_play.active(state):
        return card_play.moves(state, plan, turn)
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


def apply_move(
    state: MatchState, seat: int, move: Move, rng: random.Random | None = None
) -> tuple[MatchState, list[Event]]:
    """Play ``move`` for ``seat``. Returns the new state and the events, in order.

    ``rng`` shuffles the next hand's deck when this move ends a hand and no stacked deck is
    left. Raises a :class:`RulesError` subclass, leaving ``state`` untouched, when illegal.
    """
    if state.finish_reason is not _PLAYING:
        raise GameOver("the game is over")
    options = state.ruleset.options
    plan = _PLANS.get(id(options))  # _plan(options), inlined: two calls of it per play
    if plan is None or plan.options is not options:
        plan = _plan(options)
    card_play = plan.card_play  # a move type's pieces on the table (farms) play the cards
    if card_play is not None and card_play.active(state):
        return card_play.play(state, plan, seat, move, rng)
    turn = state.turn
    hands = state.hands
    table = state.table
    piles = state.piles
    sweeps = state.sweeps
    specials = state.specials
    last_laid = state.last_laid
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


def _play_action(
    state: MatchState, plan: _Plan, seat: int, action: Move, rng: random.Random | None
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
    plan = _plan(state.ruleset.options)
    handler = plan.actions.get((state.phase, type(action)))
    if handler is None:
        raise ActionNotLegal(
            f"no {type(action).__name__} action in phase {state.phase!r} of this ruleset",
            field="action",
        )
    return handler(state, plan, seat, action, rng)


def legal_actions(state: MatchState, seat: int | None = None) -> list[Action]:
    """Every legal action of every kind of the seat to play: its moves, then its declarations,
    pile steals and sweep claims; in the ``answer`` phase, trusting then doubting the claim.

    With ``seat`` given, the list is empty unless it is that seat's turn.
    """
    if state.finish_reason is not _PLAYING or (seat is not None and seat != state.turn):
        return []
    plan = _plan(state.ruleset.options)
    if state.phase != PLAY:  # a phase of a move type's own (a claim's answers)
        actions: list[Action] = []
        for move_type in plan.phase_opens.get(state.phase, ()):
            actions.extend(move_type.opens(state, plan))
        return actions
    return _actions(state, plan)


def is_stuck(state: MatchState) -> bool:
    """Whether the game is not over and the seat it awaits has no legal action: a state the
    engine must never reach (tools/fuzz_rules.py looks for one), which the service refuses to
    serve rather than leave every seat waiting."""
    if state.finish_reason is not _PLAYING:
        return False
    if state.phase == PLAY and state.hands[state.turn]:
        card_play = _plan(state.ruleset.options).card_play
        if card_play is None or not card_play.active(state):
            return False  # each card in hand makes a move (:func:`_moves`): a capture, or laid
    return not legal_actions(state)


def _actions(state: MatchState, plan: _Plan) -> list[Action]:
    """:func:`legal_actions` of the seat to play in the ``play`` phase of a game not over."""
    actions: list[Action] = list(_moves(state, plan, state.turn))
    if actions:  # the move types the ruleset enables (none in most), in _moves.py's order
        for move_type in plan.play_opens:
            actions.extend(move_type.opens(state, plan))
    return actions


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
