"""One keyed, versioned byte format for what the service stores beside the rules' blobs.

``pack(record, blobs)`` writes one format byte (:data:`FORMAT`), a 4-byte big-endian length, the
JSON of the keyed ``record`` (plus ``"blobs": {name: length}``), then the named byte blobs in that
order (state and event-log bytes stay as they are, no base64). :func:`unpack` reads it back.
Used for the game meta and the responses cached per ``request_id``; their format-1 layouts
(no format byte: a length prefix whose first byte is 0) are still read by their own readers.
A format above :data:`FORMAT` (a newer release's) raises ``FormatTooNew``.
"""

from __future__ import annotations

from typing import Any, Final

import orjson

from scopa.rules import FormatTooNew, InvalidState

__all__ = ["FORMAT", "is_keyed", "pack", "unpack"]

FORMAT: Final = 2
"""The current format; 1 was the unversioned, positional layout."""

_HEAD: Final = 5


def is_keyed(blob: bytes) -> bool:
    """Whether ``blob`` is in a keyed format (format 1 blobs start with a zero length byte)."""
    return bool(blob) and blob[0] >= FORMAT


def pack(record: dict[str, Any], blobs: dict[str, bytes] | None = None) -> bytes:
    """``record`` (JSON-ready, keyed) and the named ``blobs`` as one versioned byte string."""
    parts = blobs or {}
    head = {**record, "blobs": {name: len(data) for name, data in parts.items()}}
    text = orjson.dumps(head)
    return bytes([FORMAT]) + len(text).to_bytes(4, "big") + text + b"".join(parts.values())


def unpack(blob: bytes) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The record and the named blobs of a :func:`pack` result; InvalidState when corrupt."""
    if blob and blob[0] > FORMAT:
        raise FormatTooNew.of("stored record", blob[0], FORMAT)
    if not blob or blob[0] != FORMAT:
        raise InvalidState("unknown stored format")
    try:
        size = int.from_bytes(blob[1:_HEAD], "big")
        record = orjson.loads(blob[_HEAD : _HEAD + size])
        at = _HEAD + size
        blobs: dict[str, bytes] = {}
        for name, length in record.pop("blobs").items():
            blobs[name] = bytes(blob[at : at + length])
            at += length
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise InvalidState("corrupt stored record") from exc
    if at != len(blob) or not isinstance(record, dict):
        raise InvalidState("corrupt stored record")
    return record, blobs
