"""The Redis side of the fan-out seam: one dedicated pub/sub connection.

It is a connection outside the store's pool: SUBSCRIBE on standalone Redis and Sentinel, and
SSUBSCRIBE (sharded pub/sub) on each shard of a Redis Cluster, whose commit script publishes
with SPUBLISH; the channel names carry the game's hash tag, so they live on its shard.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from redis.asyncio.connection import AbstractConnection, Connection

from scopa.storage._fanout import Message

_KINDS = {
    b"message": "message",
    b"subscribe": "subscribe",
    b"unsubscribe": "unsubscribe",
    b"smessage": "message",
    b"ssubscribe": "subscribe",
    b"sunsubscribe": "unsubscribe",
}


class RedisLink:
    """A :class:`~scopa.storage._fanout.PubSubLink` on one Redis connection.

    ``sharded`` links use SSUBSCRIBE / SUNSUBSCRIBE (Redis Cluster's sharded pub/sub, one link
    per shard); their smessage / ssubscribe replies are reported like the plain ones.
    """

    def __init__(self, connection: AbstractConnection, *, sharded: bool = False) -> None:
        self._conn = connection
        self._prefix = "S" if sharded else ""

    @classmethod
    async def open(
        cls,
        connection_kwargs: Mapping[str, Any],
        connection_class: type[AbstractConnection] = Connection,
        *,
        sharded: bool = False,
    ) -> RedisLink:
        """Connect a new connection with the store pool's settings (TLS, Sentinel included)."""
        connection = connection_class(**connection_kwargs)
        await connection.connect()
        return cls(connection, sharded=sharded)

    async def subscribe(self, channel: str) -> None:
        """Send SUBSCRIBE (SSUBSCRIBE when sharded)."""
        await self._conn.send_command(f"{self._prefix}SUBSCRIBE", channel, check_health=False)

    async def unsubscribe(self, channel: str) -> None:
        """Send UNSUBSCRIBE (SUNSUBSCRIBE when sharded)."""
        await self._conn.send_command(f"{self._prefix}UNSUBSCRIBE", channel, check_health=False)

    async def next_message(self, timeout: float) -> Message | None:
        """The next push message, or None when ``timeout`` passes first."""
        connection: Any = self._conn  # the stubs predate push_request
        reply = await connection.read_response(timeout=timeout, push_request=True)
        if not isinstance(reply, list) or len(reply) < 3:
            return None
        kind = _KINDS.get(_bytes(reply[0]))
        if kind is None:
            return None
        return Message(kind, _bytes(reply[1]).decode(), _bytes(reply[2]))

    async def aclose(self) -> None:
        """Close the connection."""
        await self._conn.disconnect()


def _bytes(value: object) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()
