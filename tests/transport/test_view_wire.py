"""Tests of scopa.transport._view_wire: a view and an action's response written field by field
are the bytes of the messages built from the same snapshot (``with_view`` serialized, with its
tail), for every preset's views through a whole game, with a turn clock and presence."""

from __future__ import annotations

import asyncio

import pytest
from support.view_games import walk_game

from scopa import rules
from scopa.app import GameSnapshot, PlayResult, VersionedEvent
from scopa.rules import PRESETS
from scopa.transport._convert import event_to_pb, events_to_pb, view_tail, with_view
from scopa.transport._view_wire import (
    action_response_wire,
    event_bytes,
    view_wire,
    view_wire_fields,
)
from scopa_client.v1 import scopa_pb2 as pb


def _built_view(snapshot: GameSnapshot) -> bytes:
    message = with_view(pb.GetStateResponse, snapshot, options=False, results=False)
    return message.view.SerializeToString()


def _check_view(shown: GameSnapshot) -> None:
    assert view_wire(shown) == _built_view(shown)
    fields = view_wire_fields(shown, None)
    assert list(fields) == sorted(fields)


def _check_action(result: PlayResult) -> None:
    events = events_to_pb(result.events)
    last = events if result.snapshot.last_events is result.events else None
    for response in (pb.TakeActionResponse, pb.PlayCardResponse):
        message = with_view(
            response, result.snapshot, last, options=False, results=False, events=events
        )
        built = message.SerializeToString() + view_tail(response, result.snapshot.view)
        assert action_response_wire(response, result) == built


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_view_of_a_game_is_written_as_its_message_is(preset: str) -> None:
    compared = sum(
        asyncio.run(walk_game(preset, seed, _check_view, _check_action)) for seed in (0, 1)
    )
    assert compared > 20


def test_an_events_kept_bytes_are_its_kind_s() -> None:
    """Events are tuples: two kinds with equal fields are equal tuples, yet each is written as
    its own kind (the kept bytes are keyed by kind too)."""
    returned = VersionedEvent(3, rules.AceReturned(card=5))
    resigned = VersionedEvent(3, rules.SeatResigned(seat=5))
    assert returned == resigned  # as tuples
    for event in (returned, resigned, returned):
        assert event_bytes(event) == event_to_pb(event).SerializeToString()


def test_an_event_kept_at_one_version_is_written_at_another() -> None:
    """An event's bytes are kept without its version (a play recurs from game to game), and
    written with each version it comes with, as upb writes it (none at version 0)."""
    played = rules.CardPlayed(1, 7, (3, 4), True, True, (("picula", 1),))
    for version in (5, 0, 300, 20_000, 5):
        event = VersionedEvent(version, played)
        assert event_bytes(event) == event_to_pb(event).SerializeToString()
