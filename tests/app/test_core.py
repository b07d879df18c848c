"""Tests of scopa.app._core: the facade wires the server's hooks into every collaborator."""

from __future__ import annotations

import gc
import random

import pytest
from support.games import (
    SECRET,
    make_core,
    play_one,
    two_seat_game,
)

from scopa.app import (
    CoreSettings,
    GameCore,
    InvalidArgument,
    TokenAuthority,
)
from scopa.storage import MemoryStore


async def test_activity_callback_sees_creates_moves_and_the_end() -> None:
    """on_game_active gets (game_id, finished) for each change this core commits."""
    seen: list[tuple[str, bool]] = []
    core = GameCore(
        MemoryStore(),
        TokenAuthority(SECRET),
        CoreSettings(allow_stacked_decks=True),
        rng=random.Random(7),
        on_game_active=lambda game_id, finished: seen.append((game_id, finished)),
    )
    created, tokens = await two_seat_game(core)
    game = created.game_id
    await play_one(core, game, tokens, random.Random(3))
    await core.get_state(game, None)  # a read is no change
    await core.resign(game, tokens[0])
    assert seen == [(game, False), (game, False), (game, True)]


async def test_watch_callback_counts_open_streams() -> None:
    """on_watch gets +1 when a watch starts and -1 when it is closed; a refused watch adds 0."""
    deltas: list[int] = []
    core = GameCore(
        MemoryStore(),
        TokenAuthority(SECRET),
        CoreSettings(allow_stacked_decks=True),
        rng=random.Random(7),
        on_watch=deltas.append,
    )
    created, _tokens = await two_seat_game(core)
    updates = core.watch(created.game_id, None, from_version=1)
    await anext(updates)
    assert deltas == [1]
    await updates.aclose()
    assert deltas == [1, -1]
    with pytest.raises(InvalidArgument):
        await anext(core.watch(created.game_id, None, from_version=99))
    assert sum(deltas) == 0


async def test_playing_leaves_no_reference_cycles_for_the_collector() -> None:
    """A game played through the core leaves nothing only the cycle collector frees: each
    cycle made per call (a closure that calls itself, say) makes the young generation's
    collections come sooner, and each of them stops the event loop."""
    core = make_core(stacked=False)
    created, tokens = await two_seat_game(core)
    rng = random.Random(5)
    await play_one(core, created.game_id, tokens, rng)  # caches and lazy imports filled
    gc.collect()
    gc.disable()
    try:
        for _ in range(30):
            await play_one(core, created.game_id, tokens, rng)
        assert gc.collect() == 0
    finally:
        gc.enable()
