"""Tests of scopa.app._meta."""

from __future__ import annotations

from pathlib import Path

import pytest

from scopa.app import GameMeta, SeatMeta
from scopa.rules import InvalidState


def test_meta_round_trip() -> None:
    """Meta survives dump and load."""
    meta = GameMeta((SeatMeta("ann", False, True), SeatMeta("", True, False, "digest")))
    assert GameMeta.load(meta.dump()) == meta


def test_waiting_until_open_seats_join() -> None:
    """A game waits while an open seat is unclaimed."""
    meta = GameMeta((SeatMeta("ann", False, True), SeatMeta("", True, False, "d")))
    assert meta.waiting
    assert not meta.with_joined(1, "bob").waiting
    assert meta.with_joined(1, "bob").seats[1].name == "bob"


def test_corrupt_meta() -> None:
    """Corrupt meta raises InvalidState."""
    with pytest.raises(InvalidState):
        GameMeta.load(b"{not json")


def test_version_1_meta_blob_loads() -> None:
    """A meta stored by format 1 (tests/app/blobs/README.md) loads with every field."""
    blobs = Path(__file__).with_name("blobs")
    meta = GameMeta.load((blobs / "meta.v1.bin").read_bytes())
    assert meta.seats == (SeatMeta("Ann", False, True), SeatMeta("Bea", True, True, "ab12cd"))
    assert meta.resigned == -1
    assert meta.last_events == (blobs / "log_engine.v1.bin").read_bytes()


def test_meta_is_stored_keyed_and_versioned() -> None:
    """Meta is written in the keyed format 2 and a truncated one is refused."""
    meta = GameMeta((SeatMeta("ann", False, True),), resigned=0, last_events=b"A\x01\x02")
    blob = meta.dump()
    assert blob[0] == 2 and GameMeta.load(blob) == meta
    with pytest.raises(InvalidState):
        GameMeta.load(blob[:-1])
