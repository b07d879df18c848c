"""Conversions between the public protobuf messages and the core's types. No logic lives here."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any, Final, TypeVar, assert_never, cast

from google.protobuf.message import Message

from scopa import rules
from scopa.app import (
    CreateGameCommand,
    GameSnapshot,
    GameStatus,
    InvalidArgument,
    LobbyGame,
    SeatJoined,
    SeatSpec,
    TimeoutAction,
    TurnTimedOut,
    Unauthenticated,
    VersionedEvent,
)
from scopa_client.v1 import scopa_pb2 as pb

from ._convert_presence import seat_fields, spectator_fields

__all__ = [
    "STATUS_FROM_PB",
    "action_from_pb",
    "action_to_pb",
    "card_from_pb",
    "card_to_pb",
    "create_command",
    "event_to_pb",
    "game_id_from_name",
    "lobby_fields",
    "lobby_to_pb",
    "move_from_pb",
    "option_from_pb",
    "option_to_pb",
    "options_tail",
    "options_view",
    "results_tail",
    "results_view",
    "rulesets_to_pb",
    "token_from_metadata",
    "view_fields",
    "view_tail",
    "view_to_pb",
    "with_view",
]

_NAME_PREFIX: Final = "games/"
_STATUS: Final = {
    GameStatus.WAITING_FOR_PLAYERS: pb.GAME_STATUS_WAITING_FOR_PLAYERS,
    GameStatus.ACTIVE: pb.GAME_STATUS_ACTIVE,
    GameStatus.FINISHED: pb.GAME_STATUS_FINISHED,
}
STATUS_FROM_PB: Final = {value: status for status, value in _STATUS.items()}
"""A proto GameStatus (but UNSPECIFIED) as the core's."""
_FINISH: Final = {
    rules.FinishReason.NONE: pb.FINISH_REASON_UNSPECIFIED,
    rules.FinishReason.TARGET: pb.FINISH_REASON_TARGET,
    rules.FinishReason.NAPOLEONE: pb.FINISH_REASON_NAPOLEONE,
    rules.FinishReason.RESIGNED: pb.FINISH_REASON_RESIGNED,
    rules.FinishReason.LOWEST: pb.FINISH_REASON_LOWEST_SCORE,
    rules.FinishReason.ELIMINATION: pb.FINISH_REASON_LAST_LEFT,
    rules.FinishReason.HAND_LIMIT: pb.FINISH_REASON_HAND_LIMIT,
}
_TIMEOUT_ACTIONS: Final = {
    pb.TIMEOUT_ACTION_UNSPECIFIED: "",
    pb.TIMEOUT_ACTION_BOT_PLAYS: TimeoutAction.BOT.value,
    pb.TIMEOUT_ACTION_FORFEIT: TimeoutAction.FORFEIT.value,
}
"""CreateGameRequest.timeout_action to the core's; an unknown number becomes "?" (refused)."""
_OPTION_TYPES: Final = {
    "bool": pb.OPTION_TYPE_BOOL,
    "int": pb.OPTION_TYPE_INT,
    "enum": pb.OPTION_TYPE_STRING,
}


def game_id_from_name(name: str) -> str:
    """``games/<id>`` to ``<id>``."""
    if not name.startswith(_NAME_PREFIX) or len(name) == len(_NAME_PREFIX):
        raise InvalidArgument("name must look like games/<id>", field="name")
    return name[len(_NAME_PREFIX) :]


def card_to_pb(card: rules.Card) -> pb.Card:
    """Engine card to message (suit numbers are the engine's plus one; ``copy`` is left unset,
    0, for a first copy, so 40-card games look as they always did)."""
    return pb.Card(
        suit=rules.suit_of(card) + 1,  # type: ignore[arg-type]
        rank=rules.rank_of(card),
        copy=rules.copy_of(card),
    )


_TOP_RANK: Final = 13
"""The highest rank of any deck (the 52-card deck's re)."""

_CARDS: Final = tuple(card_to_pb(card) for card in range(rules.MAX_CARD))
"""One message per card, built once. Only ever passed to message constructors, which copy them
(cheaper than building each card from keyword arguments); never handed out or mutated."""


_CARD_DICTS: Final = tuple({"suit": m.suit, "rank": m.rank, "copy": m.copy} for m in _CARDS)
"""Each card's fields (its copy too: 80-card decks hold two of each), for a view's hand and
table: a constructor fills a repeated field's elements from dicts in place. Never mutated."""


def cards_to_pb(cards: Iterable[rules.Card]) -> list[pb.Card]:
    """Several cards as messages to pass to a message constructor (which copies them)."""
    return [_CARDS[c] for c in cards]


def card_from_pb(card: pb.Card, field: str) -> rules.Card:
    """Message to engine card; a missing suit, a rank outside 1..13 or a copy other than 0 or 1
    names the field (a card that is valid but not in the game's deck is not in any hand)."""
    if not pb.SUIT_COPPE <= card.suit <= pb.SUIT_SPADE:
        raise InvalidArgument("card suit must be set", field=f"{field}.suit")
    if not 1 <= card.rank <= _TOP_RANK:
        raise InvalidArgument("card rank must be 1..13", field=f"{field}.rank")
    if card.copy not in (0, 1):
        raise InvalidArgument("card copy must be 0 or 1", field=f"{field}.copy")
    return rules.card_of(card.suit - 1, card.rank, card.copy)


def move_from_pb(request: pb.PlayCardRequest | pb.PlayCardAction, prefix: str = "") -> rules.Move:
    """The card and the optional capture choice of a PlayCard request (or action)."""
    if not request.HasField("card"):
        raise InvalidArgument("card is required", field=f"{prefix}card")
    card = card_from_pb(request.card, f"{prefix}card")
    if not request.HasField("capture"):
        return rules.Move(card)
    capture = tuple(
        card_from_pb(c, f"{prefix}capture.cards[{i}]") for i, c in enumerate(request.capture.cards)
    )
    if len(set(capture)) != len(capture):
        raise InvalidArgument("capture names a card twice", field=f"{prefix}capture.cards")
    return rules.Move(card, capture)


def action_from_pb(action: pb.Action) -> rules.Action:
    """A TakeAction request's action to the engine's action union."""
    kind = action.WhichOneof("kind")
    if kind == "play_card":
        return move_from_pb(action.play_card, "action.play_card.")
    if kind == "declare":
        cards = tuple(
            card_from_pb(c, f"action.declare.cards[{i}]")
            for i, c in enumerate(action.declare.cards)
        )
        return rules.Declare(name=action.declare.name, cards=cards)
    if kind == "steal":
        if not action.steal.HasField("card"):
            raise InvalidArgument("card is required", field="action.steal.card")
        card = card_from_pb(action.steal.card, "action.steal.card")
        return rules.Steal(card=card, side=action.steal.side)
    if kind == "claim_sweep":
        if not action.claim_sweep.HasField("card"):
            raise InvalidArgument("card is required", field="action.claim_sweep.card")
        return rules.Claim(card=card_from_pb(action.claim_sweep.card, "action.claim_sweep.card"))
    if kind == "answer_claim":
        answer = action.answer_claim.answer
        if answer not in (pb.CLAIM_ANSWER_TRUST, pb.CLAIM_ANSWER_DOUBT):
            raise InvalidArgument(
                "answer must be CLAIM_ANSWER_TRUST or CLAIM_ANSWER_DOUBT",
                field="action.answer_claim.answer",
            )
        return rules.Answer(trust=answer == pb.CLAIM_ANSWER_TRUST)
    if kind == "build":
        return _build_from_pb(action.build)
    raise InvalidArgument(
        "action must set one kind (play_card, declare, steal, claim_sweep, answer_claim or build)",
        field="action",
    )


def _answer_pb(trust: bool) -> pb.ClaimAnswer.ValueType:
    return pb.CLAIM_ANSWER_TRUST if trust else pb.CLAIM_ANSWER_DOUBT


def _build_from_pb(build: pb.BuildAction) -> rules.Build:
    """A farm build (Scopa della fattoria): the card, the cards it goes on, the farm's value."""
    if not build.HasField("card"):
        raise InvalidArgument("card is required", field="action.build.card")
    card = card_from_pb(build.card, "action.build.card")
    # Shapes no farm has (rules.FARM_VALUES) are INVALID_ARGUMENT, not a FAILED_PRECONDITION
    # whose message would echo the whole onto list.
    values = rules.FARM_VALUES
    if build.value not in values:
        raise InvalidArgument(
            f"value must be {values[0]}..{values[-1]} (a farm's worth)", field="action.build.value"
        )
    if len(build.onto) > values[-1] - 1:
        raise InvalidArgument(
            f"onto names at most {values[-1] - 1} cards (with the card played, a farm worth"
            f" at most {values[-1]})",
            field="action.build.onto",
        )
    onto = tuple(card_from_pb(c, f"action.build.onto[{i}]") for i, c in enumerate(build.onto))
    if not onto:
        raise InvalidArgument(
            "onto must name the table card or the farm", field="action.build.onto"
        )
    if len(set(onto)) != len(onto):
        raise InvalidArgument("onto names a card twice", field="action.build.onto")
    return rules.Build(card=card, onto=onto, value=build.value)


def farm_to_pb(farm: rules.Farm) -> pb.Farm:
    """A farm on the table to its message."""
    return pb.Farm(owner=farm.owner, value=farm.value, cards=cards_to_pb(farm.cards))


def action_to_pb(action: rules.Action) -> pb.Action:
    """An engine action to its message (plays always name their capture)."""
    match action:
        case rules.Move():
            capture = pb.CaptureChoice(cards=cards_to_pb(action.capture or ()))
            return pb.Action(play_card=pb.PlayCardAction(card=_CARDS[action.card], capture=capture))
        case rules.Declare():
            declaration = pb.Declaration(name=action.name, cards=cards_to_pb(action.cards))
            return pb.Action(declare=declaration)
        case rules.Steal():
            return pb.Action(steal=pb.StealAction(card=card_to_pb(action.card), side=action.side))
        case rules.Claim():
            return pb.Action(claim_sweep=pb.ClaimSweepAction(card=_CARDS[action.card]))
        case rules.Answer():
            return pb.Action(answer_claim=pb.AnswerClaimAction(answer=_answer_pb(action.trust)))
        case rules.Build():
            build = pb.BuildAction(
                card=card_to_pb(action.card), onto=cards_to_pb(action.onto), value=action.value
            )
            return pb.Action(build=build)
        case _:
            assert_never(action)


def option_to_pb(value: Any) -> pb.OptionValue:
    """A Python option value to its message."""
    if isinstance(value, bool):
        return pb.OptionValue(bool_value=value)
    if isinstance(value, int):
        return pb.OptionValue(int_value=value)
    if isinstance(value, StrEnum):
        return pb.OptionValue(string_value=value.value)
    return pb.OptionValue(string_value=str(value))


def option_from_pb(name: str, value: pb.OptionValue) -> bool | int | str:
    """An option message to its Python value."""
    kind = value.WhichOneof("kind")
    if kind is None:
        raise InvalidArgument(f"option {name} has no value", field=f"options.{name}")
    result: bool | int | str = getattr(value, kind)
    return result


@functools.lru_cache(maxsize=256)
def _options_of(options: rules.Options) -> Mapping[str, pb.OptionValue]:
    # Built once per distinct Options: rebuilding ~40 messages cost ~40% of view_to_pb. Safe to
    # share because a message constructor copies map values in; callers must not mutate it.
    return {info.name: option_to_pb(getattr(options, info.name)) for info in rules.list_options()}


@functools.lru_cache(maxsize=256)
def _options_view(options: rules.Options) -> bytes:
    # A GameView holding only the options map (and deck size), serialized once and merged into
    # each response from its bytes: MergeFrom of the message would serialize it again first
    # (upb merges through the wire format), and ~75 OptionValue copies through the constructor
    # cost more still.
    return pb.GameView(
        options=_options_of(options), deck_size=options.deck_size
    ).SerializeToString()


def create_command(request: pb.CreateGameRequest) -> CreateGameCommand:
    """A CreateGame request to the core's command."""
    decks = [
        [card_from_pb(c, f"stacked_decks[{i}].cards[{j}]") for j, c in enumerate(d.cards)]
        for i, d in enumerate(request.stacked_decks)
    ]
    return CreateGameCommand(
        preset=request.preset,
        options={name: option_from_pb(name, v) for name, v in request.options.items()},
        seats=[SeatSpec(s.display_name, s.open, s.bot) for s in request.seats],
        first_dealer=request.first_dealer if request.HasField("first_dealer") else None,
        stacked_decks=decks,
        request_id=request.request_id,
        turn_timeout_s=request.turn_timeout_s,
        on_timeout=_TIMEOUT_ACTIONS.get(request.timeout_action, "?"),
        forfeit_after=request.forfeit_after,
        public=request.public,
        spectators_invite=request.spectators == pb.SPECTATOR_ACCESS_INVITE_ONLY,
        timeout_bot=request.timeout_bot,
        webhook_url=request.webhook.url if request.HasField("webhook") else None,
    )


@functools.lru_cache(maxsize=1024)
def _hand_result(result: rules.HandResult) -> pb.HandResult:
    # Cached by value: a game's results repeat in every later view. Callers only copy it.
    lines = [
        pb.ScoreLine(name=c.name, points=list(c.points), values=list(c.values))
        for c in result.score.components
    ]
    return pb.HandResult(
        hand_number=result.hand_number,
        lines=lines,
        totals=list(result.score.totals),
        scores=list(result.totals),
    )


def event_to_pb(versioned: VersionedEvent) -> pb.Event:
    """One (already filtered) event to its message; a ``match`` over every event kind."""
    v, e = versioned.version, versioned.event
    match e:
        case rules.HandStarted():
            started = pb.HandStarted(
                hand_number=e.hand_number, dealer=e.dealer, table=cards_to_pb(e.table)
            )
            return pb.Event(version=v, hand_started=started)
        case rules.CardsDealt():
            dealt = pb.CardsDealt(seat=e.seat, count=e.n_cards, cards=cards_to_pb(e.cards))
            return pb.Event(version=v, cards_dealt=dealt)
        case rules.CardPlayed():
            specials = dict(e.specials)
            # A dict, not a message: the Event constructor fills it in place (a message would
            # be copied through its wire format); the stubs type only a message.
            played: dict[str, Any] = dict(
                seat=e.seat,
                # a trusted claim's card is face down for this caller: no card
                card=None if e.card == rules.HIDDEN_CARD else _CARDS[e.card],
                captured=cards_to_pb(e.captured),
                sweep=e.sweep,
                picula=specials.get("picula", 0) > 0,
                bagher_points=specials.get("bagher", 0),
                specials=[pb.Special(name=n, points=p) for n, p in e.specials],
                stolen_from_side=None if e.stolen_from < 0 else e.stolen_from,
                claim=None if e.claim is None else _claim_outcome(e.claim),
                farm=None if e.farm is None else farm_to_pb(e.farm),
            )
            return pb.Event(version=v, card_played=played)  # type: ignore[arg-type]  # (a dict)
        case rules.SweepClaimed():
            claimed = pb.SweepClaimed(
                seat=e.seat, table=cards_to_pb(e.table), answering_seats=list(e.answering)
            )
            return pb.Event(version=v, sweep_claimed=claimed)
        case rules.ClaimAnswered():
            answered = pb.ClaimAnswered(seat=e.seat, answer=_answer_pb(e.trust))
            return pb.Event(version=v, claim_answered=answered)
        case rules.Declared():
            declared = pb.Declared(
                seat=e.seat, name=e.name, cards=cards_to_pb(e.cards), points=e.points
            )
            return pb.Event(version=v, declared=declared)
        case rules.LeftoverTaken():
            leftover = pb.LeftoverTaken(seat=e.seat, cards=cards_to_pb(e.cards))
            return pb.Event(version=v, leftover_taken=leftover)
        case rules.HandScored():
            return pb.Event(version=v, hand_scored=pb.HandScored(result=_hand_result(e.result)))
        case rules.GameFinished():
            finished = pb.GameFinished(
                winners=list(e.winners), reason=_FINISH[e.reason], scores=list(e.scores)
            )
            return pb.Event(version=v, game_finished=finished)
        case SeatJoined():
            return pb.Event(version=v, seat_joined=pb.SeatJoined(seat=e.seat, display_name=e.name))
        case TurnTimedOut():
            timed_out = pb.TurnTimedOut(
                seat=e.seat, timeouts=e.timeouts, forfeited=e.forfeited, bot=e.bot
            )
            return pb.Event(version=v, turn_timed_out=timed_out)
        case rules.SeatResigned():
            return pb.Event(version=v, seat_resigned=pb.SeatResigned(seat=e.seat))
        case rules.Redealt():
            redeal = pb.Redeal(reason=e.reason, table=cards_to_pb(e.table))
            return pb.Event(version=v, redeal=redeal)
        case rules.BonusScored():
            bonus = pb.BonusScored(
                seat=e.seat,
                side=e.side,
                name=e.name,
                points=e.points,
                cards=cards_to_pb(e.cards),
            )
            return pb.Event(version=v, bonus=bonus)
        case rules.AceReturned():
            # The proto's Redeal documents reason "ace_returned" with the returned ace as table.
            returned = pb.Redeal(reason="ace_returned", table=cards_to_pb([e.card]))
            return pb.Event(version=v, redeal=returned)
        case _:
            assert_never(e)


def _claim_outcome(outcome: rules.ClaimOutcome) -> pb.ClaimOutcome:
    return pb.ClaimOutcome(
        doubter_seat=None if outcome.doubter < 0 else outcome.doubter,
        genuine=outcome.genuine,
        doubter_specials=[pb.Special(name=n, points=p) for n, p in outcome.doubter_specials],
    )


def _phase(view: rules.SeatView, playing: bool) -> pb.TurnPhase | None:
    """The phase of a game someone can act in, with the claim awaiting answers (its card only in
    the claimer's view: the engine's view hides it from everyone else)."""
    if not playing:
        return None
    claim = view.claim
    if claim is None:
        return pb.TurnPhase(kind=pb.PHASE_PLAY)
    pending = pb.PendingClaim(
        seat=claim.seat,
        answering_seats=list(claim.answering),
        trusted_seats=list(claim.trusted),
        card=None if claim.card == rules.HIDDEN_CARD else _CARDS[claim.card],
    )
    return pb.TurnPhase(kind=pb.PHASE_ANSWER_CLAIM, claim=pending)


def events_to_pb(events: Iterable[VersionedEvent]) -> list[pb.Event]:
    """Several events to messages."""
    return [event_to_pb(e) for e in events]


@functools.lru_cache(maxsize=4096)
def _legal_move(move: rules.Move) -> pb.LegalMove:
    # Built once per distinct move, like _CARDS: only ever copied, never handed out or mutated.
    return pb.LegalMove(card=_CARDS[move.card], capture=cards_to_pb(move.capture or ()))


@functools.lru_cache(maxsize=4096, typed=True)  # typed: a Move and a Steal may be equal tuples
def _legal_action(action: rules.Action) -> pb.Action:
    # As _legal_move: built once per distinct action, only ever copied.
    return action_to_pb(action)


def view_to_pb(snapshot: GameSnapshot, last_events: list[pb.Event] | None = None) -> pb.GameView:
    """A caller's snapshot to the GameView message (``last_events``: already converted)."""
    message = pb.GameView(**view_fields(snapshot, last_events))
    _add_view_extras(message, snapshot)
    message.MergeFromString(_options_view(snapshot.view.options))
    return message


def lobby_to_pb(game: LobbyGame) -> pb.GameView:
    """A lobby page's game (its summary) to a GameView (see :func:`lobby_fields`)."""
    return pb.GameView(**lobby_fields(game))


def lobby_fields(game: LobbyGame) -> dict[str, Any]:
    """The GameView constructor arguments of a lobby page's game (its summary): name, preset,
    version, status, seats (names, open seats, bots), public, creation time and turn clock;
    nothing of the table. Dicts, so a ListGamesResponse built from them fills its games in
    place (a GameView message handed to it would be copied: serialized and parsed)."""
    seconds, millis = divmod(game.created_ms, 1000)
    return dict(
        name=_NAME_PREFIX + game.game_id,
        preset=game.preset,
        version=game.version,
        etag=game.etag,
        status=_STATUS[game.status],
        seats=[
            dict(seat=i, display_name=s.name, open=s.open and not s.joined, bot=s.bot)
            for i, s in enumerate(game.seats)
        ],
        public=game.public,
        turn_timeout_s=game.turn_timeout_s,
        timeout_bot=game.timeout_bot,
        create_time=dict(seconds=seconds, nanos=millis * 1_000_000) if game.created_ms else None,
        spectator_count=game.spectator_count,
        seat=game.seat,
        turn=game.turn,
    )


_Response = TypeVar("_Response", bound=Message)


def with_view(
    response: type[_Response],
    snapshot: GameSnapshot,
    last_events: list[pb.Event] | None = None,
    *,
    options: bool = True,
    results: bool = True,
    **fields: Any,
) -> _Response:
    """A response message (``fields`` and the field ``view``) holding the caller's view, built
    inside it: a GameView message handed to the constructor would be copied, and upb copies a
    message by serializing and parsing it (its options map twice), ~20% of a PlayCard's
    response.

    ``options=False`` leaves out the view's options map and deck size: the caller appends
    :func:`options_tail` to the response's wire bytes instead (parsing the map into the
    message is ~3% of a gRPC PlayCard's instructions). ``results=False`` leaves out the hand
    results likewise (:func:`results_tail`).
    """
    message = response(view=view_fields(snapshot, last_events, results), **fields)
    view = cast(pb.GameView, getattr(message, "view"))  # noqa: B009
    _add_view_extras(view, snapshot)
    if options:
        view.MergeFromString(_options_view(snapshot.view.options))
    return message


_TAILS: rules.ByIdentity[rules.Options, dict[type[Message], bytes]] = rules.ByIdentity(4096)
"""Tails by their Options object and response type: a game's Options object is the same from
play to play, and hashing it (75 fields) and comparing it in an lru_cache cost 7 us a call,
more than the rest of building the tail."""


def options_tail(response: type[Message], options: rules.Options) -> bytes:
    """The wire bytes of a ``response`` (a scopa.v1 message with a ``view``) whose view holds
    only ``options`` and the deck size.

    Appended to a response serialized without them, they make the complete response: a parser
    merges the second occurrence of the (singular, embedded) ``view`` field into the first.
    """
    kept = _TAILS.get(options)
    if kept is None:
        kept = _TAILS.put(options, {})
    tail = kept.get(response)
    if tail is None:
        tail = kept[response] = _options_tail(response.DESCRIPTOR.name, options)
    return tail


_Tails = rules.ByIdentity[Any, dict[type[Message], bytes]]
_RESULT_TAILS: _Tails = rules.ByIdentity(4096)
"""Hand results' tails by the results tuple (as _TAILS): a game's results are one tuple until a
hand ends, and they grow with the game (converting them for every view cost more each hand)."""


def results_tail(response: type[Message], results: tuple[rules.HandResult, ...]) -> bytes:
    """The wire bytes of a ``response`` (as :func:`options_tail`) whose view holds only the hand
    results ``results``; empty when there are none."""
    if not results:
        return b""
    kept = _RESULT_TAILS.get(results)
    if kept is None:
        kept = _RESULT_TAILS.put(results, {})
    tail = kept.get(response)
    if tail is None:
        view = pb.GameView(hand_results=[_hand_result(r) for r in results])
        tail = kept[response] = response(view=view).SerializeToString()
    return tail


def view_tail(response: type[Message], view: rules.SeatView) -> bytes:
    """The tail of a ``response`` built by ``with_view(..., options=False, results=False)``: the
    view's options, deck size and hand results (:func:`options_tail`, :func:`results_tail`)."""
    return options_tail(response, view.options) + results_tail(response, view.results)


def options_view(options: rules.Options) -> bytes:
    """The wire bytes of a GameView holding only ``options`` and the deck size (cached)."""
    return _options_view(options)


def results_view(results: tuple[rules.HandResult, ...]) -> bytes:
    """The wire bytes of a GameView holding only the hand results ``results``."""
    return pb.GameView(hand_results=[_hand_result(r) for r in results]).SerializeToString()


@functools.lru_cache(maxsize=256)
def _options_tail(response: str, options: rules.Options) -> bytes:
    view = pb.GameView.FromString(_options_view(options))
    data: bytes = getattr(pb, response)(view=view).SerializeToString()
    return data


def _add_view_extras(message: pb.GameView, snapshot: GameSnapshot) -> None:
    """The view's fields a constructor cannot set: the timestamps."""
    if snapshot.deadline_ms:
        message.turn_deadline.FromMilliseconds(snapshot.deadline_ms)
    if snapshot.created_ms:
        message.create_time.FromMilliseconds(snapshot.created_ms)


def view_fields(
    snapshot: GameSnapshot, last_events: list[pb.Event] | None, results: bool = True
) -> dict[str, Any]:
    """The GameView's constructor arguments (dicts fill submessages in place); ``results``: with
    the hand results."""
    view = snapshot.view
    options = view.options
    playing = snapshot.status is GameStatus.ACTIVE and view.turn >= 0
    # Submessages as dicts too: upb fills them in place, where a message would be copied in.
    sides = [
        dict(
            side=side,
            seats=[s for s, of in enumerate(view.side_of_seat) if of == side],
            score=view.scores[side],
            captured_count=view.captured_counts[side],
            sweeps=view.sweeps[side],
        )
        for side in range(options.sides)
    ]
    answering = view.turn if playing and view.claim is not None else -1
    seats = [seat_fields(snapshot, i, i == answering) for i in range(len(snapshot.seats))]
    return dict(
        name=_NAME_PREFIX + snapshot.game_id,
        preset=view.preset,
        version=snapshot.version,
        etag=snapshot.etag,
        status=_STATUS[snapshot.status],
        seat=view.seat,
        hand=[_CARD_DICTS[c] for c in view.hand],
        seats=seats,
        table=[_CARD_DICTS[c] for c in view.table],
        stock_size=view.stock_size,
        dealer=view.dealer,
        turn=view.turn if playing else None,
        hand_number=view.hand_number,
        sides=sides,
        legal_moves=[_legal_move(m) for m in view.legal_moves],
        legal_actions=[_legal_action(a) for a in view.legal_actions],
        last_events=events_to_pb(snapshot.last_events) if last_events is None else last_events,
        hand_results=[_hand_result(r) for r in view.results] if results else (),
        winners=list(view.winners),
        finish_reason=_FINISH[view.finish_reason],
        turn_timeout_s=snapshot.turn_timeout_s,
        public=snapshot.public,
        timeout_bot=snapshot.timeout_bot,
        phase=_phase(view, playing),
        farms=[farm_to_pb(f) for f in view.farms],
        rematch_game=_NAME_PREFIX + snapshot.rematch_game_id if snapshot.rematch_game_id else "",
        previous_game=(
            _NAME_PREFIX + snapshot.previous_game_id if snapshot.previous_game_id else ""
        ),
        **spectator_fields(snapshot),
    )


def rulesets_to_pb(
    presets: Iterable[rules.Preset], options: Iterable[rules.OptionInfo]
) -> pb.ListRulesetsResponse:
    """Every preset and option, for a "new game" form."""
    return pb.ListRulesetsResponse(
        rulesets=[
            pb.Ruleset(
                id=p.id,
                display_name=p.name,
                description=p.description,
                seat_counts=sorted(p.players),
                options=_options_of(p.options()),
                source=p.source,
                deck_size=p.options().deck_size,
            )
            for p in presets
        ],
        options=[
            pb.RuleOption(
                name=o.name,
                description=o.description,
                type=_OPTION_TYPES[o.type],
                default_value=option_to_pb(o.default),
                choices=[option_to_pb(c) for c in o.choices],
                source=o.source,
            )
            for o in options
        ],
    )


def token_from_metadata(
    metadata: Iterable[tuple[str, Any]] | Mapping[str, Any] | None,
) -> str | None:
    """The bearer token of the ``authorization`` metadata, or None when absent."""
    items = metadata.items() if isinstance(metadata, Mapping) else (metadata or ())
    for key, value in items:
        if key.lower() != "authorization":
            continue
        text = value.decode() if isinstance(value, bytes) else str(value)
        scheme, _, token = text.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthenticated("authorization must be 'Bearer <token>'")
        return token.strip()
    return None
