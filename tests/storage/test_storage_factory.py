"""Tests of choosing a store from configuration."""

from __future__ import annotations

import pytest
from redis.asyncio.connection import SSLConnection
from redis.asyncio.sentinel import SentinelConnectionPool
from support.redis_cluster import RedisCluster
from support.redis_sentinel import RedisSentinel

from scopa.storage import MemoryStore, RedisClusterStore, RedisStore, open_store

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_without_url_the_embedded_store_is_used() -> None:
    """No REDIS_URL (None or empty) selects the in-memory store."""
    assert isinstance(open_store(None), MemoryStore)
    assert isinstance(open_store(""), MemoryStore)


async def test_with_url_the_redis_store_is_used(redis_url: str) -> None:
    """A REDIS_URL selects a Redis store connected to that server."""
    store = open_store(redis_url)
    try:
        assert isinstance(store, RedisStore)
        await store.ping()
    finally:
        await store.close()


async def test_cluster_url_opens_a_cluster_store(redis_cluster: RedisCluster) -> None:
    """A redis+cluster:// REDIS_URL selects the Redis Cluster store, which answers PING."""
    store = open_store(redis_cluster.url)
    try:
        assert isinstance(store, RedisClusterStore)
        await store.ping()
    finally:
        await store.close()


async def test_sentinel_url_opens_a_store_on_the_master(redis_sentinel: RedisSentinel) -> None:
    """A redis+sentinel:// REDIS_URL selects a Redis store whose pool asks the sentinels."""
    store = open_store(redis_sentinel.url)
    try:
        assert isinstance(store, RedisStore)
        assert isinstance(store.pool, SentinelConnectionPool)
        await store.ping()
    finally:
        await store.close()


async def test_tls_schemes_pass_tls_through_in_every_mode() -> None:
    """rediss://, rediss+cluster:// and rediss+sentinel:// make every connection TLS."""
    standalone = open_store("rediss://127.0.0.1:1")
    sentinel = open_store("rediss+sentinel://127.0.0.1:1/m")
    cluster = open_store("rediss+cluster://127.0.0.1:1")
    assert isinstance(standalone, RedisStore) and isinstance(sentinel, RedisStore)
    assert issubclass(standalone.pool.connection_class, SSLConnection)
    assert issubclass(sentinel.pool.connection_class, SSLConnection)
    assert isinstance(cluster, RedisClusterStore)
    assert cluster.cluster.get_connection_kwargs()["connection_class"] is SSLConnection
    private_ca = open_store("rediss+cluster://127.0.0.1:1?ssl_ca_certs=/etc/ca.pem")
    assert isinstance(private_ca, RedisClusterStore)
    assert private_ca.cluster.get_connection_kwargs()["ssl_ca_certs"] == "/etc/ca.pem"
