"""Tests of scopa.storage._sentinel: the store follows the master through a failover.

Before SentinelStore, commands and the watchers' link stayed on the demoted master until it
dropped them; while it hangs, every call timed out (and without ``min-replicas-to-write`` a
write it took was lost when it turned replica).
"""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import pytest
from redis.asyncio import Redis
from redis.exceptions import ResponseError
from support.redis_sentinel import running_redis_sentinel

from scopa.storage import RESYNC, open_store

pytestmark = pytest.mark.asyncio(loop_scope="session")

TTL = 60.0


async def test_the_store_follows_a_failover_to_the_new_master() -> None:
    """After SENTINEL FAILOVER, commits go to the promoted replica and watchers resume."""
    with running_redis_sentinel(replicas=1) as sentinel:
        store = open_store(sentinel.url)
        replica = sentinel.replicas[0]
        admin: Any = Redis(host=sentinel.host, port=sentinel.port)
        try:
            await store.ping()  # the readiness check: the store learns where the master is
            await store.create("g1", b"s", b"m", [b"dealt"], TTL)
            async with store.subscribe("g1") as versions:
                assert await store.commit("g1", 1, b"s2", b"m2", [b"p"], TTL) == 2
                assert await asyncio.wait_for(anext(versions), 5) == 2
                await _replicated(replica.port, "g1", 2)
                await _failover(admin)
                await _promoted(admin, replica.host, replica.port)
                # The demoted master hangs (a partition): nothing may wait on it any more.
                os.kill(sentinel.primary.process.pid, signal.SIGSTOP)
                await store.ping()  # what the readiness check does every few seconds
                # The watcher's link moved to the new master: re-read the log from here ...
                assert await asyncio.wait_for(anext(versions), 15) == RESYNC
                # ... the next write goes to the new master at once, not to the demoted one ...
                assert await store.commit("g1", 2, b"s3", b"m3", [b"q"], TTL) == 3
                # ... and its notification comes through the moved link.
                assert await asyncio.wait_for(anext(versions), 15) == 3
            assert (await store.load("g1")).version == 3
            promoted: Any = Redis(host=replica.host, port=replica.port)
            assert await promoted.hget("scopa:{g1}:g", "version") == b"3"
            await promoted.aclose()
        finally:
            os.kill(sentinel.primary.process.pid, signal.SIGCONT)
            await admin.aclose()
            await store.close()


async def _failover(sentinel: Any) -> None:
    """Ask for a failover once the sentinel has looked at the replica (NOGOODSLAVE before)."""
    async with asyncio.timeout(30):
        while True:
            try:
                await sentinel.execute_command("SENTINEL", "FAILOVER", "scopa")
                return
            except ResponseError as exc:
                assert str(exc).startswith("NOGOODSLAVE"), exc
                await asyncio.sleep(0.2)


async def _replicated(port: int, game_id: str, version: int) -> None:
    replica: Any = Redis(host="127.0.0.1", port=port)
    try:
        async with asyncio.timeout(10):
            while await replica.hget(f"scopa:{{{game_id}}}:g", "version") != str(version).encode():
                await asyncio.sleep(0.02)
    finally:
        await replica.aclose()


async def _promoted(sentinel: Any, host: str, port: int) -> None:
    """Wait for the end of the failover: the sentinel's master record names the replica.

    (get-master-addr-by-name names it earlier, while the failover is still under way.)
    """
    async with asyncio.timeout(30):
        while True:
            master = await sentinel.sentinel_master("scopa")
            if (master["ip"], int(master["port"])) == (host, port):
                return
            await asyncio.sleep(0.1)
