"""Choose a game store from configuration."""

from __future__ import annotations

from scopa.storage._memory import MemoryStore
from scopa.storage._protocol import GameStore
from scopa.storage._redis import RedisStore


def open_store(redis_url: str | None, timeout_s: float = 5.0) -> GameStore:
    """Return a RedisStore for ``redis_url`` (e.g. REDIS_URL), else an embedded MemoryStore.

    ``timeout_s`` bounds each Redis command and connection attempt.
    """
    if redis_url:
        return RedisStore.from_url(redis_url, socket_timeout=timeout_s)
    return MemoryStore()
