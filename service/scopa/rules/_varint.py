"""Protobuf-style varints: the length prefix of a stored payload's first part
(:mod:`._compress`), and the wire pieces the service writes and splits (``scopa.app._wire``)."""

from __future__ import annotations

from typing import Final

__all__ = ["read_varint", "varint"]

_MAX_BYTES: Final = 10
"""A 64-bit value's longest varint."""


def varint(value: int) -> bytes:
    """``value`` (>= 0) as a varint."""
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    """The varint at ``pos`` and the position after it; ValueError when ``data`` ends inside
    it or it runs past 10 bytes."""
    value = shift = 0
    for at in range(pos, min(len(data), pos + _MAX_BYTES)):
        byte = data[at]
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at + 1
        shift += 7
    raise ValueError(f"no whole varint at byte {pos}")
