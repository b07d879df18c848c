"""Choose a game store from configuration."""

from __future__ import annotations

from scopa.storage._memory import MemoryStore
from scopa.storage._protocol import GameStore
from scopa.storage._redis import RedisStore


def open_store(redis_url: str | None) -> GameStore:
    """Return a RedisStore for ``redis_url`` (e.g. REDIS_URL), else an embedded MemoryStore."""
    if redis_url:
        return RedisStore.from_url(redis_url)
    return MemoryStore()
