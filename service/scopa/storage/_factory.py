"""Choose a game store from configuration."""

from __future__ import annotations

from scopa.storage._cluster import RedisClusterStore
from scopa.storage._memory import MemoryStore
from scopa.storage._protocol import GameStore
from scopa.storage._redis import RedisStore
from scopa.storage._sentinel import sentinel_store
from scopa.storage._target import RedisMode, parse_redis_url


def open_store(redis_url: str | None, timeout_s: float = 5.0) -> GameStore:
    """Return the store ``redis_url`` (e.g. REDIS_URL) names, else an embedded MemoryStore.

    ``redis://`` / ``rediss://`` is one server, ``redis+cluster://`` a Redis Cluster and
    ``redis+sentinel://`` a master found through Sentinel (see :func:`parse_redis_url`).
    ``timeout_s`` bounds each Redis command and connection attempt.
    """
    if not redis_url:
        return MemoryStore()
    target = parse_redis_url(redis_url)
    if target.mode is RedisMode.CLUSTER:
        return RedisClusterStore.from_target(target, socket_timeout=timeout_s)
    if target.mode is RedisMode.SENTINEL:
        return sentinel_store(target, socket_timeout=timeout_s)
    return RedisStore.from_url(redis_url, socket_timeout=timeout_s)
