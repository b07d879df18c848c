"""Tests of scopa.app._wire: varints and a message's bytes by top-level field."""

from __future__ import annotations

import pytest

from scopa.app import split_fields, varint
from scopa_client.v1 import scopa_pb2 as pb


def test_a_varint_is_seven_bits_a_byte_low_first() -> None:
    """0 and 127 fit one byte; 300 is 0xAC 0x02, as the protobuf encoding guide has it."""
    assert varint(0) == b"\x00"
    assert varint(127) == b"\x7f"
    assert varint(300) == b"\xac\x02"


def test_split_fields_keeps_each_fields_bytes_and_refuses_a_cut_message() -> None:
    """The splitter sees a view's fields as its serialization has them: a repeated field is one
    piece (its elements in order), and a message cut inside a field is refused."""
    view = pb.GameView(
        name="games/x",
        version=300,
        table=[pb.Card(suit=pb.SUIT_COPPE, rank=7), pb.Card(suit=pb.SUIT_DENARI, rank=1)],
    )
    view.options["target_score"].int_value = 11
    data = view.SerializeToString()
    fields = split_fields(data)
    assert sorted(fields) == [1, 3, 4, 10]
    assert b"".join(fields[n] for n in sorted(fields)) == data
    assert pb.GameView.FromString(fields[10]).table == view.table
    with pytest.raises((ValueError, IndexError)):
        split_fields(data[:-1])
