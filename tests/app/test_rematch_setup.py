"""Tests of scopa.app._rematch_setup: a rematch's ruleset and meta from its finished game."""

from __future__ import annotations

import pytest

from scopa import rules
from scopa.app import RematchUnavailable
from scopa.app._meta import GameMeta, SeatMeta
from scopa.app._rematch_setup import rematch_meta, rematch_ruleset


@pytest.mark.parametrize(
    ("preset", "players", "first", "then"),
    [("scopa", 2, -1, 0), ("scopa", 2, 0, 1), ("scopa", 3, 1, 2), ("scopone", 4, -1, 0)],
)
def test_the_rematch_deals_from_the_next_seat(
    preset: str, players: int, first: int, then: int
) -> None:
    """The first dealer moves on by one seat (-1 is the last seat); other options stay."""
    ruleset = rules.make_ruleset(
        preset, {"players": players, "first_dealer": first, "target_score": 5}
    )
    again = rematch_ruleset(ruleset)
    assert again.preset == preset and again.options.first_dealer_seat == then
    assert again.options.target_score == 5 and again.options.players == players


def test_the_rematch_keeps_seats_and_settings_and_links_back() -> None:
    """Every seat taken again by the same owner and bot; clock, visibility and webhook kept;
    the tokens of the chain's first game act for it."""
    meta = GameMeta(
        (SeatMeta("a", False, True, owner="o"), SeatMeta("b", False, True, bot="greedy")),
        turn_timeout_s=30,
        public=True,
        webhook_url="https://hooks.example/x",
        tokens_of="first",
    )
    again = rematch_meta("g2", meta, 1234)
    assert [(s.name, s.open, s.joined, s.bot, s.owner) for s in again.seats] == [
        ("a", False, True, "", "o"),
        ("b", False, True, "greedy", ""),
    ]
    assert (again.turn_timeout_s, again.public, again.webhook_url) == (30, True, meta.webhook_url)
    assert (again.rematch_of, again.tokens_of, again.created_ms) == ("g2", "first", 1234)
    assert rematch_meta("g2", GameMeta(meta.seats), 0).tokens_of == "g2"


def test_a_game_with_a_seat_never_taken_has_no_rematch() -> None:
    waiting = GameMeta((SeatMeta("a", False, True), SeatMeta("b", True, False)))
    with pytest.raises(RematchUnavailable, match="never taken"):
        rematch_meta("g", waiting, 0)
