"""Tests of the lobby summaries (scopa.app._summary)."""

from __future__ import annotations

import pytest

from scopa.app import GameMeta, LobbyGame, SeatMeta
from scopa.app._summary import dump_summary, load_summary

META = GameMeta(
    (
        SeatMeta("host", open=False, joined=True, invite_digest="d0"),
        SeatMeta("", open=True, joined=False, invite_digest="d1"),
        SeatMeta("ann", open=True, joined=True, invite_digest="d2"),
        SeatMeta("Bot 4", open=False, joined=True, bot="greedy"),
    ),
    turn_timeout_s=30,
    public=True,
    created_ms=1234,
)


def test_a_summary_round_trips_what_the_lobby_shows() -> None:
    """Names, open seats (a claimed open seat is not), bots, the clock; no invite digest."""
    blob = dump_summary(7, "scopa4", META, "greedy")
    game = load_summary("g1", 1234, blob)
    assert game == LobbyGame(
        "g1",
        7,
        "scopa4",
        (
            SeatMeta("host", open=False, joined=True),
            SeatMeta("", open=True, joined=False),
            SeatMeta("ann", open=False, joined=True),
            SeatMeta("Bot 4", open=False, joined=True, bot="greedy"),
        ),
        1234,
        30,
        "greedy",
    )
    assert b"d1" not in blob and len(blob) < 160


def test_a_game_without_a_clock_has_no_timeout_bot() -> None:
    """Without a turn clock the summary holds neither the clock nor its bot."""
    game = load_summary("g", 1, dump_summary(1, "scopa", GameMeta(META.seats[:2]), "greedy"))
    assert game is not None and (game.turn_timeout_s, game.timeout_bot) == (0, "")


@pytest.mark.parametrize(
    "blob",
    [b"", b"not json", b"[]", b'{"f":2,"v":1,"p":"scopa","s":[]}', b'{"f":1,"v":1,"p":"x"}'],
)
def test_a_missing_unreadable_or_newer_summary_is_none(blob: bytes) -> None:
    """The lobby then reads the game itself."""
    assert load_summary("g", 1, blob) is None
