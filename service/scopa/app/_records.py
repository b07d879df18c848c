"""Idempotency records (pure): a mutating request's fingerprint, and the response the store
keeps with its ``request_id`` so that a retry gets the first response, not a second write.

A kept response is ``F`` + the request's 16-byte fingerprint + the response record of
:func:`._eventlog.encode_response` (seat, version, log entry). Responses written before the
fingerprint existed lack the prefix and are replayed without the check.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
from typing import Final

import orjson

from scopa import rules

from ._commands import CreateGameCommand
from ._errors import InvalidArgument, RequestIdReused
from ._eventlog import COMPACT, AppEvent, decode_response, encode_response

__all__ = [
    "canonical",
    "create_digest",
    "fingerprint",
    "frame_response",
    "replay",
    "replayed_seat",
]

_FINGERPRINTED: Final = b"F"
"""Marks a cached response that starts with the fingerprint of its request (16 bytes)."""


def fingerprint(rpc: str, *arguments: str) -> bytes:
    """A digest of a mutating request (the RPC and its arguments), stored with its response:
    of their compact JSON with non-ASCII text escaped (``COMPACT``), which orjson writes for
    printable ASCII text, 15 times faster (a retry may reach a replica of another release: the
    digest of one request never changes; json also escapes DEL, orjson does not)."""
    listed = [rpc, *arguments]
    data = orjson.dumps(listed)
    if not data.isascii() or b"\x7f" in data:
        data = COMPACT.encode(listed).encode()
    return hashlib.sha256(data).digest()[:16]


@functools.lru_cache(maxsize=4096, typed=True)  # typed: a Move and a Steal may be equal tuples
def canonical(action: rules.Action) -> str:
    """An action as text, the capture order normalised (it is a set of table cards); kept per
    distinct action (a game's moves repeat across games: one card, one capture)."""
    if isinstance(action, rules.Move):
        capture = None if action.capture is None else sorted(action.capture)
        return json.dumps(["move", action.card, capture])
    return repr(action)


def create_digest(cmd: CreateGameCommand, owner: str = "") -> bytes:
    """A digest of everything a CreateGame asked for (and by which signed-in ``owner``), to
    recognise its retries."""
    text = json.dumps(
        [
            cmd.preset,
            sorted(cmd.options.items()),
            # A bot level only when set, so digests of person-only creates stay as they were.
            [[seat.name, seat.open, *([seat.bot] if seat.bot else [])] for seat in cmd.seats],
            cmd.first_dealer,
            [list(deck) for deck in cmd.stacked_decks],
            # The clock and the lobby only when set, so earlier digests stay as they were.
            *(
                [[cmd.turn_timeout_s, cmd.on_timeout, cmd.forfeit_after, cmd.public]]
                if cmd.turn_timeout_s or cmd.public
                else []
            ),
            *([cmd.timeout_bot] if cmd.timeout_bot else []),
            # The creator only when signed in, so earlier digests stay as they were.
            *([["owner", owner]] if owner else []),
        ],
        separators=(",", ":"),
    )
    return b"create:" + hashlib.sha256(text.encode()).hexdigest().encode()


def frame_response(fingerprint: bytes, seat: int, version: int, log: bytes) -> bytes:
    """The response kept with a request id: its fingerprint, then the response record (without
    the state: the store keeps the state of that version for as long as the response)."""
    return _FINGERPRINTED + fingerprint + encode_response(seat, version, log)


def _unframed(cached: bytes, fingerprint: bytes) -> bytes:
    """The response record of ``cached``; REQUEST_ID_REUSED when it answered another request."""
    if cached.startswith(_FINGERPRINTED):
        size = len(_FINGERPRINTED) + len(fingerprint)
        if not hmac.compare_digest(cached[len(_FINGERPRINTED) : size], fingerprint):
            raise RequestIdReused("request_id was already used for another request")
        return cached[size:]
    return cached


def replayed_seat(cached: bytes, fingerprint: bytes) -> int:
    """The seat a cached JoinGame response was for (REQUEST_ID_REUSED for another request)."""
    return decode_response(_unframed(cached, fingerprint))[0]


def replay(
    seat: int, cached: bytes, cached_state: bytes | None, fingerprint: bytes
) -> tuple[int, rules.MatchState, list[AppEvent]]:
    """The version, state and events of the first response to a retried request, from the
    cached response and the state of its version (kept by the store, or inside a response of
    an earlier build)."""
    first_seat, version, state_blob, events = decode_response(_unframed(cached, fingerprint))
    if first_seat != seat:
        raise InvalidArgument("request_id was already used by another seat", field="request_id")
    state_blob = state_blob if state_blob is not None else cached_state
    if state_blob is None:
        raise rules.InvalidState("a cached response without the state of its version")
    return version, rules.load_state(state_blob), events
