"""ListMyGames' owner index summary (pure): what a list shows of a game, for the owner of one
of its seats, written with every commit and read back by a page.

Summary: compact JSON ``{"f": 1, "v": version, "p": preset, "st": status, "s": [[name,
open, bot], ...], "me": seat, "turn": seat or -1, "pub": public, "t": turn clock s, "b":
timeout bot}``; never an owner digest, a hand or an invite.
"""

from __future__ import annotations

import json
from typing import Any, Final

from scopa import rules
from scopa.storage import PublicGame

from . import _views
from ._commands import GameStatus, LobbyGame
from ._meta import GameMeta, SeatMeta

__all__ = ["dump_owned", "load_owned"]

FORMAT: Final = 1


def dump_owned(
    version: int, state: rules.MatchState, meta: GameMeta, seat: int, timeout_bot: str
) -> bytes:
    """The index summary of a game at ``version`` for the owner of ``seat``."""
    where = _views.status(state, meta)
    turn = state.turn if where is GameStatus.ACTIVE else -1
    record: dict[str, Any] = {
        "f": FORMAT,
        "v": version,
        "p": state.ruleset.preset,
        "st": where.value,
        "s": [[s.name, s.open and not s.joined, s.bot] for s in meta.seats],
        "me": seat,
        "turn": turn,
    }
    if meta.public:
        record["pub"] = True
    if meta.turn_timeout_s:
        record["t"] = meta.turn_timeout_s
        record["b"] = timeout_bot
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode()


def load_owned(row: PublicGame) -> LobbyGame | None:
    """The game an index entry's summary describes; None when it is missing, unreadable or
    of another format."""
    if not row.summary:
        return None
    try:
        record = json.loads(row.summary)
        if record.get("f") != FORMAT:
            return None
        seats = tuple(
            [
                SeatMeta(str(name), bool(is_open), not is_open, bot=str(bot))
                for name, is_open, bot in record["s"]
            ]
        )
        turn = int(record["turn"])
        return LobbyGame(
            row.game_id,
            int(record["v"]),
            str(record["p"]),
            seats,
            row.created_ms,
            int(record.get("t", 0)),
            str(record.get("b", "")),
            GameStatus(record["st"]),
            bool(record.get("pub", False)),
            seat=int(record["me"]),
            turn=turn if turn >= 0 else None,
        )
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
