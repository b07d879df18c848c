"""The events a game's log holds, and the byte format of its entries and cached responses.

A log entry is one version's events: the rules' (``scopa.rules.event_records``) and the
service's own (a seat joined, a turn clock ran out), written as one compact JSON object raw-
deflated with a preset dictionary (kind ``B``); entries of earlier builds (``A``, ``J``, ``R``)
are read as they were written. A cached response (a request_id's answer) is the seat, the
version and that version's entry. Pure: no I/O.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from typing import Any, Final, NamedTuple

import orjson

from scopa import rules

from ._codec import is_keyed, pack, unpack

__all__ = [
    "COMPACT",
    "AppEvent",
    "SeatJoined",
    "TurnTimedOut",
    "VersionedEvent",
    "decode_log",
    "decode_response",
    "encode_log",
    "encode_response",
    "entry_records",
    "log_records",
    "visible",
]


class SeatJoined(NamedTuple):
    """An open seat was claimed."""

    seat: int
    name: str


class TurnTimedOut(NamedTuple):
    """A person's turn clock ran out; the events after it in its version are what followed."""

    seat: int
    timeouts: int
    """The seat's timeouts so far, this one included."""
    forfeited: bool
    """This timeout resigns the seat (the seat's ``SeatResigned`` and ``GameFinished`` follow)."""
    bot: str
    """The bot level that plays the seat's turn; empty when the seat forfeits."""


AppEvent = rules.Event | SeatJoined | TurnTimedOut
_APP_EVENTS: Final = (SeatJoined, TurnTimedOut)
"""The events the service adds to the rules' (public to every seat)."""


class VersionedEvent(NamedTuple):
    """An event as the caller may see it, with the game version that produced it."""

    version: int
    event: AppEvent


# --- log entries --------------------------------------------------------------------


_LOG: Final = b"B"
"""Log entries since the compact format: ``B`` + raw deflate (no zlib header or checksum), with
the preset dictionary :data:`_LOG_DICT`, of the JSON ``{"v": <rules format>, "e": [records]}``:
the engine's records (``rules.event_records``) and ``seat_joined`` records in the order they
happened. Still read: ``A`` + zlib of the same JSON (the keyed format, without a dictionary) and
format 1 (``J`` + joins, ``R`` + ``rules.dump_events``)."""

_LOG_ZLIB: Final = b"A"

_LOG_DICT: Final = (
    b'{"t":"seat_resigned","seat":0}'
    b'{"t":"redealt","hand_number":1,"reason":"kings","table":[]}'
    b'{"t":"ace_returned","card":0}'
    b'{"t":"declared","seat":0,"name":"","cards":[],"points":0}'
    b'{"t":"game_finished","winners":[0],"reason":"target","scores":[0,0]}'
    b'{"t":"hand_scored","result":{"hand_number":1,"components":[["sweeps",[0,1],[0.0,0.0]],'
    b'["cards",[0,1],[20.0,20.0]],["denari",[0,1],[5.0,5.0]],["primiera",[0,1],[0.0,0.0]],'
    b'["settebello",[0,1],[0.0,1.0]]],"hand_totals":[0,1],"napoleone":[false,false],'
    b'"totals":[0,1]}}'
    b'{"t":"leftover_taken","seat":0,"cards":[]}'
    b'{"v":3,"e":[{"t":"hand_started","hand_number":1,"dealer":1,"table":[]},'
    b'{"t":"cards_dealt","seat":0,"n_cards":3,"cards":[]},'
    b'{"t":"cards_dealt","seat":1,"n_cards":3,"cards":[]}]}'
    b'{"v":3,"e":[{"t":"seat_joined","seat":1,"name":""}]}'
    b'{"v":3,"e":[{"t":"card_played","seat":1,"card":0,"captured":[],"taken":false,'
    b'"sweep":false,"specials":[]}]}'
    b'{"v":3,"e":[{"t":"card_played","seat":0,"card":0,"captured":[],"taken":true,'
    b'"sweep":false,"specials":[]}]}'
)
"""The preset dictionary of ``B`` entries: the records' usual text, the most frequent last. It is
part of the format: changing it needs a new entry prefix (old entries keep theirs)."""


_BODY_HEAD: Final = b'{"v":%d,"e":[' % rules.FORMAT_VERSION


def encode_log(events: Sequence[AppEvent]) -> bytes:
    """One log entry holding ``events`` in order, joins and engine events alike. Its JSON is
    ``{"v": FORMAT_VERSION, "e": log_records(events)}`` as orjson writes it, an engine event's
    record from its kept text (:func:`rules.event_text`)."""
    texts = [
        orjson.dumps(log_records([e])[0])
        if isinstance(e, (SeatJoined, TurnTimedOut))
        else rules.event_text(e)
        for e in events
    ]
    body = _BODY_HEAD + b",".join(texts) + b"]}"
    deflate = _LOG_DEFLATE.copy()
    return _LOG + deflate.compress(body) + deflate.flush()


def log_records(events: Sequence[AppEvent]) -> list[dict[str, Any]]:
    """``events`` as the JSON records of a log entry (and of a game's archived record)."""
    records: list[dict[str, Any]] = []
    for event in events:
        if isinstance(event, SeatJoined):
            records.append({"t": "seat_joined", "seat": event.seat, "name": event.name})
        elif isinstance(event, TurnTimedOut):
            records.append(
                {
                    "t": "turn_timed_out",
                    "seat": event.seat,
                    "timeouts": event.timeouts,
                    "forfeited": event.forfeited,
                    "bot": event.bot,
                }
            )
        else:
            records.extend(rules.event_records([event]))
    return records


_LOG_DEFLATE: Final = zlib.compressobj(9, zlib.DEFLATED, -12, 2, zdict=_LOG_DICT)
"""The ``B`` entries' compressor with :data:`_LOG_DICT` already loaded, copied for each entry:
a new compressor per entry cleared a 64 KB hash table and hashed the dictionary again (about
three quarters of an entry's cost). A 4 KB window and a small hash table (``memLevel`` 2)
write the same bytes as the defaults on the entries of recorded matches (8,076 entries of five
presets, up to 923 bytes of JSON); a larger entry may be cut into more blocks, and any
raw-deflate reader with the dictionary reads every one."""


def _inflate_log(payload: bytes) -> bytes:
    """The JSON of a ``B`` (or ``A``) entry."""
    if payload[:1] == _LOG_ZLIB:
        return zlib.decompress(payload[1:])
    inflate = zlib.decompressobj(-zlib.MAX_WBITS, zdict=_LOG_DICT)
    body = inflate.decompress(payload[1:]) + inflate.flush()
    if not inflate.eof:
        raise zlib.error("truncated log entry")
    return body


def decode_log(payload: bytes) -> list[AppEvent]:
    """The events of one log entry, of this or an earlier format."""
    kind = payload[:1]
    if kind == b"J":
        return [SeatJoined(seat, name) for seat, name in orjson.loads(payload[1:])]
    if kind == b"R":
        return list(rules.load_events(payload[1:]))
    if kind not in (_LOG, _LOG_ZLIB):
        # Only releases of this service write entries, each kind with its own prefix: an unknown
        # one is a newer release's.
        raise rules.FormatTooNew(
            f"this game's event log has an entry of kind {kind!r}, written by a newer release "
            "of the server. Retry: another replica can serve it",
            metadata={"log_entry": kind.hex()},
        )
    try:
        body = orjson.loads(_inflate_log(payload))
        records, version = body["e"], body["v"]
        engine = [r for r in records if r["t"] not in _APP_RECORDS]
        decoded = iter(rules.events_from_records(engine, version))
        return [_app_event(r) if r["t"] in _APP_RECORDS else next(decoded) for r in records]
    except (zlib.error, ValueError, TypeError, KeyError) as exc:
        raise rules.InvalidState("corrupt log entry") from exc


_APP_RECORDS: Final = frozenset({"seat_joined", "turn_timed_out"})


def entry_records(payload: bytes) -> list[dict[str, Any]]:
    """The JSON records of one log entry as this release writes them (:func:`log_records`):
    an entry of this format as it is stored (a fifth of the cost of decoding its events and
    writing them again), one of an earlier format decoded and written again."""
    if payload[:1] in (_LOG, _LOG_ZLIB):
        try:
            body = orjson.loads(_inflate_log(payload))
        except (zlib.error, ValueError) as exc:
            raise rules.InvalidState("corrupt log entry") from exc
        if body.get("v") == rules.FORMAT_VERSION:
            records: list[dict[str, Any]] = body["e"]
            return records
    return log_records(decode_log(payload))


def _app_event(record: dict[str, Any]) -> AppEvent:
    """A service event of a log entry (a join or a timeout)."""
    if record["t"] == "seat_joined":
        return SeatJoined(record["seat"], record["name"])
    return TurnTimedOut(record["seat"], record["timeouts"], record["forfeited"], record["bot"])


def visible(events: Sequence[AppEvent], seat: int | None) -> list[AppEvent]:
    """``events`` as ``seat`` may see them: joins and timeouts are public, the rules hide the
    rest."""
    return [e if isinstance(e, _APP_EVENTS) else rules.visible_event(e, seat) for e in events]


COMPACT: Final = json.JSONEncoder(separators=(",", ":"))
"""json.dumps(..., separators=(",", ":")) without building an encoder per call."""


def encode_response(seat: int, version: int, log: bytes) -> bytes:
    """The cached answer to a request_id: seat, version and the encoded events (the state of
    that version is the store's to keep: ``Snapshot.cached_state``)."""
    return pack({"seat": seat, "version": version}, {"log": log})


def decode_response(blob: bytes) -> tuple[int, int, bytes | None, list[AppEvent]]:
    """Seat, version, the state if the response carries it (earlier builds' do), events."""
    if not is_keyed(blob):  # format 1: a 2-byte length, a JSON head, the state, the log
        size = int.from_bytes(blob[:2], "big")
        seat, version, state_len = json.loads(blob[2 : 2 + size])
        rest = blob[2 + size :]
        return seat, version, rest[:state_len], decode_log(rest[state_len:])
    record, blobs = unpack(blob)
    try:
        return record["seat"], record["version"], blobs.get("state"), decode_log(blobs["log"])
    except KeyError as exc:
        raise rules.InvalidState("corrupt cached response") from exc
