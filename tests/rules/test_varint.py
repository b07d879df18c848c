"""Varints (scopa.rules._varint): the stored format's length prefix and the wire's."""

from __future__ import annotations

import pytest

from scopa.rules import read_varint, varint
from scopa_client.v1 import scopa_pb2 as pb


@pytest.mark.parametrize("value", [0, 1, 127, 128, 300, 16_383, 16_384, 2**31, 2**64 - 1])
def test_a_varint_reads_back_and_is_protobufs(value: int) -> None:
    data = b"\xff" + varint(value) + b"tail"
    assert read_varint(data, 1) == (value, len(data) - 4)
    if 0 < value < 2**31:  # an int32 field as upb writes it
        assert b"\x08" + varint(value) == pb.SeatInfo(seat=value).SerializeToString()


@pytest.mark.parametrize("data", [b"", b"\x80", b"\xff\xff", b"\xff" * 11])
def test_a_cut_or_endless_varint_is_a_value_error(data: bytes) -> None:
    with pytest.raises(ValueError):
        read_varint(data, 0)
