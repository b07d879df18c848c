"""Tests of scopa.app._codec: the keyed, versioned format of meta and cached responses."""

from __future__ import annotations

import pytest

from scopa.app._codec import FORMAT, is_keyed, pack, unpack
from scopa.rules import InvalidState


def test_records_and_blobs_round_trip() -> None:
    """A keyed record and its named byte blobs come back as written, in order."""
    blob = pack({"seat": 1, "name": "Bea"}, {"state": b"\x00\x01", "log": b"", "x": b"zz"})
    assert blob[0] == FORMAT and is_keyed(blob)
    assert unpack(blob) == (
        {"seat": 1, "name": "Bea"},
        {"state": b"\x00\x01", "log": b"", "x": b"zz"},
    )


def test_format_1_layouts_are_not_keyed() -> None:
    """Format-1 meta and responses start with a zero length byte; only they are not keyed."""
    assert not is_keyed(b"\x00\x00\x00\x05[1,2]")
    assert not is_keyed(b"")


@pytest.mark.parametrize(
    "blob",
    [
        b"",
        b"\x01rest",
        bytes([FORMAT]) + b"\x00\x00\x00\x02{}",
        bytes([FORMAT]) + b"\x00\x00\x00\x09not json!",
        pack({"a": 1}, {"b": b"123"})[:-1],
        pack({"a": 1}, {"b": b"123"}) + b"!",
    ],
)
def test_corrupt_records_raise_invalid_state(blob: bytes) -> None:
    """A wrong format byte, bad JSON, missing blob table or wrong length is INVALID_STATE."""
    with pytest.raises(InvalidState):
        unpack(blob)
