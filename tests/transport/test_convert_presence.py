"""A view's seats and presence as constructor arguments (scopa.transport._convert_presence)."""

from __future__ import annotations

import random

import pytest
from support.view_games import with_presence

from scopa.app import (
    CoreSettings,
    CreateGameCommand,
    GameCore,
    GameSnapshot,
    SeatSpec,
    TokenAuthority,
)
from scopa.storage import MemoryStore
from scopa.transport._convert_presence import SEAT_NAMES, seat_args, seat_fields, seat_kwargs
from scopa_client.v1 import scopa_pb2 as pb


@pytest.fixture
async def snapshot() -> GameSnapshot:
    """Seat 0's view of a new two-seat scopa game of ann and bob."""
    core = GameCore(MemoryStore(), TokenAuthority(b"k" * 32), CoreSettings(), random.Random(3))
    command = CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec("bob")])
    created = await core.create_game(command)
    return await core.get_state(created.game_id, dict(created.tokens)[0])


def test_every_seat_value_has_its_field_name(snapshot: GameSnapshot) -> None:
    assert set(SEAT_NAMES) <= set(pb.SeatInfo.DESCRIPTOR.fields_by_name)
    assert len(seat_args(snapshot, 0, False)) == len(SEAT_NAMES)


def test_seat_fields_without_presence_leave_it_unset(snapshot: GameSnapshot) -> None:
    assert seat_fields(snapshot.with_presence(None), 1, True) == {
        "seat": 1,
        "display_name": "bob",
        "side": 1,
        "hand_size": 3,
        "open": False,
        "resigned": False,
        "bot": "",
        "timeouts": 0,
        "out": False,
        "answering": True,
    }


def test_seat_fields_with_presence_say_who_is_connected_and_when(snapshot: GameSnapshot) -> None:
    shown = with_presence(snapshot, 2)  # seat 0 connected, seat 1 seen before
    connected = seat_fields(shown, 0, False)
    assert connected["connected"] is True
    assert connected["last_seen_time"] == {"seconds": 1_700_000_001, "nanos": 500_000_000}
    gone = seat_fields(shown, 1, False)
    assert gone["connected"] is False
    assert gone["last_seen_time"] == {"seconds": 1_700_000_000, "nanos": 0}


def test_a_seat_never_seen_is_not_connected_and_has_no_time(snapshot: GameSnapshot) -> None:
    shown = with_presence(snapshot, 3)  # seats 0 and 2 seen: seat 1 never
    assert seat_args(shown, 1, False)[-2:] == (False, None)
    fields = seat_kwargs(seat_args(shown, 1, False))
    assert fields["connected"] is False
    assert "last_seen_time" not in fields


@pytest.mark.parametrize("answering", [False, True])
def test_equal_seats_give_equal_values(snapshot: GameSnapshot, answering: bool) -> None:
    first, again = seat_args(snapshot, 0, answering), seat_args(snapshot, 0, answering)
    assert first == again and hash(first) == hash(again)
    assert first != seat_args(snapshot, 0, not answering)
    assert first != seat_args(with_presence(snapshot, 2), 0, answering)
