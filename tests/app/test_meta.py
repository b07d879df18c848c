"""Tests of scopa.app._meta."""

from __future__ import annotations

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
