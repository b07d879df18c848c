"""Cores and stores for the tests of scopa.app on the embedded store."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace
from typing import Any

from scopa import rules
from scopa.app import (
    CoreSettings,
    CreateGameCommand,
    CreateResult,
    GameCore,
    SeatSpec,
    TokenAuthority,
)
from scopa.storage import GameStore, MemoryStore, Snapshot

SECRET = b"k" * 32


def make_core(*, stacked: bool = True, seed: int = 7) -> GameCore:
    return GameCore(
        MemoryStore(),
        TokenAuthority(SECRET),
        CoreSettings(allow_stacked_decks=stacked),
        rng=random.Random(seed),
    )


async def two_seat_game(core: GameCore, **kw: object) -> tuple[CreateResult, dict[int, str]]:
    created = await core.create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec("bob")], **kw)  # type: ignore[arg-type]
    )
    return created, dict(created.tokens)


class InterleavingStore(MemoryStore):
    """The embedded store, yielding to other tasks after every load and before every commit, as
    a network store would; it counts both."""

    def __init__(self) -> None:
        super().__init__()
        self.loads = 0
        self.commits = 0

    async def load(
        self, game_id: str, request_id: str | None = None, slot: str | None = None
    ) -> Snapshot:
        self.loads += 1
        snapshot = await super().load(game_id, request_id, slot)
        await asyncio.sleep(0)
        return snapshot

    async def commit(self, *args: Any, **kwargs: Any) -> int:
        self.commits += 1
        await asyncio.sleep(0)
        return await super().commit(*args, **kwargs)


def replica(store: MemoryStore, seed: int = 7, **settings: Any) -> GameCore:
    """One replica's core on a shared store."""
    return GameCore(store, TokenAuthority(SECRET), CoreSettings(**settings), random.Random(seed))


async def legal_moves(store: MemoryStore, game_id: str, token: str) -> tuple[rules.Move, ...]:
    """The token's seat's legal moves, read by a replica of its own."""
    moves = (await replica(store).get_state(game_id, token)).view.legal_moves
    return tuple(m for m in moves if isinstance(m, rules.Move))


async def play_one(core: GameCore, game: str, tokens: dict[int, str], rng: random.Random) -> int:
    """The seat to play plays a random legal move; returns the new version."""
    seat = (await core.get_state(game, None)).view.turn
    mine = await core.get_state(game, tokens[seat])
    result = await core.play_card(game, tokens[seat], rng.choice(mine.view.legal_moves))
    return result.snapshot.version


class SilentCore(GameCore):
    """A replica that dies before taking any due action (a bot's turn, a run-out clock's): it
    commits the requested writes only (``CoreSettings.take_due_actions`` off)."""

    def __init__(
        self,
        store: GameStore,
        tokens: TokenAuthority,
        settings: CoreSettings | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> None:
        silent = replace(settings or CoreSettings(), take_due_actions=False)
        super().__init__(store, tokens, silent, *args, **kwargs)
