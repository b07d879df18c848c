"""The owner index: each signed-in player's games, for "my games" (ListMyGames).

One index per owner (the digest a game's meta stores for a signed-in seat, never a subject),
under its own hash tag ``{own-<owner>}``: on a Redis Cluster it lives apart from the games'
keys, so it is written next to a game's commit, not inside it (``lua/owned.lua``), like the
lobby. An entry carries its game's status, creation time, expiry (the game's, refreshed with
every commit) and an opaque summary; a page lists the live entries newest first and drops the
expired ones it meets, so the entry of a game that vanished leaves the index when read.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final

from scopa.storage._keys import PREFIX
from scopa.storage._scripts import Script
from scopa.storage._types import PublicGame

__all__ = ["OWNED_STATUSES", "MemoryOwnerIndex", "RedisOwnerIndex", "check_owned", "owner_keys"]

OWNED_STATUSES: Final = ("waiting_for_players", "active", "finished")
"""The statuses an owner index entry may have (and a page may be filtered by)."""


def check_owned(owner: str, status: str, *, any_status: bool = True) -> None:
    """Raise ValueError unless ``owner`` is a usable key part and ``status`` one of
    :data:`OWNED_STATUSES` (or "", every status, with ``any_status``)."""
    if not owner or "{" in owner or "}" in owner or len(owner) > 128:
        raise ValueError("invalid owner")
    if status not in (("", *OWNED_STATUSES) if any_status else OWNED_STATUSES):
        raise ValueError(f"invalid status {status!r}")


def owner_keys(owner: str) -> list[str]:
    """The keys of one owner's index, in the order ``owned.lua`` takes them."""
    base = f"{PREFIX}:{{own-{owner}}}"
    sets = [f"{base}:all", f"{base}:w", f"{base}:a", f"{base}:f", f"{base}:exp"]
    return [*sets, f"{base}:st", f"{base}:sum"]


class RedisOwnerIndex:
    """The owner index of the Redis stores (standalone, Sentinel, Cluster): one script call
    per operation, on the owner's slot. Mixed into the Redis store like its other indexes."""

    _owned: Any
    _read_command: str
    _index_call: Callable[[str, str], Any]
    _evalsha: Callable[[Any, list[str], list[Any]], Awaitable[Any]]
    _read_script: Callable[[Any, list[str], list[Any]], Awaitable[Any]]

    def _load_owner_script(self) -> None:
        self._owned = Script("owned.lua")

    async def index_owned(
        self,
        owner: str,
        game_id: str,
        status: str,
        created_ms: int,
        expires_ms: int,
        summary: bytes,
    ) -> None:
        """Add (or refresh) ``game_id`` in ``owner``'s index until ``expires_ms``."""
        check_owned(owner, status, any_status=False)
        args = ["put", game_id, status, created_ms, expires_ms, summary]
        with self._index_call("EVALSHA", "owned"):
            await self._evalsha(self._owned, owner_keys(owner), args)

    async def unindex_owned(self, owner: str, game_id: str) -> None:
        """Drop ``game_id`` from ``owner``'s index (a no-op if it is not there)."""
        check_owned(owner, "")
        with self._index_call("EVALSHA", "owned"):
            await self._evalsha(self._owned, owner_keys(owner), ["remove", game_id])

    async def owned_games(
        self,
        owner: str,
        status: str,
        now_ms: int,
        limit: int,
        before: tuple[int, str] | None = None,
    ) -> list[PublicGame]:
        """Up to ``limit`` live entries of ``owner`` (of ``status``; "" every status), newest
        first, after the cursor ``before``; expired entries met are skipped (a ``put`` drops
        them). Only reads (EVALSHA_RO: Redis does not hold it under CLIENT PAUSE WRITE)."""
        check_owned(owner, status)
        args: list[Any] = ["page", now_ms, limit, status]
        args += ["", ""] if before is None else [before[0], before[1]]
        with self._index_call(self._read_command, "owned"):
            flat = await self._read_script(self._owned, owner_keys(owner), args)
        return [
            PublicGame(flat[i].decode(), int(flat[i + 1]), bytes(flat[i + 2]))
            for i in range(0, len(flat), 3)
        ]


class MemoryOwnerIndex:
    """The owner index of the embedded store: owner -> game id -> (status, creation ms,
    expiry ms, summary). Mixed into :class:`~scopa.storage.MemoryStore`."""

    _check_open: Callable[[], None]

    def __init__(self) -> None:
        self._owned: dict[str, dict[str, tuple[str, int, int, bytes]]] = {}

    async def index_owned(
        self,
        owner: str,
        game_id: str,
        status: str,
        created_ms: int,
        expires_ms: int,
        summary: bytes,
    ) -> None:
        """Add (or refresh) ``game_id`` in ``owner``'s index until ``expires_ms``."""
        self._check_open()
        check_owned(owner, status, any_status=False)
        self._owned.setdefault(owner, {})[game_id] = (status, created_ms, expires_ms, summary)

    async def unindex_owned(self, owner: str, game_id: str) -> None:
        """Drop ``game_id`` from ``owner``'s index (a no-op if it is not there)."""
        self._check_open()
        check_owned(owner, "")
        entries = self._owned.get(owner, {})
        entries.pop(game_id, None)
        if not entries:
            self._owned.pop(owner, None)

    async def owned_games(
        self,
        owner: str,
        status: str,
        now_ms: int,
        limit: int,
        before: tuple[int, str] | None = None,
    ) -> list[PublicGame]:
        """Up to ``limit`` live entries of ``owner``, newest first (see GameStore)."""
        self._check_open()
        check_owned(owner, status)
        entries = self._owned.get(owner, {})
        for game, (_, _, expires, _) in list(entries.items()):
            if expires <= now_ms:
                del entries[game]
        rows = sorted(
            ((created, game) for game, (s, created, _, _) in entries.items() if status in ("", s)),
            reverse=True,
        )
        if before is not None:
            rows = [(c, g) for c, g in rows if (c, g) < before]
        return [PublicGame(game, created, entries[game][3]) for created, game in rows[:limit]]
