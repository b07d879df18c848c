"""Whole games played at random on the embedded store, for the tests that compare two writings
of a view: every seat's view after every action (as read, and with presence), and every
action's result."""

from __future__ import annotations

import random
from collections.abc import Callable

from scopa.app import (
    CoreSettings,
    CreateGameCommand,
    GameCore,
    GameSnapshot,
    GameStatus,
    PlayResult,
    SeatSpec,
    TokenAuthority,
)
from scopa.rules import PRESETS
from scopa.storage import MemoryStore, Presence, SeatSeen

MOVES = 60
"""At most this many actions a game (a game to 1 point ends in its first hand or so)."""


def with_presence(snapshot: GameSnapshot, n: int) -> GameSnapshot:
    """``snapshot`` with seat 0 connected, seat ``n - 1`` seen before and two spectators."""
    seen = {0: SeatSeen(True, 1_700_000_000_123), n - 1: SeatSeen(False, 1_700_000_000_000)}
    return snapshot.with_presence(Presence(1_700_000_001_500, seen, spectators=2))


async def walk_game(
    preset: str,
    seed: int,
    view: Callable[[GameSnapshot], None],
    action: Callable[[PlayResult], None],
) -> int:
    """Play one game of ``preset`` at random (an odd seed: to 1 point, with a turn clock),
    calling ``view`` on each seat's view (and the same with presence) before each action and
    ``action`` on each action's result; the number of calls made."""
    rng = random.Random(seed)
    core = GameCore(MemoryStore(), TokenAuthority(b"k" * 32), CoreSettings(), random.Random(seed))
    n = min(PRESETS[preset].players)
    options = {"target_score": 1} if seed % 2 else {}
    command = CreateGameCommand(
        preset, options, [SeatSpec(f"p{i}") for i in range(n)], turn_timeout_s=30 * (seed % 2)
    )
    try:
        created = await core.create_game(command)
    except Exception:  # the preset takes no such target: its own default
        command = CreateGameCommand(preset, {}, [SeatSpec(f"p{i}") for i in range(n)])
        created = await core.create_game(command)
    tokens = dict(created.tokens)
    calls = 0
    for _ in range(MOVES):
        for token in tokens.values():
            snapshot = await core.get_state(created.game_id, token)
            for shown in (snapshot, with_presence(snapshot, n)):
                view(shown)
                calls += 1
        snapshot = await core.get_state(created.game_id, tokens[0])
        if snapshot.status is not GameStatus.ACTIVE or snapshot.view.turn < 0:
            break
        turn = snapshot.view.turn
        actions = (await core.get_state(created.game_id, tokens[turn])).view.legal_actions
        if not actions:
            break
        action(await core.take_action(created.game_id, tokens[turn], rng.choice(actions)))
        calls += 1
    return calls
