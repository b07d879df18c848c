"""The webhook outbox: entries written atomically with a game's commit, sent by a worker.

A commit that produces webhook events writes them into the game's own outbox (two keys with the
game's hash tag, ``outbox_keys``) in the same script as the game: a replica that dies right
after the commit loses nothing. Workers find games with entries through a sharded index
(``OUTBOX_SHARDS`` sorted sets, hash tags ``{wh-<k>}``, like the deadline index), which on a
Redis Cluster lives in other slots than the game, so it cannot be written in the commit: it is
a hint written just BEFORE the commit (``touch_outbox``) and dropped only once a worker saw the
game's outbox empty with no touched commit possibly still on its way (``settle_outbox``, see
``lua/outbox_index.lua``). A worker leases the entries it sends (``claim_outbox``): another
replica takes them over only after the lease, if the first one died.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from scopa.storage._index import DEADLINE_SHARDS, deadline_shard
from scopa.storage._keys import PREFIX, outbox_keys
from scopa.storage._scripts import Script

__all__ = [
    "OUTBOX_SHARDS",
    "OUTBOX_TTL_S",
    "OutboxClaim",
    "OutboxEntry",
    "OutboxItem",
    "RedisOutbox",
    "outbox_args",
    "outbox_index_keys",
    "outbox_shard",
]

OUTBOX_SHARDS: Final = DEADLINE_SHARDS
"""How many sorted sets index the games with outbox entries (every worker scans each)."""

OUTBOX_TTL_S: Final = 86_400
"""How long a game's outbox outlives its last commit: its entries are sent (or dead-lettered)
well within it, whatever becomes of the game."""

OutboxItem = tuple[str, bytes]
"""An entry a commit writes: its id (stable across attempts) and its payload (opaque)."""


@dataclass(frozen=True, slots=True)
class OutboxEntry:
    """An entry a worker claimed: its id, its payload and the attempts so far (this one too)."""

    entry_id: str
    payload: bytes
    attempts: int


@dataclass(frozen=True, slots=True)
class OutboxClaim:
    """The entries a claim leased, and when the game's outbox has its next entry due."""

    entries: tuple[OutboxEntry, ...]
    next_due_ms: int | None


def outbox_shard(game_id: str) -> int:
    """The outbox index shard of a game (the deadline shard's function)."""
    return deadline_shard(game_id)


def outbox_index_keys(shard: int) -> list[str]:
    """The index of one shard: when to look at each game, and when a commit last touched it."""
    return [f"{PREFIX}:{{wh-{shard}}}:z", f"{PREFIX}:{{wh-{shard}}}:t"]


def outbox_args(outbox: Sequence[OutboxItem]) -> list[Any]:
    """The trailing script arguments of a create or commit writing ``outbox``: its ttl, then
    each id and payload (none at all without entries)."""
    if not outbox:
        return []
    args: list[Any] = [OUTBOX_TTL_S * 1000]
    for entry_id, payload in outbox:
        args += [entry_id, payload]
    return args


def _next_due(value: Any) -> int | None:
    return None if value in (b"", "", None) else int(float(value))


class RedisOutbox:
    """The outbox operations of the Redis stores (standalone, Sentinel, Cluster).

    Mixed into :class:`~scopa.storage._redis.RedisStore`, like :class:`._index.RedisIndexes`.
    """

    _client: Any
    _outbox: Any
    _outbox_index: Any

    _index_call: Callable[[str, str], Any]
    _evalsha: Callable[[Any, list[str], list[Any]], Awaitable[Any]]

    def _load_outbox_scripts(self) -> None:
        self._outbox = Script("outbox.lua")
        self._outbox_index = Script("outbox_index.lua")

    async def touch_outbox(self, game_id: str, now_ms: int) -> None:
        """Index the game's outbox as due now: called before a commit that writes entries."""
        keys = outbox_index_keys(outbox_shard(game_id))
        with self._index_call("EVALSHA", "outbox_index"):
            await self._evalsha(self._outbox_index, keys, [game_id, "touch", now_ms])

    async def due_outboxes(self, shard: int, now_ms: int, limit: int) -> list[str]:
        """Up to ``limit`` games of ``shard`` whose outbox is due by ``now_ms``."""
        key = outbox_index_keys(shard)[0]
        with self._index_call("ZRANGEBYSCORE", "due_outboxes"):
            rows = await self._client.zrangebyscore(key, "-inf", now_ms, start=0, num=limit)
        return [member.decode() for member in rows]

    async def claim_outbox(
        self, game_id: str, now_ms: int, lease_ms: int, limit: int, lease: str
    ) -> OutboxClaim:
        """Lease up to ``limit`` entries due by ``now_ms`` for ``lease_ms`` under ``lease``."""
        args = ["claim", now_ms, lease_ms, limit, lease]
        with self._index_call("EVALSHA", "outbox"):
            flat = await self._evalsha(self._outbox, outbox_keys(game_id), args)
        entries = tuple(
            OutboxEntry(flat[i].decode(), bytes(flat[i + 1]), int(flat[i + 2]))
            for i in range(1, len(flat), 3)
        )
        return OutboxClaim(entries, _next_due(flat[0]))

    async def finish_outbox(
        self, game_id: str, entry_id: str, lease: str, retry_at_ms: int | None
    ) -> int | None:
        """Drop a leased entry (``retry_at_ms`` None: sent or given up) or schedule its next
        attempt; nothing if its lease is no longer ``lease``. Returns the outbox's next due."""
        args = ["finish", entry_id, lease, "" if retry_at_ms is None else retry_at_ms]
        with self._index_call("EVALSHA", "outbox"):
            result = await self._evalsha(self._outbox, outbox_keys(game_id), args)
        return _next_due(result[0])

    async def settle_outbox(
        self, game_id: str, next_due_ms: int | None, claimed_ms: int, grace_ms: int
    ) -> None:
        """Re-index the game after a worker's pass (see ``lua/outbox_index.lua``)."""
        keys = outbox_index_keys(outbox_shard(game_id))
        due = "" if next_due_ms is None else next_due_ms
        args = [game_id, "settle", due, claimed_ms, grace_ms]
        with self._index_call("EVALSHA", "outbox_index"):
            await self._evalsha(self._outbox_index, keys, args)
