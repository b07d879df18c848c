"""Tests of scopa.app._presence_changes: what a presence read changes in what a stream shows."""

from __future__ import annotations

import pytest
from support.games import make_core, two_seat_game

from scopa.app import PlayResult, PresenceChange
from scopa.app._presence_changes import changes, presence_message, same_presence
from scopa.storage import Presence, SeatSeen


def test_changes_are_the_seats_whose_connected_state_differs() -> None:
    """Only seats that connected or left are changes; a first read has none."""
    before = Presence(1, {0: SeatSeen(True, 1), 1: SeatSeen(False, 1)}, 0)
    after = Presence(2, {0: SeatSeen(False, 2), 2: SeatSeen(True, 2)}, 5)
    assert changes(before, after, 3) == (PresenceChange(0, False, 2), PresenceChange(2, True, 2))
    assert changes(None, after, 3) == ()
    assert changes(after, after, 3) == ()


@pytest.mark.asyncio
async def test_a_presence_message_comes_only_with_a_change_a_spectator_count_alone_waits() -> None:
    """A seat that connected makes a message showing the new presence; a new spectator count
    alone makes none (it waits for the stream's next message)."""
    created, _ = await two_seat_game(make_core())
    shown = created.snapshot
    before = Presence(1, {0: SeatSeen(True, 1)}, 0)
    after = Presence(2, {0: SeatSeen(True, 2), 1: SeatSeen(True, 2)}, 0)
    message = presence_message(shown, before, after)
    assert isinstance(message, PlayResult)
    assert message.presence == (PresenceChange(1, True, 2),)
    assert message.events == () and message.snapshot.presence == after
    assert presence_message(shown, after, Presence(3, after.seats, 4)) is None


def test_reads_are_the_same_when_seats_and_spectators_are() -> None:
    """Two reads are the same whatever their read times; not when a seat or the count moved."""
    seats = {0: SeatSeen(True, 1)}
    assert same_presence(Presence(1, seats, 2), Presence(9, dict(seats), 2))
    assert not same_presence(Presence(1, seats, 2), Presence(1, seats, 3))
    assert not same_presence(Presence(1, seats, 2), Presence(1, {0: SeatSeen(False, 1)}, 2))
    assert not same_presence(None, Presence(1, seats, 2))
