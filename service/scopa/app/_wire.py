"""Protobuf wire-format pieces the transports' frames are written from, pure so they compile:
a varint (:func:`scopa.rules.varint`, which the stored format uses too), and a message's bytes
split by top-level field (a session's view patches compare a view's fields by their bytes,
:mod:`scopa.transport._view_patch`)."""

from __future__ import annotations

from scopa.rules import read_varint, varint

__all__ = ["split_fields", "varint"]


def split_fields(data: bytes) -> dict[int, bytes]:
    """A message's wire bytes by top-level field number: each field's keys and values (every
    element of a repeated or map field, in order), as the message's serialization has them."""
    fields: dict[int, bytes] = {}
    pos, end = 0, len(data)
    run, start = -1, 0
    while pos < end:
        at = pos
        key, pos = read_varint(data, pos)
        wire = key & 7
        if wire == 2:
            length, pos = read_varint(data, pos)
            pos += length
        elif wire == 0:
            _, pos = read_varint(data, pos)
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        else:
            raise ValueError(f"wire type {wire} at byte {at}")
        number = key >> 3
        if number != run:
            if run >= 0:
                fields[run] = fields.get(run, b"") + data[start:at]
            run, start = number, at
    if pos != end:
        raise ValueError("the wire bytes end inside a field")
    if run >= 0:
        fields[run] = fields.get(run, b"") + data[start:end]
    return fields
