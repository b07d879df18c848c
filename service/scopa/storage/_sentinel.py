"""The game store behind Redis Sentinel: the standalone store on a pool that follows the master.

:class:`redis.asyncio.sentinel.SentinelConnectionPool` asks the sentinels for the master's
address on every new connection and drops connections to a demoted master, so after a
failover the store (its shared pub/sub link included) reconnects to the new master.
"""

from __future__ import annotations

from typing import Any, cast

from opentelemetry import trace
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool
from redis.exceptions import ResponseError

from scopa.storage._redis import RedisStore, is_refusal
from scopa.storage._scripts import Script
from scopa.storage._target import RedisTarget

__all__ = ["SentinelStore", "sentinel_store"]


class SentinelStore(RedisStore):
    """A RedisStore on a pool that asks the sentinels for the master on every new connection.

    A master demoted by a failover keeps its clients; configured with ``min-replicas-to-write``
    it refuses writes (NOREPLICAS) instead of taking writes the new master never sees. On such a
    refusal every pooled connection is dropped, so the next command asks the sentinels again.
    """

    _master: tuple[str, int] | None = None

    async def ping(self) -> None:
        """Ask the sentinels where the master is (reconnecting if it moved), then PING it.

        The readiness check runs this every few seconds, so after a failover the pooled
        connections (idle ones at once, busy ones when released) and the shared pub/sub link
        move to the new master within one check, even while the old one hangs; watchers re-read
        from their last version.
        """
        pool = cast("SentinelConnectionPool[Any]", self._pool)
        with self._call("PING", "ping"):
            master = await pool.get_master_address()
        if self._master is not None and master != self._master:
            self._drop_pipes()
            await self._fanout.reconnect()
        self._master = master
        await super().ping()

    async def _evalsha(
        self, script: Script, keys: list[str], args: list[Any], *, resend: bool = False
    ) -> Any:
        try:
            return await super()._evalsha(script, keys, args, resend=resend)
        except ResponseError as exc:
            if is_refusal(exc):
                self._drop_pipes()
                await self._pool.disconnect()
            raise


def sentinel_store(
    target: RedisTarget,
    *,
    socket_timeout: float = 5.0,
    tracer_provider: trace.TracerProvider | None = None,
) -> SentinelStore:
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
    return SentinelStore(pool, tracer_provider)
