"""Tests of scopa.storage._cluster on a local 3-primary Redis Cluster."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
from redis.asyncio import Redis
from support import redis_cluster as cluster_support
from support.redis_cluster import RedisCluster, running_redis_cluster
from support.redis_server import free_port

from scopa.storage import (
    OutcomeUnknown,
    RedisClusterStore,
    StorageUnavailable,
    channel,
    game_key,
    open_store,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")

TTL = 60.0


@pytest.fixture
async def store(redis_cluster: RedisCluster) -> AsyncIterator[RedisClusterStore]:
    """A cluster store; every primary is flushed afterwards."""
    opened = open_store(redis_cluster.url)
    assert isinstance(opened, RedisClusterStore)
    yield opened
    await opened.close()
    for port in redis_cluster.ports:
        client: Any = Redis(  # the stubs predate aclose and sharded pub/sub
            host=redis_cluster.host, port=port
        )
        await client.flushall()
        await client.aclose()


async def _owner(cluster: RedisCluster, key: str) -> int:
    """The port of the primary that holds ``key``."""
    for port in cluster.ports:
        client: Any = Redis(host=cluster.host, port=port)
        try:
            slot = await client.cluster("KEYSLOT", key)
            owned = await client.cluster("COUNTKEYSINSLOT", slot)
            if owned:
                return port
        finally:
            await client.aclose()
    raise AssertionError(f"no primary holds {key}")


async def _one_game_per_shard(store: RedisClusterStore, cluster: RedisCluster) -> dict[int, str]:
    games: dict[int, str] = {}
    for number in range(64):
        game_id = f"shard-{number}"
        await store.create(game_id, b"s", b"m", [b"dealt"], TTL)
        games.setdefault(await _owner(cluster, game_key(game_id)), game_id)
        if len(games) == len(cluster.ports):
            return games
    raise AssertionError("64 games did not cover the three primaries")


async def test_games_on_every_shard_are_watched_through_one_link_per_shard(
    store: RedisClusterStore, redis_cluster: RedisCluster
) -> None:
    """Watchers of games on three primaries get each commit; one sharded link per primary."""
    games = await _one_game_per_shard(store, redis_cluster)
    async with (
        store.subscribe(games[redis_cluster.ports[0]]) as first,
        store.subscribe(games[redis_cluster.ports[1]]) as second,
        store.subscribe(games[redis_cluster.ports[2]]) as third,
    ):
        for game_id in games.values():
            assert await store.commit(game_id, 1, b"s2", b"m2", [b"played"], TTL) == 2
        for versions in (first, second, third):
            assert await asyncio.wait_for(anext(versions), 5) == 2
    assert len(store.fanouts) == 3


async def test_commit_announces_on_sharded_pubsub_only(
    store: RedisClusterStore, redis_cluster: RedisCluster
) -> None:
    """A commit SPUBLISHes on the game's shard: SSUBSCRIBE sees it, a plain SUBSCRIBE does not."""
    await store.create("g1", b"s", b"m", [], TTL)
    port = await _owner(redis_cluster, game_key("g1"))
    client: Any = Redis(host=redis_cluster.host, port=port)
    plain, sharded = client.pubsub(), client.pubsub()
    try:
        await plain.subscribe(channel("g1"))
        await sharded.ssubscribe(channel("g1"))
        await store.commit("g1", 1, b"s2", b"m2", [], TTL)
        got = None
        for _ in range(50):
            got = await sharded.get_message(ignore_subscribe_messages=True, timeout=0.1)
            if got is not None:
                break
        assert got is not None and got["data"] == b"2"
        assert await plain.get_message(ignore_subscribe_messages=True, timeout=0.2) is None
    finally:
        await plain.aclose()
        await sharded.aclose()
        await client.aclose()


async def test_ping_answers_while_every_primary_is_up(store: RedisClusterStore) -> None:
    """Readiness PINGs the primaries of the cluster."""
    await store.ping()


async def test_a_cluster_that_refuses_is_unavailable_not_an_error() -> None:
    """A slot without a primary makes the cluster refuse (CLUSTERDOWN): StorageUnavailable."""
    with running_redis_cluster() as cluster:
        store = open_store(cluster.url)
        await store.create("g1", b"s", b"m", [], TTL)
        owner = await _owner(cluster, game_key("g1"))
        admin: Any = Redis(host=cluster.host, port=owner)
        try:
            own_slot = await admin.cluster("KEYSLOT", game_key("g1"))
            other = next(
                slot
                for start, _end, primary, *_ in await admin.execute_command("CLUSTER", "SLOTS")
                if int(primary[1]) == owner
                for slot in (start, start + 1)
                if slot != own_slot
            )
            # The game's primary forgets another of its slots: its cluster_state turns fail.
            await admin.cluster("DELSLOTS", other)
            async with asyncio.timeout(30):
                while (await admin.cluster("INFO"))["cluster_state"] != "fail":
                    await asyncio.sleep(0.05)
            with pytest.raises(StorageUnavailable):
                await store.load("g1")
            with pytest.raises(StorageUnavailable):
                await store.commit("g1", 1, b"s2", b"m2", [], TTL)
        finally:
            await admin.aclose()
            await store.close()


async def test_a_node_whose_port_was_taken_starts_the_set_again_on_fresh_ports(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Parallel workers can take a port between ``free_port`` and the node binding it: that
    node exits, and the test cluster starts again on other ports rather than timing out."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        taken = held.getsockname()[1]
        first = iter([taken])
        monkeypatch.setattr(
            cluster_support, "free_port", lambda host: next(first, None) or free_port(host)
        )
        cluster = await asyncio.to_thread(cluster_support.start_redis_cluster)
        try:
            assert taken not in cluster.ports
            admin: Any = Redis(host=cluster.host, port=cluster.ports[0])
            try:
                assert (await admin.cluster("INFO"))["cluster_state"] == "ok"
            finally:
                await admin.aclose()
        finally:
            cluster_support.stop_redis_cluster(cluster)


async def test_reads_go_on_while_a_shard_holds_writes(
    store: RedisClusterStore, redis_cluster: RedisCluster
) -> None:
    """GetState's read (the game and its presence) goes as EVALSHA_RO on the game's shard,
    routed by its keys (no COMMAND GETKEYS to any node): under CLIENT PAUSE WRITE on that
    shard it is answered while a commit waits."""
    await store.create("held", b"s", b"m", [], TTL)
    getkeys = await _getkeys_calls(redis_cluster)
    await store.load_with_presence("held")  # the script is loaded on the shard
    assert await _getkeys_calls(redis_cluster) == getkeys
    client: Any = Redis(host=redis_cluster.host, port=await _owner(redis_cluster, game_key("held")))
    try:
        await client.execute_command("CLIENT", "PAUSE", "1000", "WRITE")
        held = asyncio.ensure_future(store.commit("held", 1, b"s2", b"m", [], TTL))
        await asyncio.sleep(0.1)
        snapshot, _ = await asyncio.wait_for(store.load_with_presence("held"), 0.5)
        assert snapshot.version == 1 and not held.done()
        assert await held == 2
    finally:
        await client.execute_command("CLIENT", "UNPAUSE")
        await client.aclose()


async def _getkeys_calls(cluster: RedisCluster) -> int:
    """COMMAND GETKEYS calls the cluster's primaries have answered."""
    calls = 0
    for port in cluster.ports:
        client: Any = Redis(host=cluster.host, port=port)
        try:
            stats = await client.info("commandstats")
            calls += int(stats.get("cmdstat_command|getkeys", {}).get("calls", 0))
        finally:
            await client.aclose()
    return calls


STALL_TIMEOUT_S = 0.3
STALL_BOUND_S = 3.0
STALL_PAUSE_MS = 5000
"""A call to a stalled shard fails within this: one socket timeout, a retry after the slot map is
read again, and slack for a slow machine; redis-py's own default (ten retries) took 11 timeouts.
The pause outlasts the bound, so a call can't succeed by outwaiting it (the test waits it out)."""


@pytest.mark.parametrize("write", [False, True], ids=["read", "write"])
async def test_a_call_to_a_stalled_shard_fails_within_a_few_timeouts(
    redis_cluster: RedisCluster, write: bool
) -> None:
    """A read sent to a shard that stops answering (CLIENT PAUSE ALL) fails as
    STORAGE_UNAVAILABLE (retry; not OUTCOME_UNKNOWN, which tells of a write that may have been
    applied), a write as OUTCOME_UNKNOWN; both within a few of the store's timeouts (the
    cluster client sends neither again after its timeout), not redis-py's ten retries."""
    store = open_store(redis_cluster.url, timeout_s=STALL_TIMEOUT_S)
    client: Any = None
    try:
        await store.create("stalled", b"s", b"m", [], TTL)
        await store.load_with_presence("stalled")
        port = await _owner(redis_cluster, game_key("stalled"))
        client = Redis(host=redis_cluster.host, port=port)
        await client.execute_command("CLIENT", "PAUSE", str(STALL_PAUSE_MS), "ALL")
        call = (
            store.commit("stalled", 1, b"s2", b"m", [], TTL)
            if write
            else store.load_with_presence("stalled")
        )
        with pytest.raises(StorageUnavailable) as failed:
            await asyncio.wait_for(call, STALL_BOUND_S)
        assert isinstance(failed.value, OutcomeUnknown) is write
    finally:
        if client is not None:
            await client.execute_command("CLIENT", "UNPAUSE")
            await client.aclose()
        await store.close()
        for port in redis_cluster.ports:
            flusher: Any = Redis(host=redis_cluster.host, port=port)
            await flusher.flushall()
            await flusher.aclose()
