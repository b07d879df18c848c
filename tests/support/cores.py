"""Application cores with a part switched off, for the tests of what other replicas do."""

from __future__ import annotations

from typing import Any

from scopa import rules
from scopa.app import GameCore, GameMeta

__all__ = ["SilentCore"]


class SilentCore(GameCore):
    """A replica that dies before taking any due action (a bot's turn, a run-out clock's): it
    commits the requested writes only."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)

        async def advance(
            game_id: str, version: int, state: rules.MatchState, meta: GameMeta
        ) -> tuple[int, rules.MatchState, GameMeta]:
            return version, state, meta

        self._turns.advance = advance  # type: ignore[method-assign]
