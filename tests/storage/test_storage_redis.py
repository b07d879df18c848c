"""Tests specific to the Redis store: round trips, key layout, TTLs, scripts, failures."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from redis.asyncio import Redis
from redis.crc import key_slot
from redis.utils import HIREDIS_AVAILABLE
from support.redis_server import (
    RedisServer,
    free_port,
    restart_redis_server,
)

from scopa.storage import (
    DuplicateRequest,
    OutcomeUnknown,
    RedisStore,
    StorageFull,
    StorageUnavailable,
    VersionConflict,
    channel,
    events_key,
    game_key,
)
from scopa.storage._keys import legacy_events_key
from scopa.storage._pipe import Pipe
from scopa.telemetry import untraced

pytestmark = pytest.mark.asyncio(loop_scope="session")

TTL = 60.0


def _command_names(packed: bytes) -> list[str]:
    """Return the command names in a RESP-encoded request (payloads without CRLF only)."""
    lines = packed.split(b"\r\n")
    names, i = [], 0
    while i < len(lines) and lines[i].startswith(b"*"):
        argc = int(lines[i][1:])
        names.append(lines[i + 2].decode().upper())
        i += 1 + 2 * argc
    return names


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[str]]]:
    """Record, per network write (one round trip), the command names sent by any client.

    Recorded where every connection's bytes leave: the stream writer (redis-py writes through
    ``writelines``) and the store's pipe (one write per loop step).
    """
    writes: list[list[str]] = []
    write: Callable[..., Any] = asyncio.StreamWriter.write
    writelines: Callable[..., Any] = asyncio.StreamWriter.writelines
    flush: Callable[..., Any] = Pipe._flush

    def recording_flush(self: Pipe) -> None:
        if self._out:
            writes.append(_command_names(b"".join(self._out)))
        flush(self)

    def recording_write(self: asyncio.StreamWriter, data: Any) -> None:
        writes.append(_command_names(bytes(data)))
        write(self, data)

    def recording_writelines(self: asyncio.StreamWriter, chunks: Any) -> None:
        chunks = list(chunks)
        writes.append(_command_names(b"".join(bytes(c) for c in chunks)))
        writelines(self, chunks)

    monkeypatch.setattr(asyncio.StreamWriter, "write", recording_write)
    monkeypatch.setattr(asyncio.StreamWriter, "writelines", recording_writelines)
    monkeypatch.setattr(Pipe, "_flush", recording_flush)
    yield writes


async def _subscribers(admin: Redis[bytes], game_id: str) -> int:
    """Return how many clients are subscribed to the game's channel."""
    counts: list[Any] = list(await admin.pubsub_numsub(channel(game_id)))
    return int(counts[0][1])


async def _until_subscribers(admin: Redis[bytes], game_id: str, expected: int) -> None:
    """Wait (at most 2 s) until the channel has ``expected`` subscribers; the server notices
    closed sockets asynchronously."""
    async with asyncio.timeout(2.0):
        while await _subscribers(admin, game_id) != expected:
            await asyncio.sleep(0.01)


async def test_load_is_one_hmget(redis_store: RedisStore, sent: list[list[str]]) -> None:
    """load with a request id costs exactly one round trip: a single HMGET."""
    await redis_store.create("g1", b"s", b"m", [], TTL, "r1", b"resp")
    await redis_store.load("g1")  # the reads' connection is open
    sent.clear()
    snapshot = await redis_store.load("g1", "r1")
    assert sent == [["HMGET"]]
    assert snapshot.cached_response == b"resp"


async def test_commit_is_one_evalsha(redis_store: RedisStore, sent: list[list[str]]) -> None:
    """Once the script is cached, a commit costs exactly one round trip: a single EVALSHA."""
    await redis_store.create("g1", b"s", b"m", [], TTL)
    await redis_store.commit("g1", 1, b"s", b"m", [], TTL)
    sent.clear()
    await redis_store.commit("g1", 2, b"s", b"m", [b"e1", b"e2"], TTL, "r", b"ok")
    await redis_store.create("g2", b"s", b"m", [b"e"], TTL)
    assert sent == [["EVALSHA"], ["EVALSHA"]]


async def test_events_since_is_one_round_trip(
    redis_store: RedisStore, sent: list[list[str]]
) -> None:
    """events_since pipelines its existence check and LRANGE into one write."""
    await redis_store.create("g1", b"s", b"m", [b"e"], TTL)
    await redis_store.commit("g1", 1, b"s", b"m", [b"f"], TTL)
    await redis_store.events_since("g1", 0)  # the pool's connection is open
    sent.clear()
    assert [e.payload for e in await redis_store.events_since("g1", 1)] == [b"f"]
    assert sent == [["EXISTS", "LRANGE"]]


async def test_uses_hiredis_parser(redis_store: RedisStore) -> None:
    """Connections of the store parse replies with hiredis."""
    await redis_store.ping()
    pool: Any = redis_store.pool
    connection = await pool.get_connection()
    try:
        assert HIREDIS_AVAILABLE
        assert type(connection._parser).__name__ == "_AsyncHiredisParser"
    finally:
        await pool.release(connection)


async def test_keys_share_hash_tag_and_layout(
    redis_store: RedisStore, redis_admin: Redis[bytes]
) -> None:
    """All names of one game fall in one cluster slot; the hash holds the documented fields."""
    await redis_store.create("g1", b"s", b"m", [b"e"], TTL, "r1", b"resp")
    await redis_store.commit("g1", 1, b"s2", b"m2", [b"f"], TTL)
    names = [game_key("g1"), events_key("g1"), legacy_events_key("g1"), channel("g1")]
    assert names == ["scopa:{g1}:g", "scopa:{g1}:log", "scopa:{g1}:ev", "scopa:{g1}:ch"]
    assert len({key_slot(name.encode()) for name in names}) == 1
    stored = await redis_admin.hgetall(game_key("g1"))
    assert stored == {b"state": b"s2", b"meta": b"m2", b"version": b"2", b"req:r1": b"resp"}
    assert await redis_admin.lrange(events_key("g1"), 0, -1) == [b"1:e", b"2:f"]


async def test_a_record_keeps_the_state_only_once_the_game_moved_past_it(
    redis_store: RedisStore, redis_admin: Redis[bytes]
) -> None:
    """A request's record holds no state while its version is the game's; the next commit
    appends the state it replaces, so two seats keep one state between them."""
    await redis_store.create("g1", b"s1", b"m", [], TTL)
    await redis_store.commit("g1", 1, b"s2", b"m", [], TTL, "a", b"resp-a", slot="0")
    assert await redis_admin.hget(game_key("g1"), "req@0") == b"a\n~2:6~resp-a"
    await redis_store.commit("g1", 2, b"s3", b"m", [], TTL, "b", b"resp-b", slot="1")
    assert await redis_admin.hget(game_key("g1"), "req@0") == b"a\n~2:6~resp-as2"
    assert await redis_admin.hget(game_key("g1"), "req@1") == b"b\n~3:6~resp-b"


async def test_a_cached_response_of_an_earlier_build_is_read_as_it_is(
    redis_store: RedisStore, redis_admin: Redis[bytes]
) -> None:
    """A record without the ``~`` head (an earlier build's: its response carries its state) is
    returned whole, with no state apart, and left as it is by later commits."""
    await redis_store.create("g1", b"s1", b"m", [], TTL)
    await redis_admin.hset(game_key("g1"), "req@0", b"a\nold-response")
    await redis_store.commit("g1", 1, b"s2", b"m", [], TTL, "b", b"resp-b", slot="1")
    snapshot = await redis_store.load("g1", "a", slot="0")
    assert (snapshot.cached_response, snapshot.cached_state) == (b"old-response", None)
    assert await redis_admin.hget(game_key("g1"), "req@0") == b"a\nold-response"


async def test_writes_set_pttl_on_all_keys(
    redis_store: RedisStore, redis_admin: Redis[bytes]
) -> None:
    """create and commit set the given TTL (in ms) on the hash and the event log."""
    await redis_store.create("g1", b"s", b"m", [b"e"], 10.0)
    for key in (game_key("g1"), events_key("g1")):
        assert 9_000 < await redis_admin.pttl(key) <= 10_000
    await redis_store.commit("g1", 1, b"s", b"m", [b"e"], 3600.0)
    for key in (game_key("g1"), events_key("g1")):
        assert 3_590_000 < await redis_admin.pttl(key) <= 3_600_000


async def test_commit_survives_script_flush(
    redis_store: RedisStore, redis_admin: Redis[bytes]
) -> None:
    """After SCRIPT FLUSH (e.g. a Redis restart) the registered script is reloaded transparently."""
    await redis_store.create("g1", b"s", b"m", [], TTL)
    await redis_admin.script_flush()
    assert await redis_store.commit("g1", 1, b"s", b"m", [], TTL) == 2


async def test_a_game_and_its_presence_load_in_one_command(
    redis_url: str, redis_admin: Redis[bytes]
) -> None:
    """load_with_presence is one EVALSHA_RO (not held by CLIENT PAUSE WRITE; no HMGET: the
    benchmarks count those as round trips), one span, and the script is reloaded after SCRIPT
    FLUSH."""
    store, exporter = _traced_store(redis_url)
    try:
        await store.create("g1", b"s", b"m", [], TTL)
        await store.touch_presence("g1", 0, "a", TTL, TTL)
        await redis_admin.script_flush()
        assert (await store.load_with_presence("g1"))[0].version == 1
        exporter.clear()
        await redis_admin.config_resetstat()
        snap, presence = await store.load_with_presence("g1")
    finally:
        await store.close()
    assert snap.state == b"s" and presence.seats[0].connected
    assert [span.name for span in exporter.get_finished_spans()] == ["EVALSHA_RO load_presence"]
    stats = await redis_admin.info("commandstats")
    assert stats["cmdstat_evalsha_ro"]["calls"] == 1
    assert "cmdstat_hmget" not in stats and "cmdstat_evalsha" not in stats


async def test_the_store_clock_reads_at_maxmemory(
    redis_store: RedisStore, redis_admin: Redis[bytes]
) -> None:
    """The store clock (time.lua, which writes nothing) still answers at maxmemory: a sweep
    keeps its clock while writes are refused."""
    await redis_store.create("g1", b"s", b"m", [], TTL)
    await redis_admin.config_set("maxmemory", "1")
    try:
        with pytest.raises(StorageFull):
            await redis_store.commit("g1", 1, b"s", b"m", [], TTL)
        assert await redis_store.time() > 1.7e9
    finally:
        await redis_admin.config_set("maxmemory", "0")


async def test_create_clears_stale_event_log(
    redis_store: RedisStore, redis_admin: Redis[bytes]
) -> None:
    """An event log left behind by an expired game (either layout) does not leak into a new
    game."""
    await redis_admin.rpush(events_key("g1"), b"9:old")
    await redis_admin.xadd(legacy_events_key("g1"), {b"e": b"older"}, id="8-0")
    await redis_store.create("g1", b"s", b"m", [b"new"], TTL)
    await redis_store.commit("g1", 1, b"s", b"m", [b"next"], TTL)
    assert [e.payload for e in await redis_store.events_since("g1", 0)] == [b"new", b"next"]


async def test_a_game_of_the_stream_layout_is_read_then_migrated_by_its_next_write(
    redis_store: RedisStore, redis_admin: Redis[bytes]
) -> None:
    """A game an earlier build logged to a stream is read from it, and its next commit moves
    the log into the list (oldest first, TTL set) and deletes the stream."""
    game = game_key("old")
    await redis_admin.hset(game, mapping={"state": b"s", "meta": b"m", "version": 2})
    await redis_admin.xadd(legacy_events_key("old"), {b"e": b"one"}, id="1-0")
    await redis_admin.xadd(legacy_events_key("old"), {b"e": b"two"}, id="2-0")
    await redis_admin.expire(game, 100)
    await redis_admin.expire(legacy_events_key("old"), 100)
    assert [(e.version, e.payload) for e in await redis_store.events_since("old", 1)] == [
        (2, b"two")
    ]
    assert await redis_store.commit("old", 2, b"s", b"m", [b"three"], TTL) == 3
    assert await redis_admin.exists(legacy_events_key("old")) == 0
    assert await redis_admin.lrange(events_key("old"), 0, -1) == [b"1:one", b"2:two", b"3:three"]
    assert 0 < await redis_admin.pttl(events_key("old")) <= TTL * 1000
    events = await redis_store.events_since("old", 0)
    assert [(e.version, e.payload) for e in events] == [(1, b"one"), (2, b"two"), (3, b"three")]


async def test_a_log_not_aligned_on_versions_is_filtered(
    redis_store: RedisStore, redis_admin: Redis[bytes]
) -> None:
    """Entries that do not start at version 1 are read whole and filtered by version."""
    await redis_store.create("g1", b"s", b"m", [b"a"], TTL)
    await redis_store.commit("g1", 1, b"s", b"m", [b"b"], TTL)
    await redis_admin.lpop(events_key("g1"))  # e.g. a trimmed log: version 2 is now first
    assert [e.payload for e in await redis_store.events_since("g1", 0)] == [b"b"]
    assert [e.payload for e in await redis_store.events_since("g1", 1)] == [b"b"]
    assert await redis_store.events_since("g1", 2) == []


async def test_subscription_is_released_on_exit_and_cancel(
    redis_store: RedisStore, redis_admin: Redis[bytes]
) -> None:
    """Leaving or cancelling a subscription unsubscribes from the game's channel."""
    await redis_store.create("g1", b"s", b"m", [], TTL)
    async with redis_store.subscribe("g1"):
        assert await _subscribers(redis_admin, "g1") == 1
    await _until_subscribers(redis_admin, "g1", 0)

    async def watch() -> None:
        async with redis_store.subscribe("g1") as versions:
            async for _ in versions:
                pass

    task = asyncio.create_task(watch())
    await _until_subscribers(redis_admin, "g1", 1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await _until_subscribers(redis_admin, "g1", 0)


async def test_unreachable_redis_raises_storage_unavailable() -> None:
    """ping and load against a port with no server raise StorageUnavailable."""
    store = RedisStore.from_url(f"redis://127.0.0.1:{free_port()}/0", socket_timeout=0.5)
    try:
        with pytest.raises(StorageUnavailable):
            await store.ping()
        with pytest.raises(StorageUnavailable):
            await store.load("g1")
    finally:
        await store.close()


def _traced_store(url: str, socket_timeout: float = 5.0) -> tuple[RedisStore, InMemorySpanExporter]:
    """A store whose spans go to an in-memory exporter."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    store = RedisStore.from_url(url, socket_timeout=socket_timeout, tracer_provider=provider)
    return store, exporter


async def test_one_client_span_per_operation_without_values(
    redis_url: str, redis_admin: Redis[bytes]
) -> None:
    """Each store operation is one CLIENT span naming the command, never keys or values."""
    store, exporter = _traced_store(redis_url)
    try:
        await store.create("g1", b"secret-state", b"secret-meta", [b"secret-ev"], TTL)
        await store.load("g1", "rid-1")
        await store.commit("g1", 1, b"secret-state", b"m", [b"secret-ev"], TTL, "rid-2", b"r")
        await store.events_since("g1", 0)
        await store.ping()
    finally:
        await store.close()
    spans = exporter.get_finished_spans()
    names = [s.name for s in spans]
    assert names == [
        "EVALSHA create",
        "HMGET load",
        "EVALSHA commit",
        "PIPELINE events_since",
        "PING ping",
    ]
    port = urlsplit(redis_url).port
    for span in spans:
        assert span.kind is SpanKind.CLIENT
        attrs = dict(span.attributes or {})
        assert attrs == {
            "db.system.name": "redis",
            "db.operation.name": span.name.split()[0],
            "db.namespace": "0",
            "server.address": "127.0.0.1",
            "server.port": port,
        }
        shown = repr(attrs)
        for secret in ("secret", "g1", "rid-"):
            assert secret not in shown


async def test_failed_operation_span_has_error_status() -> None:
    """A store operation that cannot reach Redis ends its span with an ERROR status."""
    store, exporter = _traced_store(f"redis://127.0.0.1:{free_port()}/0", socket_timeout=0.5)
    try:
        with pytest.raises(StorageUnavailable):
            await store.load("g1")
    finally:
        await store.close()
    (span,) = exporter.get_finished_spans()
    assert span.name == "HMGET load"
    assert span.status.status_code is StatusCode.ERROR
    assert dict(span.attributes or {})["error.type"] == "ConnectionError"


async def test_subscriptions_share_one_connection_outside_the_pool(
    redis_store: RedisStore, redis_admin: Redis[bytes]
) -> None:
    """300 subscriptions to 30 games hold one pub/sub connection and no pooled connection."""
    for i in range(30):
        await redis_store.create(f"g{i}", b"s", b"m", [], TTL)
    async with contextlib.AsyncExitStack() as stack:
        streams = [
            await stack.enter_async_context(redis_store.subscribe(f"g{i % 30}")) for i in range(300)
        ]
        clients = await redis_admin.client_list()
        subscribers = [c for c in clients if int(c.get("sub", 0)) > 0]
        assert len(subscribers) == 1 and int(subscribers[0]["sub"]) == 30
        assert len(redis_store.pool._in_use_connections) == 0  # type: ignore[attr-defined]
        await redis_store.commit("g7", 1, b"s", b"m", [], TTL)
        got = [await asyncio.wait_for(anext(aiter(s)), 2.0) for s in streams[7::30]]
        assert got == [2] * 10


async def test_untraced_operations_make_no_span(redis_url: str) -> None:
    """Inside scopa.telemetry.untraced() (the readiness poll) a store operation makes no span."""
    store, exporter = _traced_store(redis_url)
    try:
        with untraced():
            await store.ping()
        await store.ping()
    finally:
        await store.close()
    assert [span.name for span in exporter.get_finished_spans()] == ["PING ping"]


async def test_write_sent_to_a_paused_redis_is_outcome_unknown(
    own_server: list[RedisServer],
) -> None:
    """A commit whose reply times out is OutcomeUnknown (it runs once Redis resumes)."""
    server = own_server[0]
    store = RedisStore.from_url(server.url, socket_timeout=0.5)
    try:
        await store.create("g1", b"s", b"m", [], TTL)
        await store.commit("g1", 1, b"s", b"m", [], TTL)  # the script is loaded
        os.kill(server.process.pid, signal.SIGSTOP)
        try:
            with pytest.raises(OutcomeUnknown):
                await store.commit("g1", 2, b"s2", b"m", [b"e"], TTL, "r1", b"first")
            with pytest.raises(StorageUnavailable) as caught:
                await store.load("g1")
            assert not isinstance(caught.value, OutcomeUnknown), "a read changes nothing"
        finally:
            os.kill(server.process.pid, signal.SIGCONT)
        snapshot = await store.load("g1", "r1")
        assert (snapshot.version, snapshot.cached_response) == (3, b"first")
    finally:
        await store.close()


async def test_a_write_stalled_on_a_full_socket_times_out_as_outcome_unknown(
    own_server: list[RedisServer],
) -> None:
    """A commit too large for the socket's buffers while Redis is stopped times out: the pipe
    drops the connection, whose buffered bytes go with it."""
    server = own_server[0]
    store = RedisStore.from_url(server.url, socket_timeout=0.5)
    try:
        await store.create("g1", b"s", b"m", [], TTL)
        await store.commit("g1", 1, b"s", b"m", [], TTL)
        os.kill(server.process.pid, signal.SIGSTOP)
        try:
            began = asyncio.get_running_loop().time()
            with pytest.raises(OutcomeUnknown, match=r"no reply from Redis within 0\.5 s"):
                await store.commit("g1", 2, b"x" * (64 << 20), b"m", [], TTL, "r1", b"first")
            assert asyncio.get_running_loop().time() - began < 5  # bounded by the timeout
        finally:
            os.kill(server.process.pid, signal.SIGCONT)
        assert (await store.load("g1")).version >= 2  # the store serves again
    finally:
        await store.close()


async def test_a_load_is_not_held_up_by_a_write_redis_pauses(redis_url: str) -> None:
    """Under CLIENT PAUSE WRITE (a coordinated failover) Redis holds a script and every command
    after it on the same connection; a load goes on another and is answered at once."""
    store = RedisStore.from_url(redis_url, socket_timeout=2.0)
    admin: Redis[bytes] = Redis.from_url(redis_url)
    try:
        await store.create("paused", b"s", b"m", [], TTL)
        await store.load("paused")
        paused: Any = admin  # execute_command is untyped in the stubs
        await paused.execute_command("CLIENT", "PAUSE", "1000", "WRITE")
        held = asyncio.ensure_future(store.commit("paused", 1, b"s2", b"m", [], TTL))
        await asyncio.sleep(0.1)
        loaded = await asyncio.wait_for(store.load("paused"), 0.5)
        assert loaded.version == 1 and not held.done()
        assert await held == 2
    finally:
        await admin.connection_pool.disconnect()
        await store.close()


async def test_pages_are_not_held_up_by_a_write_redis_pauses(redis_url: str) -> None:
    """The lobby's and an owner's pages only read (EVALSHA_RO on the reads' connection): under
    CLIENT PAUSE WRITE they are answered while a write waits."""
    store = RedisStore.from_url(redis_url, socket_timeout=2.0)
    admin: Redis[bytes] = Redis.from_url(redis_url)
    try:
        await store.create("paged", b"s", b"m", [], TTL)
        await store.list_public("paged", "scopa", 1000, 10**13)
        await store.index_owned("ann", "paged", "active", 1000, 10**13, b"")
        paused: Any = admin  # execute_command is untyped in the stubs
        await paused.execute_command("CLIENT", "PAUSE", "1000", "WRITE")
        held = asyncio.ensure_future(store.commit("paged", 1, b"s2", b"m", [], TTL))
        await asyncio.sleep(0.1)
        lobby = await asyncio.wait_for(store.public_games("", 5000, 10), 0.5)
        owned = await asyncio.wait_for(store.owned_games("ann", "", 5000, 10), 0.5)
        assert [g[0] for g in lobby] == ["paged"] == [g[0] for g in owned]
        assert not held.done()
        assert await held == 2
    finally:
        await admin.connection_pool.disconnect()
        await store.close()


async def test_a_write_refused_by_a_replica_is_unavailable_and_the_store_reconnects(
    own_server: list[RedisServer],
) -> None:
    """A server turned replica (a demoted master) answers a write READONLY: nothing ran, so
    STORAGE_UNAVAILABLE (not OUTCOME_UNKNOWN, not an unmapped error), and the store drops its
    connections; once the server is a master again, the next write goes through."""
    server = own_server[0]
    store = RedisStore.from_url(server.url)
    admin: Redis[bytes] = Redis.from_url(server.url)
    ids: Any = admin  # client_id and execute_command are untyped in the stubs
    try:
        await store.create("demoted", b"s", b"m", [], TTL)
        await store.load("demoted")
        before = {c["id"] for c in await admin.client_list()}
        await ids.execute_command("REPLICAOF", "127.0.0.1", str(free_port()))
        with pytest.raises(StorageUnavailable) as refused:
            await store.commit("demoted", 1, b"s2", b"m", [], TTL)
        assert not isinstance(refused.value, OutcomeUnknown)
        await ids.execute_command("REPLICAOF", "NO", "ONE")
        assert await store.commit("demoted", 1, b"s2", b"m", [], TTL) == 2
        await store.load("demoted")
        after = {c["id"] for c in await admin.client_list()}
        own = await ids.client_id()
        assert not (before - {str(own)}) & after, "the store's connections were opened again"
    finally:
        await admin.connection_pool.disconnect()
        await store.close()


async def _load_scripts(store: RedisStore) -> None:
    """Create and commit a throwaway game, so that Redis has the scripts (no NOSCRIPT later)."""
    name = f"warm-{os.getpid()}-{id(store)}"
    await store.create(name, b"s", b"m", [], TTL)
    await store.commit(name, 1, b"s", b"m", [], TTL)


@pytest.fixture
def cut_replies(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Arm with ``cuts.append(1)``: the next reply Redis sends is read, then the connection is
    cut and the reader told "Connection closed by server." (the command ran; its reply is lost,
    as when Redis restarts or a proxy drops an idle connection)."""
    cuts: list[int] = []
    real = Pipe.data_received

    def read_then_cut(self: Pipe, data: bytes) -> None:
        if not cuts:
            real(self, data)
            return
        cuts.pop()
        transport: Any = self._transport
        transport.abort()  # connection_lost follows, with the reply unread

    monkeypatch.setattr(Pipe, "data_received", read_then_cut)
    return cuts


async def test_a_recorded_write_whose_reply_is_lost_is_sent_again_once(
    redis_url: str, cut_replies: list[int]
) -> None:
    """A commit or create that records its request id is resent on a fresh connection when the
    connection is lost after sending: the second run answers with the first one's record, so
    the caller learns the outcome instead of OUTCOME_UNKNOWN, and the write applied once."""
    store = RedisStore.from_url(redis_url)
    admin: Redis[bytes] = Redis.from_url(redis_url)
    try:
        await _load_scripts(store)
        cut_replies.append(1)
        created = await store.create("lost-1", b"s", b"m", [b"e1"], TTL, "c1", b"made")
        assert (created.version, created.created, created.response) == (1, False, b"made")
        cut_replies.append(1)
        with pytest.raises(DuplicateRequest) as duplicate:
            await store.commit("lost-1", 1, b"s2", b"m", [b"e2"], TTL, "r1", b"first")
        assert duplicate.value.response == b"first"
        assert (await store.load("lost-1")).version == 2
        assert await admin.llen(events_key("lost-1")) == 2, "each write logged once"
        assert not cut_replies, "both cuts were used"
    finally:
        await admin.connection_pool.disconnect()
        await store.close()


async def test_an_unrecorded_write_whose_reply_is_lost_is_outcome_unknown(
    redis_url: str, cut_replies: list[int]
) -> None:
    """Without a request id to answer a second run, the write is never sent again."""
    store = RedisStore.from_url(redis_url)
    try:
        await _load_scripts(store)
        await store.create("lost-2", b"s", b"m", [], TTL)
        cut_replies.append(1)
        with pytest.raises(OutcomeUnknown):
            await store.commit("lost-2", 1, b"s2", b"m", [b"e2"], TTL)
        assert (await store.load("lost-2")).version == 2, "it ran once"
    finally:
        await store.close()


async def test_write_that_cannot_connect_is_storage_unavailable() -> None:
    """A commit that never reached Redis is StorageUnavailable, not OutcomeUnknown."""
    store = RedisStore.from_url(f"redis://127.0.0.1:{free_port()}/0", socket_timeout=0.5)
    try:
        with pytest.raises(StorageUnavailable) as caught:
            await store.commit("g1", 1, b"s", b"m", [], TTL)
        assert not isinstance(caught.value, OutcomeUnknown)
    finally:
        await store.close()


async def test_redis_at_maxmemory_refuses_writes_with_storage_full(
    own_server: list[RedisServer],
) -> None:
    """At maxmemory (noeviction) writes raise StorageFull, change nothing, and ping fails."""
    server = own_server[0]
    store = RedisStore.from_url(server.url)
    admin: Redis[bytes] = Redis.from_url(server.url)
    try:
        await store.create("g1", b"s", b"m", [], TTL)
        await store.ping()
        await admin.config_set("maxmemory", "1")
        with pytest.raises(StorageFull):
            await store.commit("g1", 1, b"s2", b"m", [b"e"], TTL)
        with pytest.raises(StorageFull):
            await store.create("g2", b"s", b"m", [], TTL)
        with pytest.raises(StorageFull):
            await store.ping()
        assert (await store.load("g1")).version == 1
        assert await admin.exists(game_key("g2"), events_key("g2")) == 0
        await admin.config_set("maxmemory", "0")
        await store.ping()
        assert await store.commit("g1", 1, b"s2", b"m", [b"e"], TTL) == 2
    finally:
        await admin.connection_pool.disconnect()
        await store.close()


async def test_pooled_connections_survive_a_redis_restart(own_server: list[RedisServer]) -> None:
    """After a restart, every stale pooled connection is replaced without a failed call."""
    store = RedisStore.from_url(own_server[0].url, socket_timeout=2.0)
    try:
        await store.create("g1", b"s", b"m", [], TTL)
        await asyncio.gather(*(store.load("g1") for _ in range(20)))
        own_server[0] = restart_redis_server(own_server[0])
        loads = await asyncio.gather(*(store.load("g1") for _ in range(20)))
        assert {s.version for s in loads} == {1}
        commits = await asyncio.gather(
            *(store.commit("g1", 1 + i, b"s", b"m", [], TTL) for i in range(1)),
        )
        assert commits == [2]
    finally:
        await store.close()


async def test_writes_on_connections_idle_since_a_redis_restart_all_succeed(
    own_server: list[RedisServer],
) -> None:
    """A write taking a pooled connection that Redis closed by restarting (idle for less than
    the health check's interval, so never PINGed) reconnects before sending: no write is
    OUTCOME_UNKNOWN when none could have been applied (the Redis-restart fault test's cause)."""
    store = RedisStore.from_url(own_server[0].url, socket_timeout=2.0)
    games = [f"g{i}" for i in range(12)]
    try:
        for game in games:
            await store.create(game, b"s", b"m", [], TTL)
        await asyncio.gather(*(store.load(game) for game in games))  # 12 pooled connections
        own_server[0] = restart_redis_server(own_server[0])
        await asyncio.sleep(0.2)  # the loop reads every closed connection's end of stream
        commits = await asyncio.gather(
            *(store.commit(game, 1, b"s2", b"m", [], TTL) for game in games)
        )
        assert commits == [2] * len(games)
    finally:
        await store.close()


async def test_the_store_s_calls_share_two_connections(redis_url: str) -> None:
    """Loads and commits, concurrent and failed ones too, go through two connections (the
    scripts' pipe and the reads'), and each caller gets its own reply."""
    store = RedisStore.from_url(redis_url, max_connections=4)
    admin: Redis[bytes] = Redis.from_url(redis_url)
    try:
        before = len(await admin.client_list())
        names = [f"shared{i}" for i in range(20)]
        await asyncio.gather(*(store.create(n, n.encode(), b"m", [b"e"], TTL) for n in names))
        for version in range(1, 4):
            await asyncio.gather(
                *(store.commit(n, version, f"{n}@{version}".encode(), b"m", [], TTL) for n in names)
            )
        loads = await asyncio.gather(*(store.load(n) for n in names * 3))
        assert [(s.state, s.version) for s in loads] == [(f"{n}@3".encode(), 4) for n in names * 3]
        with pytest.raises(VersionConflict):
            await store.commit(names[0], 1, b"s", b"m", [b"f"], TTL)
        assert len(await admin.client_list()) == before + 2
    finally:
        await admin.connection_pool.disconnect()
        await store.close()
