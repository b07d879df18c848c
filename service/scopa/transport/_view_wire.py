"""A caller's view in the protobuf wire format, written field by field from the snapshot.

The bytes of the GameView that ``with_view(..., options=False, results=False)`` builds (the
options, deck size and hand results are the tails of :mod:`._convert`), from the same values as
:func:`._convert.view_fields`, without building a message: each field's key comes from the
GameView descriptor, scalars are encoded here, and each element of a repeated field (a card, a
seat, a side, a legal move or action, a farm) is encoded once by upb, from the constructor
arguments ``view_fields`` would give, and its bytes kept by the values it is made from. Those
recur from move to move, so a view is mostly joined, not encoded: upb building the whole
message from dicts was most of a gRPC PlayCard's response and of a realtime view patch.

``tests/transport/test_view_wire.py`` checks these bytes equal upb's for every preset's views
through whole games, with presence and a turn clock: a field added to ``view_fields`` and not
here fails it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Final

from google.protobuf.message import Message

from scopa import rules
from scopa.app import GameSnapshot, GameStatus, PlayResult, VersionedEvent, varint
from scopa_client.v1 import scopa_pb2 as pb

from ._convert import (
    _FINISH,
    _NAME_PREFIX,
    _STATUS,
    _legal_action,
    _legal_move,
    _phase,
    card_to_pb,
    event_to_pb,
    farm_to_pb,
    view_tail,
)
from ._convert_presence import seat_args, seat_kwargs

__all__ = ["action_response_wire", "event_bytes", "framed", "view_wire", "view_wire_fields"]

_SMALL: Final = tuple(varint(n) for n in range(1 << 14))
"""The varints of 0 to 16383 (one or two bytes), made once: most lengths and values."""


def _varint(value: int) -> bytes:
    return _SMALL[value] if 0 <= value < 16384 else varint(value)


def _signed(value: int) -> bytes:
    """An int32/enum value as upb writes it: a negative one in 10 bytes (two's complement)."""
    return _varint(value) if value >= 0 else varint(value + (1 << 64))


def framed(key: bytes, data: bytes) -> bytes:
    """A length-delimited field's element: its key, the length of ``data``, ``data``."""
    return key + _varint(len(data)) + data


def _text(key: bytes, text: str) -> bytes:
    return framed(key, text.encode())


_NUMBERS: Final = {f.name: f.number for f in pb.GameView.DESCRIPTOR.fields}


def _number(name: str) -> int:
    return _NUMBERS[name]


def _key(name: str, wire_type: int) -> bytes:
    """The field's key on the wire (wire type 0: varint, 2: length-delimited)."""
    return varint(_NUMBERS[name] << 3 | wire_type)


_NAME: Final = _number("name")
_K_NAME: Final = _key("name", 2)
_PRESET: Final = _number("preset")
_K_PRESET: Final = _key("preset", 2)
_VERSION: Final = _number("version")
_K_VERSION: Final = _key("version", 0)
_ETAG: Final = _number("etag")
_K_ETAG: Final = _key("etag", 2)
_STATUS_N: Final = _number("status")
_K_STATUS: Final = _key("status", 0)
_SEAT: Final = _number("seat")
_K_SEAT: Final = _key("seat", 0)
_HAND: Final = _number("hand")
_K_HAND: Final = _key("hand", 2)
_SEATS: Final = _number("seats")
_K_SEATS: Final = _key("seats", 2)
_TABLE: Final = _number("table")
_K_TABLE: Final = _key("table", 2)
_STOCK: Final = _number("stock_size")
_K_STOCK: Final = _key("stock_size", 0)
_DEALER: Final = _number("dealer")
_K_DEALER: Final = _key("dealer", 0)
_TURN: Final = _number("turn")
_K_TURN: Final = _key("turn", 0)
_HAND_NUMBER: Final = _number("hand_number")
_K_HAND_NUMBER: Final = _key("hand_number", 0)
_SIDES: Final = _number("sides")
_K_SIDES: Final = _key("sides", 2)
_MOVES: Final = _number("legal_moves")
_K_MOVES: Final = _key("legal_moves", 2)
_EVENTS: Final = _number("last_events")
_K_EVENTS: Final = _key("last_events", 2)
_WINNERS: Final = _number("winners")
_K_WINNERS: Final = _key("winners", 2)  # packed
_FINISH_N: Final = _number("finish_reason")
_K_FINISH: Final = _key("finish_reason", 0)
_ACTIONS: Final = _number("legal_actions")
_K_ACTIONS: Final = _key("legal_actions", 2)
_DEADLINE: Final = _number("turn_deadline")
_K_DEADLINE: Final = _key("turn_deadline", 2)
_TIMEOUT: Final = _number("turn_timeout_s")
_K_TIMEOUT: Final = _key("turn_timeout_s", 0)
_PUBLIC: Final = _number("public")
_K_PUBLIC: Final = _key("public", 0)
_CREATED: Final = _number("create_time")
_K_CREATED: Final = _key("create_time", 2)
_PHASE: Final = _number("phase")
_K_PHASE: Final = _key("phase", 2)
_FARMS: Final = _number("farms")
_K_FARMS: Final = _key("farms", 2)
_BOT: Final = _number("timeout_bot")
_K_BOT: Final = _key("timeout_bot", 2)
_REMATCH: Final = _number("rematch_game")
_K_REMATCH: Final = _key("rematch_game", 2)
_PREVIOUS: Final = _number("previous_game")
_K_PREVIOUS: Final = _key("previous_game", 2)
_WATCHERS: Final = _number("spectator_count")
_K_WATCHERS: Final = _key("spectator_count", 0)
_ACCESS: Final = _number("spectators")
_K_ACCESS: Final = _key("spectators", 0)
_SPECTATE: Final = _number("spectator_token")
_K_SPECTATE: Final = _key("spectator_token", 2)

_CARDS: Final = tuple(card_to_pb(card).SerializeToString() for card in range(rules.MAX_CARD))
_HAND_CARDS: Final = tuple(framed(_K_HAND, card) for card in _CARDS)
_TABLE_CARDS: Final = tuple(framed(_K_TABLE, card) for card in _CARDS)

_KEPT_LIMIT: Final = 8192
"""Kept elements per kind; when full, the kept ones are dropped at once (a view's elements are
few and recur, so they come back with the next views)."""
_KEPT: Final[dict[Hashable, bytes]] = {}
"""Each element's bytes (its key and length included) by its field and the values it is made
from."""


def _kept(key: Hashable) -> bytes | None:
    return _KEPT.get(key)


def _keep(key: Hashable, data: bytes) -> bytes:
    if len(_KEPT) >= _KEPT_LIMIT:
        _KEPT.clear()
    _KEPT[key] = data
    return data


def _serialized(message: Message) -> bytes:
    data: bytes = message.SerializeToString()
    return data


def _timestamp(key: bytes, ms: int) -> bytes:
    """A Timestamp field as ``FromMilliseconds(ms)`` sets it (kept: a game's creation time is
    in every view, a deadline in every view of its turn)."""
    kept = _kept((key, ms))
    if kept is not None:
        return kept
    seconds, millis = divmod(ms, 1000)
    data = b"\x08" + _signed(seconds) if seconds else b""
    if millis:
        data += b"\x10" + _varint(millis * 1_000_000)
    return _keep((key, ms), framed(key, data))


_EVENT_LIMIT: Final = 8192
_EVENTS_KEPT: Final[dict[object, bytes]] = {}
"""Events' bytes without their version, by the event's kind and value: each seat's realtime
session sends the same events of a move, and a play's event recurs from game to game (a
hidden card aside: those differ by value)."""
_K_EVENT_VERSION: Final = b"\x08"
"""Event.version (field 1, a varint): first on the wire, before the event's kind."""


def event_bytes(versioned: VersionedEvent) -> bytes:
    """An event's wire bytes (an Event message's): its version, then its kind's bytes, kept
    by the event's kind and value (events are tuples: two kinds of one field are equal
    tuples)."""
    event = versioned.event
    key = (type(event), event)
    try:
        data = _EVENTS_KEPT.get(key)
    except TypeError:  # some part is not hashable: not kept
        return _serialized(event_to_pb(versioned))
    if data is None:
        if len(_EVENTS_KEPT) >= _EVENT_LIMIT:
            _EVENTS_KEPT.clear()
        data = _EVENTS_KEPT[key] = _serialized(event_to_pb(VersionedEvent(0, event)))
    version = versioned.version
    return _K_EVENT_VERSION + _signed(version) + data if version else data


def _seats(snapshot: GameSnapshot, view: rules.SeatView, playing: bool) -> bytes:
    """The seats, each from ``seat_args``' values and kept by them."""
    answering = view.turn if playing and view.claim is not None else -1
    parts = []
    for i in range(len(snapshot.seats)):
        args = seat_args(snapshot, i, i == answering)
        key = (_SEATS, args)
        data = _kept(key)
        if data is None:
            data = _keep(key, framed(_K_SEATS, _serialized(pb.SeatInfo(**seat_kwargs(args)))))
        parts.append(data)
    return b"".join(parts)


def _sides(view: rules.SeatView) -> bytes:
    parts = []
    for side in range(view.options.sides):
        score, captured, sweeps = view.scores[side], view.captured_counts[side], view.sweeps[side]
        key = (_SIDES, side, view.side_of_seat, score, captured, sweeps)
        data = _kept(key)
        if data is None:
            info = pb.SideInfo(
                side=side,
                seats=[s for s, of in enumerate(view.side_of_seat) if of == side],
                score=score,
                captured_count=captured,
                sweeps=sweeps,
            )
            data = _keep(key, framed(_K_SIDES, _serialized(info)))
        parts.append(data)
    return b"".join(parts)


def _joined(
    number: int, key: bytes, items: tuple[Hashable, ...], encode: Callable[[Any], Message]
) -> bytes:
    """A repeated field's elements, each ``encode(item)``'s bytes kept by the item's kind and
    value (typed: a Move and a Steal may be equal tuples)."""
    parts = []
    for item in items:
        kept_key = (number, type(item), item)
        data = _kept(kept_key)
        if data is None:
            data = _keep(kept_key, framed(key, _serialized(encode(item))))
        parts.append(data)
    return b"".join(parts)


def _phase_bytes(view: rules.SeatView) -> bytes:
    key = (_PHASE, view.claim)
    data = _kept(key)
    if data is None:
        phase = _phase(view, True)
        assert phase is not None
        data = _keep(key, framed(_K_PHASE, _serialized(phase)))
    return data


def view_wire_fields(snapshot: GameSnapshot, last_events: list[bytes] | None) -> dict[int, bytes]:
    """Each present field of the view's GameView (without options, deck size and hand
    results) as its wire bytes, by number, in number order. ``last_events``: each of the view's
    last events already serialized (an Event's bytes), or None to convert them here."""
    view = snapshot.view
    playing = snapshot.status is GameStatus.ACTIVE and view.turn >= 0
    out: dict[int, bytes] = {_NAME: _text(_K_NAME, _NAME_PREFIX + snapshot.game_id)}
    if view.preset:
        out[_PRESET] = _text(_K_PRESET, view.preset)
    if snapshot.version:
        out[_VERSION] = _K_VERSION + _signed(snapshot.version)
    if snapshot.etag:
        out[_ETAG] = _text(_K_ETAG, snapshot.etag)
    status = _STATUS[snapshot.status]
    if status:
        out[_STATUS_N] = _K_STATUS + _signed(status)
    if view.seat is not None:
        out[_SEAT] = _K_SEAT + _signed(view.seat)
    if view.hand:
        out[_HAND] = b"".join([_HAND_CARDS[card] for card in view.hand])
    if snapshot.seats:
        out[_SEATS] = _seats(snapshot, view, playing)
    if view.table:
        out[_TABLE] = b"".join([_TABLE_CARDS[card] for card in view.table])
    if view.stock_size:
        out[_STOCK] = _K_STOCK + _signed(view.stock_size)
    if view.dealer:
        out[_DEALER] = _K_DEALER + _signed(view.dealer)
    if playing:
        out[_TURN] = _K_TURN + _signed(view.turn)
    if view.hand_number:
        out[_HAND_NUMBER] = _K_HAND_NUMBER + _signed(view.hand_number)
    if view.options.sides:
        out[_SIDES] = _sides(view)
    if view.legal_moves:
        out[_MOVES] = _joined(_MOVES, _K_MOVES, view.legal_moves, _legal_move)
    if last_events is None:
        last_events = [event_bytes(e) for e in snapshot.last_events]
    if last_events:
        out[_EVENTS] = b"".join([framed(_K_EVENTS, e) for e in last_events])
    if view.winners:
        out[_WINNERS] = framed(_K_WINNERS, b"".join([_signed(w) for w in view.winners]))
    finish = _FINISH[view.finish_reason]
    if finish:
        out[_FINISH_N] = _K_FINISH + _signed(finish)
    if view.legal_actions:
        out[_ACTIONS] = _joined(_ACTIONS, _K_ACTIONS, view.legal_actions, _legal_action)
    if snapshot.deadline_ms:
        out[_DEADLINE] = _timestamp(_K_DEADLINE, snapshot.deadline_ms)
    if snapshot.turn_timeout_s:
        out[_TIMEOUT] = _K_TIMEOUT + _signed(snapshot.turn_timeout_s)
    if snapshot.public:
        out[_PUBLIC] = _K_PUBLIC + b"\x01"
    if snapshot.created_ms:
        out[_CREATED] = _timestamp(_K_CREATED, snapshot.created_ms)
    if playing:
        out[_PHASE] = _phase_bytes(view)
    if view.farms:
        out[_FARMS] = _joined(_FARMS, _K_FARMS, view.farms, farm_to_pb)
    if snapshot.timeout_bot:
        out[_BOT] = _text(_K_BOT, snapshot.timeout_bot)
    if snapshot.rematch_game_id:
        out[_REMATCH] = _text(_K_REMATCH, _NAME_PREFIX + snapshot.rematch_game_id)
    if snapshot.previous_game_id:
        out[_PREVIOUS] = _text(_K_PREVIOUS, _NAME_PREFIX + snapshot.previous_game_id)
    if snapshot.presence is not None:
        out[_WATCHERS] = _K_WATCHERS + _signed(snapshot.presence.spectators)
    access = (
        pb.SPECTATOR_ACCESS_INVITE_ONLY
        if snapshot.spectators_invite
        else pb.SPECTATOR_ACCESS_PUBLIC
    )
    if access:
        out[_ACCESS] = _K_ACCESS + _signed(access)
    if snapshot.spectator_token:
        out[_SPECTATE] = _text(_K_SPECTATE, snapshot.spectator_token)
    return out


def view_wire(snapshot: GameSnapshot, last_events: list[bytes] | None = None) -> bytes:
    """The wire bytes of the view's GameView without options, deck size and hand results:
    those of ``with_view``'s view field (see :func:`view_wire_fields`)."""
    return b"".join(view_wire_fields(snapshot, last_events).values())


_RESPONSE_KEYS: Final[dict[type[Message], tuple[bytes, bytes]]] = {}


def _response_keys(response: type[Message]) -> tuple[bytes, bytes]:
    """The keys of ``response``'s fields ``events`` and ``view``."""
    keys = _RESPONSE_KEYS.get(response)
    if keys is None:
        fields = response.DESCRIPTOR.fields_by_name
        events, view = fields["events"].number, fields["view"].number
        keys = _RESPONSE_KEYS[response] = (varint(events << 3 | 2), varint(view << 3 | 2))
    return keys


def action_response_wire(response: type[Message], result: PlayResult) -> bytes:
    """The complete wire bytes of ``response`` (PlayCard's or TakeAction's) for an action's
    result: its events, then its view with the options and hand results tail."""
    events_key, view_key = _response_keys(response)
    events = [event_bytes(e) for e in result.events]
    snapshot = result.snapshot
    latest = snapshot.last_events is result.events  # the view's last events: the same bytes
    view = view_wire(snapshot, events if latest else None)
    written = b"".join([framed(events_key, e) for e in events])
    return written + framed(view_key, view) + view_tail(response, snapshot.view)
