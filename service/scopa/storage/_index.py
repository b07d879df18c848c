"""The store's indexes across games: turn deadlines (sharded) and the lobby of public games.

Deadlines: ``DEADLINE_SHARDS`` sorted sets, each with its own hash tag ``{due-<k>}``, so on a
Redis Cluster they spread over the slots (and nodes) instead of making one hot key; a game's
entry lives in shard ``deadline_shard(game_id)`` and every replica scans every shard. The lobby
is one hash tag ``{lobby}``. Each key of an index lives apart from the games' keys (other slots),
so the index is written next to a game's commit, not inside it: it is a hint that a sweeper
checks against the game itself, kept never later than the game's own deadline (see
``lua/deadline.lua``).
"""

from __future__ import annotations

import zlib
from collections.abc import Awaitable, Callable
from typing import Any

from scopa.storage._keys import PREFIX
from scopa.storage._scripts import Script
from scopa.storage._types import PublicGame

__all__ = [
    "DEADLINE_SHARDS",
    "RedisIndexes",
    "deadline_keys",
    "deadline_shard",
    "lobby_keys",
]

DEADLINE_SHARDS = 16
"""How many sorted sets hold the turn deadlines (a fixed number: every replica scans each)."""


def deadline_shard(game_id: str) -> int:
    """The deadline shard of a game (stable across processes: CRC-32 of its id)."""
    return zlib.crc32(game_id.encode()) % DEADLINE_SHARDS


def deadline_keys(shard: int) -> tuple[str, str]:
    """The sorted set of deadlines and the hash of entry versions of one shard."""
    return f"{PREFIX}:{{due-{shard}}}:z", f"{PREFIX}:{{due-{shard}}}:v"


def lobby_keys(preset: str, live: bool = False) -> tuple[str, str, str, str, str]:
    """The lobby's keys: every listed game, those of ``preset``, their expiries, their presets,
    their summaries. ``live``: those of the second board, games being played."""
    base = f"{PREFIX}:{{lobby}}" + (":live" if live else "")
    return f"{base}:all", f"{base}:p:{preset}", f"{base}:exp", f"{base}:preset", f"{base}:sum"


class RedisIndexes:
    """The index operations of the Redis stores (standalone, Sentinel, Cluster).

    Mixed into :class:`~scopa.storage._redis.RedisStore`; uses its client, ``_evalsha`` and
    ``_read_script`` (which load a script on a node that lacks it) and ``_call`` (a span, errors
    mapped).
    """

    _client: Any
    _attrs: dict[str, dict[str, str | int]]
    _deadline: Any
    _lobby: Any
    _time: Any
    _read_command: str

    _call: Callable[[str, str], Any]
    _evalsha: Callable[[Any, list[str], list[Any]], Awaitable[Any]]
    _read_script: Callable[[Any, list[str], list[Any]], Awaitable[Any]]

    def _index_call(self, command: str, operation: str) -> Any:
        """A span named after the Redis command, with the store's server attributes."""
        if command not in self._attrs:
            self._attrs[command] = {**self._attrs["PING"], "db.operation.name": command}
        return self._call(command, operation)

    def _load_index_scripts(self) -> None:
        self._deadline = Script("deadline.lua")
        self._lobby = Script("lobby.lua")
        self._time = Script("time.lua")

    async def time(self) -> float:
        """The store's clock, in seconds since the epoch (Redis TIME of deadline shard 0)."""
        with self._index_call(self._read_command, "time"):
            seconds, micros = await self._read_script(self._time, [deadline_keys(0)[0]], [])
        return int(seconds) + int(micros) / 1e6

    async def set_deadline(self, game_id: str, version: int, deadline_ms: int | None) -> bool:
        """Index the deadline of ``version`` (None: it has none); False if a newer one is set."""
        args = [game_id, "set", version, "" if deadline_ms is None else deadline_ms]
        return await self._deadline_script(game_id, args)

    async def lower_deadline(self, game_id: str, deadline_ms: int) -> None:
        """Make the game's entry at most ``deadline_ms`` (before a commit that sets it)."""
        await self._deadline_script(game_id, [game_id, "lower", 0, deadline_ms])

    async def forget_deadline(self, game_id: str, deadline_ms: int) -> bool:
        """Drop the entry of a game that is gone, if its deadline is still ``deadline_ms``."""
        return await self._deadline_script(game_id, [game_id, "forget", 0, deadline_ms])

    async def _deadline_script(self, game_id: str, args: list[Any]) -> bool:
        keys = list(deadline_keys(deadline_shard(game_id)))
        with self._index_call("EVALSHA", "deadline"):
            return bool(await self._evalsha(self._deadline, keys, args))

    async def due_games(self, shard: int, now_ms: int, limit: int) -> list[tuple[str, int]]:
        """Up to ``limit`` entries of ``shard`` due by ``now_ms``: (game id, deadline ms)."""
        key = deadline_keys(shard)[0]
        with self._index_call("ZRANGEBYSCORE", "due_games"):
            rows = await self._client.zrangebyscore(
                key, "-inf", now_ms, start=0, num=limit, withscores=True
            )
        return [(member.decode(), int(score)) for member, score in rows]

    async def list_public(
        self,
        game_id: str,
        preset: str,
        created_ms: int,
        expires_ms: int,
        summary: bytes = b"",
        *,
        live: bool = False,
    ) -> None:
        """List (or refresh) a public game waiting for players in the lobby, with its summary
        (``live``: a game being played, on the second board)."""
        keys = list(lobby_keys(preset, live))
        args = ["add", _preset_prefix(live), game_id, preset, created_ms, expires_ms, summary]
        with self._index_call("EVALSHA", "lobby"):
            await self._evalsha(self._lobby, keys, args)

    async def unlist_public(self, game_id: str, *, live: bool = False) -> None:
        """Take a game off the lobby (its seats are taken, it finished or it is gone)."""
        with self._index_call("EVALSHA", "lobby"):
            await self._evalsha(
                self._lobby,
                list(lobby_keys("", live)),
                ["remove", _preset_prefix(live), game_id],
            )

    async def purge_public(self, now_ms: int, limit: int, *, live: bool = False) -> int:
        """Drop up to ``limit`` lobby entries expired by ``now_ms`` (oldest expiry first)."""
        keys = list(lobby_keys("", live))
        args = ["purge", _preset_prefix(live), now_ms, limit]
        with self._index_call("EVALSHA", "lobby"):
            return int(await self._evalsha(self._lobby, keys, args))

    async def public_games(
        self,
        preset: str,
        now_ms: int,
        limit: int,
        before: tuple[int, str] | None = None,
        *,
        live: bool = False,
    ) -> list[PublicGame]:
        """Listed games, newest first, with their summaries, after the cursor ``before``.

        ``preset`` "" lists every preset. One script that only reads (EVALSHA_RO: Redis does
        not hold it under CLIENT PAUSE WRITE): expired entries met on the way are skipped (the
        sweepers drop them), so the page is short only when no more live entries exist.
        """
        keys = list(lobby_keys(preset, live))
        args: list[Any] = ["page", _preset_prefix(live), now_ms, limit, "1" if preset else "0"]
        args += ["", ""] if before is None else [before[0], before[1]]
        with self._index_call(self._read_command, "lobby"):
            flat = await self._read_script(self._lobby, keys, args)
        return [
            PublicGame(flat[i].decode(), int(flat[i + 1]), bytes(flat[i + 2]))
            for i in range(0, len(flat), 3)
        ]


def _preset_prefix(live: bool = False) -> str:
    """The name of a preset's lobby set without the preset (lobby.lua appends it)."""
    return lobby_keys("", live)[1]
