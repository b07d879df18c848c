"""A public game's lobby summary (pure): what a lobby page shows of it, kept beside its lobby
entry so a page reads and decodes no game.

Compact JSON: ``{"f": 1, "v": version, "p": preset, "s": [[name, open, bot], ...], "t":
turn clock s, "b": timeout bot}``, about 100 bytes for two seats. ``open`` is an open seat
not yet claimed. A summary of another format (a newer release's) or an unreadable one is
``None``: the lobby then reads the game itself.
"""

from __future__ import annotations

import json
from typing import Any, Final

from ._commands import LobbyGame
from ._meta import GameMeta, SeatMeta

__all__ = ["dump_summary", "load_summary"]

FORMAT: Final = 1


def dump_summary(version: int, preset: str, meta: GameMeta, timeout_bot: str) -> bytes:
    """The summary of a waiting game at ``version``."""
    seats = [[s.name, s.open and not s.joined, s.bot] for s in meta.seats]
    record: dict[str, Any] = {"f": FORMAT, "v": version, "p": preset, "s": seats}
    if meta.turn_timeout_s:
        record["t"] = meta.turn_timeout_s
        record["b"] = timeout_bot
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode()


def load_summary(game_id: str, created_ms: int, blob: bytes) -> LobbyGame | None:
    """The lobby game a summary describes; None when it is missing, unreadable or of another
    format."""
    if not blob:
        return None
    try:
        record = json.loads(blob)
        if record.get("f") != FORMAT:
            return None
        seats = tuple(
            [
                SeatMeta(str(name), bool(is_open), not is_open, bot=str(bot))
                for name, is_open, bot in record["s"]
            ]
        )
        return LobbyGame(
            game_id,
            int(record["v"]),
            str(record["p"]),
            seats,
            created_ms,
            int(record.get("t", 0)),
            str(record.get("b", "")),
        )
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
