"""The game store on a Redis Cluster: the same scripts and keys, routed by each game's hash tag.

Every key of a game carries the hash tag ``{game_id}``, so a create or commit is one EVALSHA on
the game's shard; commit.lua announces the new version with SPUBLISH (sharded pub/sub) on the
game's channel, which hashes to the same slot. Watchers share ONE pub/sub link per shard
(SSUBSCRIBE), each behind its own :class:`~scopa.storage._fanout.Fanout`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from types import TracebackType
from typing import Any, ClassVar, cast

from opentelemetry import trace
from redis.asyncio import RedisCluster
from redis.asyncio.cluster import ClusterNode
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import (
    ClusterDownError,
    ClusterError,
    NoScriptError,
    RedisClusterException,
    RedisError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from scopa._spans import LeafSpans
from scopa.storage._errors import OutcomeUnknown, StorageUnavailable
from scopa.storage._fanout import Fanout, VersionQueue
from scopa.storage._keys import channel
from scopa.storage._pubsub import RedisLink
from scopa.storage._redis import RedisStore, _Call, span_attributes
from scopa.storage._scripts import Script
from scopa.storage._target import RedisTarget

__all__ = ["RedisClusterStore"]

_LOST = (RedisConnectionError, RedisTimeoutError, OSError)
_CLUSTER_DOWN = (ClusterError, RedisClusterException, TryAgainError)
"""The cluster refused the command (a slot without a primary, a failover under way): nothing
ran, so it is StorageUnavailable like a lost connection."""
_LINK_SKIPPED = ("health_check_interval", "retry", "connection_class")
_RETRIES = 2
"""Calls the cluster client sends again after reading the slot map anew (a failover moved a
slot, a primary refused a connection). redis-py's default of ten made a call to a stalled
shard wait eleven socket timeouts."""


class _ScriptRoutedCluster(RedisCluster):  # type: ignore[type-arg]
    """redis-py's cluster client, routing EVALSHA_RO by its keys as it routes EVALSHA (it asks
    a node ``COMMAND GETKEYS`` for any other command with keys in its arguments).

    A call that timed out is not sent again: the shard may have run it (a write's outcome is
    then unknown, and a resent commit would read as a conflict), and a stalled shard would
    stall the retry too."""

    ERRORS_ALLOW_RETRY: ClassVar[tuple[type[RedisError], ...]] = cast(
        "tuple[type[RedisError], ...]",  # the stubs' SlotNotCoveredError is no RedisError
        (RedisConnectionError, ClusterDownError, SlotNotCoveredError),
    )

    async def _determine_slot(self, command: str, *args: Any) -> int:
        if command.upper() in ("EVAL_RO", "EVALSHA_RO") and len(args) >= 2:
            slots = {self.keyslot(key) for key in args[2 : 2 + int(args[1])]}
            if len(slots) == 1:
                return slots.pop()
        slot: int = await super()._determine_slot(command, *args)  # type: ignore[misc]
        return slot


class RedisClusterStore(RedisStore):
    """A GameStore on a Redis Cluster (``redis+cluster://`` / ``rediss+cluster://``).

    Reads and writes go through :class:`redis.asyncio.RedisCluster`, which follows MOVED/ASK
    redirections and refreshes the slot map after a failover. A write whose connection fails
    raises ``OutcomeUnknown`` (the client cannot tell whether the shard ran it: retry with the
    same request_id). Readiness PINGs every primary.
    """

    _publish = "SPUBLISH"
    _read_command = "EVALSHA_RO"

    def __init__(
        self,
        cluster: RedisCluster[bytes],
        tracer_provider: trace.TracerProvider | None = None,
        *,
        fanout_queue_size: int = 8,
    ) -> None:
        self._cluster: Any = cast(Any, cluster)  # the stubs lack most async cluster commands
        self._client = self._cluster  # HMGET and pipelines route by key
        self._create = Script("create.lua")
        self._commit = Script("commit.lua")
        self._load_index_scripts()
        self._load_outbox_scripts()
        self._load_owner_script()
        self._spans = LeafSpans(trace.get_tracer("scopa.storage", tracer_provider=tracer_provider))
        seed = cluster.get_connection_kwargs()
        self._attrs = {
            op: span_attributes(seed, op) for op in ("HMGET", "EVALSHA", "PIPELINE", "PING")
        }
        self._fanout_queue_size = fanout_queue_size
        self._fanouts: dict[str, Fanout] = {}

    def _call(self, command: str, operation: str) -> _Call:
        return _ClusterCall(self._spans, f"{command} {operation}", self._attrs[command])

    @classmethod
    def from_target(
        cls,
        target: RedisTarget,
        *,
        socket_timeout: float = 5.0,
        tracer_provider: trace.TracerProvider | None = None,
    ) -> RedisClusterStore:
        """Build a store on the cluster whose seed nodes ``target`` lists."""
        cluster: RedisCluster[bytes] = _ScriptRoutedCluster(
            startup_nodes=[ClusterNode(host, port) for host, port in target.nodes],
            username=target.username,
            password=target.password,
            socket_timeout=socket_timeout,
            socket_connect_timeout=socket_timeout,
            retry=Retry(NoBackoff(), _RETRIES),  # type: ignore[arg-type]  # stubs: sync Retry
            decode_responses=False,
            **target.connection_options(),
        )
        return cls(cluster, tracer_provider)

    @property
    def cluster(self) -> RedisCluster[bytes]:
        """The cluster client every operation goes through."""
        return cast("RedisCluster[bytes]", self._cluster)

    @property
    def fanouts(self) -> dict[str, Fanout]:
        """The shared subscription of each shard (by node name) that has had a watcher."""
        return self._fanouts

    def subscribe(
        self, game_id: str, skip: Callable[[int], bool] | None = None
    ) -> AbstractAsyncContextManager[VersionQueue]:
        """Yield the versions published while the context is open (SSUBSCRIBE on its shard),
        but those ``skip`` is true for."""
        return self._subscribe(channel(game_id), skip)

    async def ping(self) -> None:
        """Raise StorageUnavailable unless every primary answers PING."""
        with self._call("PING", "ping"):
            await self._cluster.ping(target_nodes=RedisCluster.PRIMARIES)

    async def close(self) -> None:
        """Close every shard's shared subscription and the cluster client."""
        for fanout in self._fanouts.values():
            await fanout.close()
        await self._cluster.aclose()

    async def _hmget(self, key: str, fields: list[str]) -> list[bytes | None]:
        """HMGET on the key's shard (the cluster client follows redirections)."""
        values: list[bytes | None] = await self._cluster.hmget(key, fields)
        return values

    async def _read_script(self, script: Script, keys: list[str], args: list[Any]) -> Any:
        """Run ``script``, which only reads, as EVALSHA_RO on the keys' shard (not held under
        CLIENT PAUSE WRITE); a reply that never came is StorageUnavailable."""
        try:
            return await self._on_shard(self._cluster.evalsha_ro, script, keys, args)
        except (RedisConnectionError, RedisTimeoutError) as exc:
            raise StorageUnavailable(str(exc)) from exc

    async def _evalsha(
        self, script: Script, keys: list[str], args: list[Any], *, resend: bool = False
    ) -> Any:
        """Run ``script`` on the keys' shard; a reply that never came is OutcomeUnknown.

        ``resend`` is the standalone store's (a write safe to run twice); the cluster client
        reconnects to a shard on its own."""
        try:
            return await self._on_shard(self._cluster.evalsha, script, keys, args)
        except (RedisConnectionError, RedisTimeoutError) as exc:
            raise OutcomeUnknown(str(exc)) from exc

    async def _on_shard(
        self, run: Callable[..., Awaitable[Any]], script: Script, keys: list[str], args: list[Any]
    ) -> Any:
        """``run`` (EVALSHA or EVALSHA_RO) of ``script``, loading the script first on a shard
        that lacks it (a new or flushed one: NOSCRIPT means nothing ran)."""
        try:
            return await run(script.sha, len(keys), *keys, *args)
        except NoScriptError:
            await self._cluster.script_load(script.text)
            return await run(script.sha, len(keys), *keys, *args)

    @asynccontextmanager
    async def _subscribe(
        self, name: str, skip: Callable[[int], bool] | None
    ) -> AsyncIterator[VersionQueue]:
        try:
            await self._cluster.initialize()
            node = self._cluster.get_node_from_key(name)
        except (*_LOST, *_CLUSTER_DOWN) as exc:
            raise StorageUnavailable(str(exc)) from exc
        if node is None:
            raise StorageUnavailable(f"no node serves the slot of {name!r}")
        async with self._shard_fanout(node).subscribe(name, skip) as versions:
            yield versions

    def _shard_fanout(self, node: ClusterNode) -> Fanout:
        fanout = self._fanouts.get(node.name)
        if fanout is None:
            kwargs = {k: v for k, v in node.connection_kwargs.items() if k not in _LINK_SKIPPED}
            connection_class = node.connection_class
            fanout = Fanout(
                lambda: RedisLink.open(kwargs, connection_class, sharded=True),
                queue_size=self._fanout_queue_size,
                lost=_LOST,
            )
            self._fanouts[node.name] = fanout
        return fanout


class _ClusterCall(_Call):
    """A store operation on the cluster: a refusal by the cluster is StorageUnavailable too."""

    __slots__ = ()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        super().__exit__(exc_type, exc, tb)
        if isinstance(exc, _CLUSTER_DOWN):
            raise StorageUnavailable(str(exc)) from exc
