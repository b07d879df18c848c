"""Tests of scopa.app._owned: ListMyGames' owner index summary."""

from __future__ import annotations

import random

from scopa import rules
from scopa.app import GameStatus
from scopa.app._meta import GameMeta, SeatMeta
from scopa.app._owned import dump_owned, load_owned
from scopa.storage import PublicGame


def test_a_summary_reads_back_and_an_unreadable_one_is_none() -> None:
    """The owner's seat, the turn (none while waiting) and the status survive the summary;
    garbage, another format or nothing is None (the game is then read itself)."""
    state, _ = rules.new_match(rules.make_ruleset("scopa"), rng=random.Random(1))
    meta = GameMeta((SeatMeta("a", False, True, owner="o"), SeatMeta("b", True, False)))
    game = load_owned(PublicGame("g", 5, dump_owned(3, state, meta, 0, "greedy")))
    assert game is not None
    assert (game.seat, game.turn, game.status, game.version) == (
        0,
        None,
        GameStatus.WAITING_FOR_PLAYERS,
        3,
    )
    for blob in (b"", b"{", b'{"f": 2}', b'{"f": 1}'):
        assert load_owned(PublicGame("g", 5, blob)) is None
