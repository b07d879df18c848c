"""The Redis side of the fan-out seam: one dedicated pub/sub connection (SUBSCRIBE).

It is a plain connection outside the store's pool. A Redis Cluster store would provide the same
:class:`~scopa.storage._fanout.PubSubLink` with SSUBSCRIBE (sharded pub/sub) per shard and
publish with SPUBLISH; the channel names already carry the game's hash tag.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from redis.asyncio.connection import Connection

from scopa.storage._fanout import Message

_KINDS = {b"message": "message", b"subscribe": "subscribe", b"unsubscribe": "unsubscribe"}


class RedisLink:
    """A :class:`~scopa.storage._fanout.PubSubLink` on one Redis connection."""

    def __init__(self, connection: Connection) -> None:
        self._conn = connection

    @classmethod
    async def open(cls, connection_kwargs: Mapping[str, Any]) -> RedisLink:
        """Connect a new connection with the store pool's settings."""
        connection = Connection(**connection_kwargs)
        await connection.connect()
        return cls(connection)

    async def subscribe(self, channel: str) -> None:
        """Send SUBSCRIBE."""
        await self._conn.send_command("SUBSCRIBE", channel, check_health=False)

    async def unsubscribe(self, channel: str) -> None:
        """Send UNSUBSCRIBE."""
        await self._conn.send_command("UNSUBSCRIBE", channel, check_health=False)

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
