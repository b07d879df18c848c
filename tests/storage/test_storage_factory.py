"""Tests of choosing a store from configuration."""

from __future__ import annotations

import pytest

from scopa.storage import MemoryStore, RedisStore, open_store

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
