"""Presence: the open streams of each seat (and the spectators) of a game, on any replica.

Each open stream (WatchGame, SSE, a session) holds one entry that lapses ``ttl_s`` after its
last refresh; a stream refreshes it every few seconds and drops it on a clean close, so a
replica that dies leaves nothing "connected" for longer than the TTL. A seat is connected
while it has an entry that has not lapsed. A change of the connected seats or of the number of
spectators (a lapsed entry included, once a refresh or a close of any stream of the game meets
it) publishes the notice ``p`` on the game's channel, which every replica's fanout reports as
:data:`~scopa.storage._fanout.PRESENCE`: presence never writes the game, so it never bumps its
version.

Redis: three keys under the game's hash tag, changed by ``lua/presence.lua`` with the game
node's own clock (TIME); the same script reads the game's hash with its presence in one round
trip (:meth:`RedisPresence.load_with_presence`, GetState's read). The embedded store keeps the
same in a :class:`PresenceBook`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from scopa.storage._errors import GameNotFound
from scopa.storage._keys import PREFIX, channel, check_game_id, check_ttl, game_key
from scopa.storage._scripts import Script
from scopa.storage._types import Presence, SeatSeen, Snapshot

__all__ = ["SPECTATOR", "PresenceBook", "RedisPresence", "presence_keys"]

SPECTATOR: Final = "*"
"""The holder of a spectator's entries (a seat's is its number)."""


def presence_keys(game_id: str) -> tuple[str, str, str]:
    """The seats' streams, the spectators' streams, and the seats' last-seen times."""
    base = f"{PREFIX}:{{{game_id}}}"
    return f"{base}:pr", f"{base}:prs", f"{base}:seen"


def _holder(seat: int | None) -> str:
    if seat is None:
        return SPECTATOR
    if seat < 0:
        raise ValueError(f"invalid seat {seat}")
    return str(seat)


def _ms(seconds: float) -> int:
    check_ttl(seconds)
    return max(1, round(seconds * 1000))


class RedisPresence:
    """The presence operations of the Redis stores (mixed into ``RedisStore``, which gives
    ``_evalsha``, ``_index_call`` and ``_publish``)."""

    _presence_script: Final = Script("presence.lua")
    _publish: str
    _read_command: str
    _index_call: Callable[[str, str], Any]
    if TYPE_CHECKING:

        def _evalsha(
            self, script: Script, keys: list[str], args: list[Any], *, resend: bool = False
        ) -> Awaitable[Any]: ...

        def _read_script(
            self, script: Script, keys: list[str], args: list[Any]
        ) -> Awaitable[Any]: ...

    async def touch_presence(
        self, game_id: str, seat: int | None, connection: str, ttl_s: float, keep_s: float
    ) -> bool:
        """Add or refresh the entry of a stream (``seat`` None: a spectator's) until ``ttl_s``
        from now; whether the game's presence changed (then it was announced)."""
        return await self._change_presence(game_id, "touch", seat, connection, ttl_s, keep_s)

    async def drop_presence(
        self, game_id: str, seat: int | None, connection: str, keep_s: float
    ) -> bool:
        """Drop the entry of a stream that closed; whether the game's presence changed."""
        return await self._change_presence(game_id, "drop", seat, connection, 1.0, keep_s)

    async def presence(self, game_id: str) -> Presence:
        """The game's presence now (lapsed entries are not connected)."""
        check_game_id(game_id)
        with self._index_call(self._read_command, "presence"):
            flat = await self._read_script(
                self._presence_script, list(presence_keys(game_id)), ["read"]
            )
        return _presence(flat)

    async def load_with_presence(self, game_id: str) -> tuple[Snapshot, Presence]:
        """The game (as :meth:`load` without a request) and its presence, in one EVALSHA.

        Only reads (EVALSHA_RO: not held by CLIENT PAUSE WRITE): a connection lost after the
        call was sent is retried on a fresh one, and a reply that never came is
        StorageUnavailable.
        """
        check_game_id(game_id)
        keys = [*presence_keys(game_id), game_key(game_id)]
        args = ["load", "state", "meta", "version"]
        with self._index_call(self._read_command, "load_presence"):
            values, flat = await self._read_script(self._presence_script, keys, args)
        state, meta, version = values
        if state is None or meta is None or version is None:
            raise GameNotFound(game_id)
        return Snapshot(bytes(state), bytes(meta), int(version)), _presence(flat)

    async def _change_presence(
        self,
        game_id: str,
        mode: str,
        seat: int | None,
        connection: str,
        ttl_s: float,
        keep_s: float,
    ) -> bool:
        check_game_id(game_id)
        args = [mode, _holder(seat), connection, _ms(ttl_s), _ms(keep_s)]
        args += [self._publish, channel(game_id)]
        with self._index_call("EVALSHA", "presence"):
            changed = await self._evalsha(self._presence_script, list(presence_keys(game_id)), args)
        return bool(changed)


def _presence(flat: list[Any]) -> Presence:
    """The presence of a ``read`` reply of ``lua/presence.lua``."""
    seats = {
        int(flat[i]): SeatSeen(bool(int(flat[i + 1])), int(flat[i + 2]))
        for i in range(2, len(flat), 3)
    }
    return Presence(int(flat[0]), seats, int(flat[1]))


@dataclass(slots=True)
class _Game:
    streams: dict[tuple[str, str], float] = field(default_factory=dict)
    """(holder, connection) -> expiry ms."""
    seen: dict[int, int] = field(default_factory=dict)
    expires_ms: float = 0.0


class PresenceBook:
    """The embedded store's presence: what ``lua/presence.lua`` keeps, in dicts."""

    def __init__(self) -> None:
        self._games: dict[str, _Game] = {}

    def change(
        self,
        game_id: str,
        now_ms: int,
        seat: int | None,
        connection: str,
        ttl_ms: int | None,
        keep_ms: int,
    ) -> bool:
        """Touch (with a ``ttl_ms``) or drop (None) one stream's entry; whether the game's
        presence changed (its lapsed entries are dropped first and count as a change)."""
        check_game_id(game_id)
        holder = _holder(seat)
        game = self._game(game_id, now_ms)
        before = _holders(game, None), _holders(game, now_ms)
        game.streams = {k: v for k, v in game.streams.items() if v > now_ms}
        if ttl_ms is not None:
            game.streams[holder, connection] = now_ms + ttl_ms
            if seat is not None:
                game.seen[seat] = now_ms
        elif game.streams.pop((holder, connection), None) is not None and seat is not None:
            game.seen[seat] = now_ms
        game.expires_ms = now_ms + keep_ms
        after = _holders(game, now_ms)
        return after != before[0] or after != before[1]

    def read(self, game_id: str, now_ms: int) -> Presence:
        """The game's presence at ``now_ms``."""
        check_game_id(game_id)
        game = self._games.get(game_id)
        if game is None or game.expires_ms <= now_ms:
            return Presence(now_ms, {}, 0)
        live, spectators = _holders(game, now_ms)
        seats = {s: SeatSeen(str(s) in live, ms) for s, ms in game.seen.items()}
        return Presence(now_ms, seats, spectators)

    def clear(self) -> None:
        """Forget everything (the store closed)."""
        self._games.clear()

    def _game(self, game_id: str, now_ms: int) -> _Game:
        game = self._games.get(game_id)
        if game is None or game.expires_ms <= now_ms:
            game = self._games[game_id] = _Game()
        return game


def _holders(game: _Game, now_ms: int | None) -> tuple[frozenset[str], int]:
    """The seats with a stream, and the number of spectators' streams (not lapsed by
    ``now_ms``; None: every entry)."""
    live = [h for (h, _), exp in game.streams.items() if now_ms is None or exp > now_ms]
    return frozenset(h for h in live if h != SPECTATOR), live.count(SPECTATOR)
