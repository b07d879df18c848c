"""Tests of scopa.app._commands: the copies a watch and a session make of a result."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from support.games import make_core, two_seat_game

from scopa.app import GameSnapshot, PlayResult, PresenceChange
from scopa.storage import Presence, SeatSeen


def _unlike_default(field: dataclasses.Field[Any], played: PlayResult) -> Any:
    """A value for ``field`` that is not its default (by the default's type: the compiled
    build's fields carry classes where the interpreted one's carry strings)."""
    special: dict[str, Any] = {
        "last_events": played.events,
        "presence": Presence(5, {0: SeatSeen(True, 4)}, 2),
    }
    if field.name in special:
        return special[field.name]
    value = {bool: True, int: 7, str: "x"}[type(field.default)]
    assert value != field.default
    return value


async def _played() -> PlayResult:
    core = make_core()
    created, tokens = await two_seat_game(core)
    seat = created.snapshot.view.turn
    mine = await core.get_state(created.game_id, tokens[seat])
    move = random.Random(1).choice(mine.view.legal_moves)
    return await core.play_card(created.game_id, tokens[seat], move)


async def test_a_snapshot_with_presence_keeps_every_other_field() -> None:
    """``with_presence`` is ``dataclasses.replace(presence=...)``, a field added later
    included: the snapshot here sets each defaulted field to a value that is not its default."""
    played = await _played()
    defaulted = [f for f in dataclasses.fields(GameSnapshot) if f.name != "presence"]
    changes = {
        f.name: _unlike_default(f, played)
        for f in defaulted
        if f.default is not dataclasses.MISSING
    }
    snapshot = dataclasses.replace(played.snapshot, **changes)
    presence = Presence(9, {}, 0)
    copied = snapshot.with_presence(presence)
    assert copied == dataclasses.replace(snapshot, presence=presence)
    assert copied.presence is presence and copied.view is snapshot.view
    assert snapshot.with_presence(None) == dataclasses.replace(snapshot, presence=None)


async def test_a_result_with_another_snapshot_keeps_its_events_and_flags() -> None:
    """``with_snapshot`` is ``dataclasses.replace(snapshot=...)`` for every field."""
    played = await _played()
    result = PlayResult(played.events, played.snapshot, True, (PresenceChange(1, True, 3),))
    assert [f.name for f in dataclasses.fields(PlayResult)] == [
        "events",
        "snapshot",
        "truncated",
        "presence",
    ]
    shown = played.snapshot.with_presence(Presence(5, {}, 1))
    assert result.with_snapshot(shown) == dataclasses.replace(result, snapshot=shown)
    assert result.with_snapshot(shown).snapshot is shown
