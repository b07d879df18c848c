"""Per-client rate limits on the calls that create data (CreateGame, JoinGame).

A policy of the application, not of a transport: each transport works out the client's key (its
address, or the address a trusted proxy reports) and calls :meth:`RateLimits.check` before the
use case; a signed-in caller (a verified identity token) is counted by the digest of its
subject instead, wherever it calls from. The counters live in the `limits` library's storage:
Redis when the games are on Redis, so every replica counts against the same limit, else the
process's memory.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from limits import RateLimitItem, parse
from limits.aio.storage import (
    MemoryStorage,
    RedisClusterStorage,
    RedisSentinelStorage,
    RedisStorage,
    Storage,
)
from limits.aio.strategies import MovingWindowRateLimiter

from scopa.storage import RedisMode, RedisTarget, StorageUnavailable, parse_redis_url

from ._errors import AppError

__all__ = ["RateLimited", "RateLimits", "client_key", "parse_rate"]

_KEY_PREFIX = "scopa:limits"
_UNKNOWN_CLIENT = "-"
_MAX_KEY = 64


def client_key(peer: str, forwarded: str = "", trusted_hops: int = 1) -> str:
    """The client a rate limit counts: the peer address, or the one a trusted proxy reports.

    ``forwarded`` is the trusted proxy header's value (empty when none is configured or sent):
    one address (``X-Real-IP``) or a comma-separated ``X-Forwarded-For`` list, to which each
    of the ``trusted_hops`` proxies in front of the server appended the address it saw, so
    the client is the ``trusted_hops``-th entry from the right.
    """
    hops = [part.strip() for part in forwarded.split(",") if part.strip()]
    if not hops:
        return peer[:_MAX_KEY] or _UNKNOWN_CLIENT
    return hops[-min(trusted_hops, len(hops))][:_MAX_KEY]


class RateLimited(AppError):
    """Too many calls of one kind from one client; retry after ``retry_after_s`` seconds."""

    reason = "RATE_LIMITED"

    def __init__(self, message: str, *, retry_after_s: float = 1.0) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


def parse_rate(text: str) -> RateLimitItem | None:
    """``"30/minute"`` (any `limits` notation) as a limit; ``"off"`` or ``"0"`` as None."""
    if text.strip().lower() in ("off", "0", "none", ""):
        return None
    return parse(text)


@dataclass(frozen=True)
class _Rule:
    item: RateLimitItem
    text: str


def _storage_for(redis_url: str | None) -> Storage:
    """The `limits` storage on the Redis deployment ``redis_url`` names (see parse_redis_url)."""
    if not redis_url:
        return MemoryStorage()
    target = parse_redis_url(redis_url)
    if target.mode is RedisMode.STANDALONE:
        return RedisStorage(f"async+{redis_url}", implementation="redispy", key_prefix=_KEY_PREFIX)
    nodes = ",".join(f"{host}:{port}" for host, port in target.nodes)
    options: dict[str, Any] = target.connection_options()
    options.update({k: v for k, v in _auth(target).items() if v is not None})
    if target.mode is RedisMode.CLUSTER:
        return RedisClusterStorage(
            f"async+redis+cluster://{nodes}",
            implementation="redispy",
            key_prefix=_KEY_PREFIX,
            **options,
        )
    return RedisSentinelStorage(
        f"async+redis+sentinel://{nodes}/{target.master}",
        implementation="redispy",
        key_prefix=_KEY_PREFIX,
        use_replicas=False,  # counters are read back at once: only the master is current
        db=target.db,
        **options,
    )


def _auth(target: RedisTarget) -> dict[str, str | None]:
    return {"username": target.username, "password": target.password}


class RateLimits:
    """Moving-window limits per (action, client key), e.g. ``{"create_game": "30/minute"}``."""

    def __init__(self, limits: Mapping[str, str], storage: Storage | None = None) -> None:
        self._rules: dict[str, _Rule] = {}
        for action, text in limits.items():
            item = parse_rate(text)
            if item is not None:
                self._rules[action] = _Rule(item, text)
        self._storage = storage if storage is not None else MemoryStorage()
        self._limiter = MovingWindowRateLimiter(self._storage)
        self._subject_of: Callable[[str | None], Awaitable[str]] | None = None

    @classmethod
    def for_store(cls, limits: Mapping[str, str], redis_url: str | None) -> RateLimits:
        """Limits counted on the Redis of ``redis_url`` (shared by replicas), else in memory."""
        return cls(limits, _storage_for(redis_url))

    def identify_with(self, subject_of: Callable[[str | None], Awaitable[str]]) -> None:
        """Count signed-in callers by who they are: ``subject_of(bearer)`` is the caller's
        owner digest ("" when the bearer is no verified identity token)."""
        self._subject_of = subject_of

    async def check(self, action: str, client: str, bearer: str | None = None) -> None:
        """Count one ``action`` by ``client`` (a signed-in ``bearer``'s: by its subject's
        digest, wherever it calls from); raise :class:`RateLimited` when over its limit."""
        rule = self._rules.get(action)
        if rule is None:
            return
        key = client or _UNKNOWN_CLIENT
        if bearer and self._subject_of is not None:
            subject = await self._subject_of(bearer)
            if subject:
                key = f"sub:{subject}"[:_MAX_KEY]
        try:
            if await self._limiter.hit(rule.item, action, key):
                return
            stats = await self._limiter.get_window_stats(rule.item, action, key)
        except Exception as exc:  # the limits storage raises its backend's own errors
            raise StorageUnavailable(StorageUnavailable.message) from exc
        retry_after = max(0.0, stats.reset_time - time.time())
        raise RateLimited(
            f"too many {action} calls from this client (limit {rule.text}); retry later",
            retry_after_s=round(retry_after, 3),
        )
