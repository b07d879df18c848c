"""Redis game store: one HMGET per load, one EVALSHA per create or commit."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import Any, Final, Protocol, cast

import hiredis
from opentelemetry import context, trace
from opentelemetry.trace import SpanKind, Status, StatusCode
from redis.asyncio import BlockingConnectionPool, ConnectionPool, Redis
from redis.asyncio.connection import Connection
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import (  # type: ignore[attr-defined]  # the stubs predate OutOfMemoryError
    NoScriptError,
    OutOfMemoryError,
    ReadOnlyError,
    ResponseError,
)
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.maint_notifications import MaintNotificationsConfig

from scopa._spans import LeafSpans
from scopa.storage._errors import (
    DuplicateRequest,
    GameExists,
    GameNotFound,
    OutcomeUnknown,
    StorageFull,
    StorageUnavailable,
    VersionConflict,
)
from scopa.storage._fanout import Fanout, VersionQueue
from scopa.storage._index import RedisIndexes
from scopa.storage._keys import (
    channel,
    check_game_id,
    check_ttl,
    events_key,
    game_key,
    legacy_events_key,
    outbox_keys,
    request_field,
    slot_field,
)
from scopa.storage._log import decode_entry, encode_entry
from scopa.storage._outbox import OutboxItem, RedisOutbox, outbox_args
from scopa.storage._owners import RedisOwnerIndex
from scopa.storage._pipe import Lost, SharedPipe, Stalled, reply_error
from scopa.storage._presence import RedisPresence
from scopa.storage._pubsub import RedisLink
from scopa.storage._scripts import Script
from scopa.storage._types import INITIAL_VERSION, CreateResult, Event, Snapshot

_OK, _NOT_FOUND, _CONFLICT, _DUPLICATE, _EXISTS = 0, 1, 2, 3, 4
_LEGACY_FIELD = b"e"
"""The payload's field in the event stream of earlier builds."""


class _AsyncClosable(Protocol):
    async def aclose(self) -> None: ...


def _ttl_ms(ttl_s: float) -> int:
    check_ttl(ttl_s)
    return max(1, round(ttl_s * 1000))


def _keys(game_id: str) -> list[str]:
    """The keys the scripts take: the game hash, the log, the log of earlier builds and the
    webhook outbox."""
    return [game_key(game_id), events_key(game_id), legacy_events_key(game_id)] + outbox_keys(
        game_id
    )


def _request_key(request_id: str, slot: str | None) -> tuple[str, str]:
    """The hash field and the tag of a request: its own field, or its slot's with its id."""
    if slot is None:
        return request_field(request_id), ""
    return slot_field(slot), f"{request_id}\n"


def _request_args(
    request_id: str | None, response: bytes | None, slot: str | None = None
) -> list[str | bytes]:
    """Return the (mode, field, tag, record) script arguments for an optional request id."""
    if request_id is None:
        return ["0", "", "", b""]
    field, tag = _request_key(request_id, slot)
    if response is None:
        return ["1", field, tag, b""]
    return ["2", field, tag, response]


_RECORD = re.compile(rb"~(\d+):(\d+)~")
"""The head of a request's record (after its tag): ``~<version>:<response length>~``. The
response follows; the state of that version is appended once the game has moved past it."""


def _record(version: int, response: bytes) -> bytes:
    """A request's record, as commit.lua stores it after the tag (without a state yet)."""
    return b"~%d:%d~" % (version, len(response)) + response


def _split_record(stored: bytes, state: bytes) -> tuple[bytes, bytes | None]:
    """The response of a record and the state of its version: the one appended to it, else
    the current ``state`` (the record is at the current version). A value of an earlier build
    is its response, which carries its state itself."""
    head = _RECORD.match(stored)
    if head is None:
        return stored, None
    end = head.end() + int(head[2])
    return stored[head.end() : end], stored[end:] or state


def _is_oom(exc: BaseException) -> bool:
    """Whether Redis refused a write because it is at maxmemory (noeviction)."""
    return isinstance(exc, OutOfMemoryError) or (
        isinstance(exc, ResponseError) and str(exc).startswith("OOM ")
    )


_REFUSALS = ("NOREPLICAS ", "MASTERDOWN ")
"""Replies by which Redis refuses a command without running it: a primary short of
``min-replicas-to-write`` replicas (e.g. demoted by a Sentinel failover), a replica cut from
its primary."""


def is_refusal(exc: BaseException) -> bool:
    """Whether Redis refused the command without running it (see ``_REFUSALS``)."""
    return isinstance(exc, ResponseError) and str(exc).startswith(_REFUSALS)


class _Call:
    """One store operation: a CLIENT span (no keys, no arguments) and StorageUnavailable.

    A plain context manager rather than the generic Redis instrumentation: one span per store
    operation, a leaf that is never made current, recorded once the operation ends
    (:class:`scopa._spans.LeafSpans`); an operation that fails gets its span from the tracer,
    with the error's type and status.
    """

    __slots__ = ("_attributes", "_name", "_spans", "_start")

    def __init__(self, spans: LeafSpans, name: str, attributes: Mapping[str, str | int]) -> None:
        self._spans = spans
        self._name = name
        self._attributes = attributes
        self._start = 0

    def __enter__(self) -> None:
        self._start = time.time_ns()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # Untraced on purpose (the readiness poll): no span, not even a root one.
        traced = not context.get_value(context._SUPPRESS_INSTRUMENTATION_KEY)
        if exc_type is None:
            if traced:
                self._spans.ended(
                    self._name, SpanKind.CLIENT, self._attributes, self._start, time.time_ns()
                )
            return
        if traced:
            span = self._spans.tracer.start_span(
                self._name,
                kind=SpanKind.CLIENT,
                attributes=self._attributes,
                start_time=self._start,
            )
            span.set_attribute("error.type", exc_type.__qualname__)
            span.set_status(Status(StatusCode.ERROR, exc_type.__name__))
            span.end()
        if isinstance(exc, RedisConnectionError | RedisTimeoutError) or (
            exc is not None and is_refusal(exc)
        ):
            raise StorageUnavailable(str(exc)) from exc
        if exc is not None and _is_oom(exc):
            raise StorageFull(str(exc)) from exc


def span_attributes(kwargs: Mapping[str, Any], operation: str) -> dict[str, str | int]:
    """The attributes of a store operation's span: the server, never keys or values."""
    attributes: dict[str, str | int] = {"db.system.name": "redis", "db.operation.name": operation}
    if isinstance(kwargs.get("host"), str):
        attributes["server.address"] = kwargs["host"]
    if isinstance(kwargs.get("port"), int):
        attributes["server.port"] = kwargs["port"]
    if isinstance(kwargs.get("db"), int):
        attributes["db.namespace"] = str(kwargs["db"])  # the database index, as a string
    return attributes


class _ConnectionLost(OutcomeUnknown):
    """The connection was closed or reset after a write was sent (not a timeout)."""


_READ_RETRY = Retry(ExponentialBackoff(cap=0.5, base=0.05), 2, (RedisConnectionError,))
"""Reads (and health-check PINGs) are sent again on a fresh connection after a lost one."""

_HEALTH_CHECK_INTERVAL_S = 5.0
"""A pooled connection idle for longer is PINGed before use, so a Redis restart costs nothing."""

NO_MAINT_NOTIFICATIONS: Final = MaintNotificationsConfig(enabled=False)
"""A pool's connection check, off while maintenance notifications are on: redis-py 8 turns them
on (``"auto"``) by default, and then hands out a pooled connection whose server has closed it
(a Redis restart less than :data:`_HEALTH_CHECK_INTERVAL_S` after its last use) without the
check, so a write went out on a dead socket and was answered OUTCOME_UNKNOWN though nothing
could have run. They are a RESP3 feature of managed Redis that the store does not use."""


class RedisStore(RedisIndexes, RedisOutbox, RedisPresence, RedisOwnerIndex):
    """A GameStore on Redis (or any Redis Cluster node set: one hash tag per game).

    Each operation is one CLIENT span named after its command and the store operation (e.g.
    ``EVALSHA commit``), with ``db.system.name``, ``db.operation.name`` (the Redis command),
    ``db.namespace`` (the database index) and the server's address only; none inside
    ``scopa.telemetry.untraced()`` (OpenTelemetry's suppress-instrumentation flag).

    Failures are told apart honestly: ``StorageUnavailable`` when nothing was sent (no
    connection, or a read that failed), ``OutcomeUnknown`` when a write was sent and its reply
    never came (it may have been applied: retry with the same request_id), ``StorageFull``
    when Redis refused the write at maxmemory. Version notifications of every watched game go
    through ONE pub/sub connection per store, outside the pool (see :mod:`._fanout`).
    """

    _publish = "PUBLISH"
    """The command commit.lua announces a new version with (SPUBLISH on a Redis Cluster)."""

    _read_command = "EVALSHA_RO"
    """The command :meth:`_read_script` sends, which names its spans."""

    def __init__(
        self,
        pool: ConnectionPool[Connection],
        tracer_provider: trace.TracerProvider | None = None,
        *,
        fanout_queue_size: int = 8,
    ) -> None:
        self._pool = pool
        self._client: Redis[bytes] = Redis(connection_pool=pool)
        # The store's own calls share two pipelined connections: one for its scripts, one for
        # its plain reads (HMGET), which a write held by Redis (CLIENT PAUSE WRITE, as in a
        # coordinated failover) must not hold up. The client's commands (pipelines, PING,
        # INFO) take pooled ones.
        timeout = pool.connection_kwargs.get("socket_timeout")
        self._pipe = SharedPipe(pool.make_connection, timeout)
        self._reads = SharedPipe(pool.make_connection, timeout)
        self._create = Script("create.lua")
        self._commit = Script("commit.lua")
        self._load_index_scripts()
        self._load_outbox_scripts()
        self._load_owner_script()
        self._spans = LeafSpans(trace.get_tracer("scopa.storage", tracer_provider=tracer_provider))
        self._attrs = {
            op: span_attributes(pool.connection_kwargs, op)
            for op in ("HMGET", "EVALSHA", "PIPELINE", "PING")
        }
        link_kwargs = {
            k: v
            for k, v in pool.connection_kwargs.items()
            if k not in ("health_check_interval", "retry")
        }
        self._fanout = Fanout(
            lambda: RedisLink.open(link_kwargs, pool.connection_class),
            queue_size=fanout_queue_size,
            lost=(RedisConnectionError, RedisTimeoutError, OSError),
        )

    def _call(self, command: str, operation: str) -> _Call:
        return _Call(self._spans, f"{command} {operation}", self._attrs[command])

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        max_connections: int | None = None,
        socket_timeout: float = 5.0,
        tracer_provider: trace.TracerProvider | None = None,
    ) -> RedisStore:
        """Build a store with its own connection pool (hiredis parser when installed).

        The pool blocks up to ``socket_timeout`` for a free connection instead of failing at
        once, PINGs connections idle for more than a few seconds before use, and sends reads
        again after a lost connection (never writes: see :meth:`_evalsha`).
        """
        pool: ConnectionPool[Connection] = BlockingConnectionPool.from_url(
            url,
            max_connections=max_connections or 100,
            timeout=socket_timeout,
            socket_timeout=socket_timeout,
            socket_connect_timeout=socket_timeout,
            health_check_interval=_HEALTH_CHECK_INTERVAL_S,
            retry=_READ_RETRY,
            decode_responses=False,
            maint_notifications_config=NO_MAINT_NOTIFICATIONS,
        )
        return cls(pool, tracer_provider)

    @property
    def fanout(self) -> Fanout:
        """The shared subscription behind every :meth:`subscribe`."""
        return self._fanout

    @property
    def pool(self) -> ConnectionPool[Connection]:
        """The connection pool shared by all operations."""
        return self._pool

    async def create(
        self,
        game_id: str,
        state: bytes,
        meta: bytes,
        events: Sequence[bytes],
        ttl_s: float,
        request_id: str | None = None,
        response: bytes | None = None,
        outbox: Sequence[OutboxItem] = (),
    ) -> CreateResult:
        """Atomically create a game at version 1 (see GameStore.create)."""
        check_game_id(game_id)
        args: list[Any] = [state, meta, _ttl_ms(ttl_s)]
        args += _request_args(request_id, response)
        args.append(encode_entry(INITIAL_VERSION, events))
        args += outbox_args(outbox)
        with self._call("EVALSHA", "create"):
            resend = request_id is not None and response is not None
            result = await self._evalsha(self._create, _keys(game_id), args, resend=resend)
        code = int(result[0])
        if code == _OK:
            return CreateResult(version=int(result[1]), created=True, response=response)
        if code == _DUPLICATE:
            return CreateResult(version=int(result[1]), created=False, response=bytes(result[2]))
        raise GameExists(game_id)

    async def load(
        self, game_id: str, request_id: str | None = None, slot: str | None = None
    ) -> Snapshot:
        """Return the game and the response cached for ``request_id`` in one HMGET."""
        fields = ["state", "meta", "version"]
        tag = ""
        if request_id is not None:
            field, tag = _request_key(request_id, slot)
            fields.append(field)
        with self._call("HMGET", "load"):
            values = await self._hmget(game_key(game_id), fields)
        state, meta, version = values[0], values[1], values[2]
        if state is None or meta is None or version is None:
            raise GameNotFound(game_id)
        cached = values[3] if request_id is not None else None
        if cached is None or not cached.startswith(tag.encode()):
            return Snapshot(state, meta, int(version))
        response, kept = _split_record(cached[len(tag) :], state)
        return Snapshot(state, meta, int(version), response, kept)

    async def commit(
        self,
        game_id: str,
        expected_version: int,
        state: bytes,
        meta: bytes,
        events: Sequence[bytes],
        ttl_s: float,
        request_id: str | None = None,
        response: bytes | None = None,
        slot: str | None = None,
        expected_digest: str | None = None,
        outbox: Sequence[OutboxItem] = (),
    ) -> int:
        """Compare-and-set the game in one EVALSHA and return its new version."""
        args: list[Any] = [expected_version, state, meta, _ttl_ms(ttl_s)]
        record = None if response is None else _record(expected_version + 1, response)
        args += _request_args(request_id, record, slot)
        args += [self._publish, channel(game_id)]
        args.append(encode_entry(expected_version + 1, events))
        args.append(expected_digest or "")
        args += outbox_args(outbox)
        with self._call("EVALSHA", "commit"):
            resend = record is not None and request_id is not None
            result = await self._evalsha(self._commit, _keys(game_id), args, resend=resend)
        code = int(result[0])
        if code == _OK:
            return int(result[1])
        if code == _NOT_FOUND:
            raise GameNotFound(game_id)
        if code == _CONFLICT:
            current = int(result[1])
            stored = Snapshot(bytes(result[2]), bytes(result[3]), current)
            raise VersionConflict(game_id, expected_version, current, stored)
        if code == _DUPLICATE and request_id is not None:
            response, kept = _split_record(bytes(result[1]), bytes(result[2]))
            raise DuplicateRequest(game_id, request_id, response, kept)
        raise AssertionError(f"unexpected commit.lua result {result!r}")

    async def events_since(self, game_id: str, version: int) -> list[Event]:
        """Return the events tagged with a version greater than ``version`` (one pipeline).

        The log holds one entry per version, so the entries wanted start at list index
        ``version``; a log not aligned so (none seen yet) is read whole and filtered, and a
        game not written since an earlier build is read from that build's stream.
        """
        start = max(version, 0)
        async with self._client.pipeline(transaction=False) as pipe:
            pipe.exists(game_key(game_id))
            pipe.lrange(events_key(game_id), start, -1)
            with self._call("PIPELINE", "events_since"):
                exists, entries = await pipe.execute()
        if not exists:
            raise GameNotFound(game_id)
        if entries and decode_entry(entries[0])[0] == start + 1:
            return _events(entries, version)
        with self._call("PIPELINE", "events_since"):
            return await self._whole_log(game_id, version)

    async def _whole_log(self, game_id: str, version: int) -> list[Event]:
        """The events after ``version`` of the whole log, or of an earlier build's stream."""
        async with self._client.pipeline(transaction=False) as pipe:
            pipe.lrange(events_key(game_id), 0, -1)
            pipe.xrange(legacy_events_key(game_id), min=f"{max(version + 1, 0)}-0", max="+")
            entries, legacy = await pipe.execute()
        if entries:
            return _events(entries, version)
        return [
            Event(int(entry_id.split(b"-", 1)[0]), fields[_LEGACY_FIELD])
            for entry_id, fields in legacy
        ]

    def subscribe(
        self, game_id: str, skip: Callable[[int], bool] | None = None
    ) -> AbstractAsyncContextManager[VersionQueue]:
        """Yield the versions published while the context is open (subscription confirmed),
        but those ``skip`` is true for.

        Every subscription of this store shares one pub/sub connection; none uses the pool.
        """
        return self._fanout.subscribe(channel(game_id), skip)

    async def ping(self) -> None:
        """Raise StorageUnavailable unless Redis answers PING, StorageFull at maxmemory."""
        with self._call("PING", "ping"):
            await self._client.ping()
            memory = await self._client.info("memory")
        limit = int(memory.get("maxmemory", 0))
        policy = str(memory.get("maxmemory_policy", "noeviction"))
        if limit and policy == "noeviction" and int(memory.get("used_memory", 0)) >= limit:
            raise StorageFull("used_memory has reached maxmemory")

    async def close(self) -> None:
        """Close the client, the shared subscription, both pipes and every pooled connection."""
        await self._fanout.close()
        self._drop_pipes()
        await cast(_AsyncClosable, self._client).aclose()
        await self._pool.disconnect()

    async def _hmget(self, key: str, fields: list[str]) -> list[bytes | None]:
        """HMGET through the reads' pipe; a lost connection is retried on a fresh one with the
        pool's retry policy (a read changes nothing), as the client does."""
        command = _pack("HMGET", key, *fields)
        values: list[bytes | None] = await _READ_RETRY.call_with_retry(
            lambda: self._read(command), _nothing_to_undo
        )
        return values

    def _drop_pipes(self) -> None:
        """Close both pipes; the next calls open new connections."""
        self._pipe.drop()
        self._reads.drop()

    async def _read(self, command: bytes) -> Any:
        reply = await self._reads.call(command)
        if isinstance(reply, hiredis.ReplyError):
            raise self._refused(reply)
        return reply

    async def _read_script(self, script: Script, keys: list[str], args: list[Any]) -> Any:
        """Run ``script``, which only reads, as EVALSHA_RO on the reads' pipe: Redis does not
        hold it under CLIENT PAUSE WRITE, as it holds every EVALSHA. A connection lost after it
        was sent is retried like a read; a reply that never came is StorageUnavailable."""
        command = _pack("EVALSHA_RO", script.sha, len(keys), *keys, *args)
        try:
            return await _READ_RETRY.call_with_retry(lambda: self._read(command), _nothing_to_undo)
        except NoScriptError:
            # SCRIPT FLUSH or a restarted Redis: NOSCRIPT means nothing ran.
            await self._read(_pack("SCRIPT", "LOAD", script.text))
            return await _READ_RETRY.call_with_retry(lambda: self._read(command), _nothing_to_undo)

    async def _evalsha(
        self, script: Script, keys: list[str], args: list[Any], *, resend: bool = False
    ) -> Any:
        """Run ``script``, telling "never sent" from "sent, reply lost".

        Failing to open a connection raises StorageUnavailable (nothing was sent); once the
        command is on the wire, a timeout or a lost connection raises OutcomeUnknown: the
        script may have run (e.g. Redis was paused and resumed).

        ``resend``: the write records its request id in the same script (create and commit
        with a response to keep), so running it twice is safe: the second run answers
        "duplicate" with the first one's record. Then a connection found closed or reset after
        the command was sent (a restarted Redis, a connection the server or a proxy cut) is
        retried once on a freshly opened connection. A timeout is not retried: Redis may be
        stalled, and the call would wait twice as long.
        """
        command = _pack("EVALSHA", script.sha, len(keys), *keys, *args)
        try:
            reply = await self._sent(command)
        except _ConnectionLost:
            if not resend:
                raise
            reply = await self._sent(command)
        if isinstance(reply, hiredis.ReplyError):
            error = self._refused(reply)
            if not isinstance(error, NoScriptError):
                raise error
            # SCRIPT FLUSH or a restarted Redis: NOSCRIPT means nothing ran.
            loaded = await self._sent(_pack("SCRIPT", "LOAD", script.text))
            if isinstance(loaded, hiredis.ReplyError):
                raise self._refused(loaded)
            reply = await self._sent(command)
            if isinstance(reply, hiredis.ReplyError):
                raise self._refused(reply)
        return reply

    async def _sent(self, command: bytes) -> Any:
        """A command's reply; once sent, a timeout or a lost connection is OutcomeUnknown."""
        try:
            return await self._pipe.call(command)
        except Stalled as exc:
            raise OutcomeUnknown(str(exc)) from exc
        except Lost as exc:
            raise _ConnectionLost(str(exc)) from exc

    def _refused(self, reply: hiredis.ReplyError) -> Exception:
        """redis-py's exception for an error reply. READONLY (the server was demoted to a
        replica, nothing ran) drops the pipe, so the next call connects again (to the new
        master, behind Sentinel), and is StorageUnavailable's."""
        error = reply_error(reply)
        if isinstance(error, ReadOnlyError):
            self._drop_pipes()
            return RedisConnectionError(f"the server is now a replica: {error}")
        return error


def _nothing_to_undo(error: Exception) -> Awaitable[None]:
    """A read's retry has nothing to close: a failed pipe is replaced on the next call."""
    return asyncio.sleep(0)


def _events(entries: list[bytes], version: int) -> list[Event]:
    """The events of log entries tagged with a version greater than ``version``."""
    return [
        Event(entry_version, payload)
        for entry_version, payloads in map(decode_entry, entries)
        if entry_version > version
        for payload in payloads
    ]


def _pack(*args: str | int | bytes) -> bytes:
    """One command in the Redis protocol, packed by hiredis (the same bytes as redis-py's)."""
    packed: bytes = hiredis.pack_command(cast(Any, args))  # its stub types a 1-tuple
    return packed
