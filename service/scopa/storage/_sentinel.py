"""The game store behind Redis Sentinel: the standalone store on a pool that follows the master.

:class:`redis.asyncio.sentinel.SentinelConnectionPool` asks the sentinels for the master's
address on every new connection and drops connections to a demoted master, so after a
failover the store (its shared pub/sub link included) reconnects to the new master.
"""

from __future__ import annotations

from typing import Any

from opentelemetry import trace
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool

from scopa.storage._redis import RedisStore
from scopa.storage._target import RedisTarget

__all__ = ["sentinel_store"]


def sentinel_store(
    target: RedisTarget,
    *,
    socket_timeout: float = 5.0,
    tracer_provider: trace.TracerProvider | None = None,
) -> RedisStore:
    """A RedisStore on the master ``target`` names, found through its sentinels.

    The URL's credentials are the master's; the sentinels are asked without any.
    """
    assert target.master is not None
    timeouts: dict[str, Any] = {
        "socket_timeout": socket_timeout,
        "socket_connect_timeout": socket_timeout,
    }
    auth: dict[str, Any] = {"username": target.username, "password": target.password}
    sentinel = Sentinel(
        list(target.nodes),
        sentinel_kwargs={**timeouts, **target.connection_options()},
        **timeouts,
    )
    pool: SentinelConnectionPool[Any] = SentinelConnectionPool(
        target.master,
        sentinel,
        db=target.db,
        decode_responses=False,
        **target.connection_options(),
        **auth,
        **timeouts,
    )
    return RedisStore(pool, tracer_provider)
