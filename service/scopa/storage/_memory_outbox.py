"""The webhook outbox of the embedded store: the same contract as the Redis stores' (one
process, so the index is exact: a game is indexed while its outbox holds entries)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scopa.storage._outbox import OutboxClaim, OutboxEntry, OutboxItem, outbox_shard

__all__ = ["MemoryOutbox"]


@dataclass(slots=True)
class _Entry:
    payload: bytes
    due_ms: int
    attempts: int = 0
    lease: str = ""


class MemoryOutbox:
    """Mixed into :class:`~scopa.storage._memory.MemoryStore`; never awaits, so atomic."""

    def __init__(self) -> None:
        self._outboxes: dict[str, dict[str, _Entry]] = {}

    def _enqueue(self, game_id: str, version: int, outbox: Sequence[OutboxItem]) -> None:
        """Write a commit's entries (called inside the commit), due at ``version`` (at once, in
        version order, as the Redis stores do)."""
        if outbox:
            entries = self._outboxes.setdefault(game_id, {})
            for entry_id, payload in outbox:
                entries.setdefault(entry_id, _Entry(payload, version))

    async def touch_outbox(self, game_id: str, now_ms: int) -> None:
        """Nothing to index ahead: the entries themselves are the index here."""

    async def due_outboxes(self, shard: int, now_ms: int, limit: int) -> list[str]:
        """Up to ``limit`` games of ``shard`` with an entry due by ``now_ms``."""
        due = [
            game_id
            for game_id, entries in self._outboxes.items()
            if outbox_shard(game_id) == shard and any(e.due_ms <= now_ms for e in entries.values())
        ]
        return due[:limit]

    async def claim_outbox(
        self, game_id: str, now_ms: int, lease_ms: int, limit: int, lease: str
    ) -> OutboxClaim:
        """Lease up to ``limit`` entries due by ``now_ms`` (see RedisOutbox.claim_outbox)."""
        entries = self._outboxes.get(game_id, {})
        due = sorted((e.due_ms, i) for i, e in entries.items() if e.due_ms <= now_ms)[:limit]
        claimed = []
        for _, entry_id in due:
            entry = entries[entry_id]
            entry.attempts += 1
            entry.lease = lease
            entry.due_ms = now_ms + lease_ms
            claimed.append(OutboxEntry(entry_id, entry.payload, entry.attempts))
        return OutboxClaim(tuple(claimed), self._next_due(game_id))

    async def finish_outbox(
        self, game_id: str, entry_id: str, lease: str, retry_at_ms: int | None
    ) -> int | None:
        """Drop or reschedule a leased entry (see RedisOutbox.finish_outbox)."""
        entries = self._outboxes.get(game_id, {})
        entry = entries.get(entry_id)
        if entry is not None and entry.lease == lease:
            if retry_at_ms is None:
                del entries[entry_id]
            else:
                entry.due_ms = retry_at_ms
        return self._next_due(game_id)

    async def settle_outbox(
        self, game_id: str, next_due_ms: int | None, claimed_ms: int, grace_ms: int
    ) -> None:
        """Forget a game whose outbox is empty."""
        if not self._outboxes.get(game_id, True):
            del self._outboxes[game_id]

    def _next_due(self, game_id: str) -> int | None:
        entries = self._outboxes.get(game_id)
        return min((e.due_ms for e in entries.values()), default=None) if entries else None
