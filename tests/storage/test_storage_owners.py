"""Contract tests of the owner index (a signed-in player's games) on every backend."""

from __future__ import annotations

import time

import pytest
from redis.asyncio import Redis

from scopa.storage import OWNED_STATUSES, RedisStore
from scopa.storage._owners import owner_keys
from storage.backends import Backend

pytestmark = pytest.mark.asyncio(loop_scope="session")

F = 10**13
"""An expiry far in the future."""
W, A, D = OWNED_STATUSES


async def _rows(
    backend: Backend,
    owner: str,
    status: str,
    now_ms: int,
    limit: int,
    before: tuple[int, str] | None = None,
) -> list[tuple[str, int]]:
    page = await backend.store.owned_games(owner, status, now_ms, limit, before)
    return [(game, created) for game, created, _ in page]


async def test_owned_games_newest_first_by_status_and_owner(backend: Backend) -> None:
    """Each owner sees its own entries only, newest first, filtered by status when asked."""
    store = backend.store
    await store.index_owned("alice", "old", A, 1000, F, b"o")
    await store.index_owned("alice", "mid", W, 2000, F, b"m")
    await store.index_owned("alice", "new", D, 3000, F, b"n")
    await store.index_owned("bob", "mid", W, 2000, F, b"b")
    assert await _rows(backend, "alice", "", 5000, 10) == [
        ("new", 3000),
        ("mid", 2000),
        ("old", 1000),
    ]
    assert await _rows(backend, "alice", A, 5000, 10) == [("old", 1000)]
    assert await _rows(backend, "alice", D, 5000, 10) == [("new", 3000)]
    assert await store.owned_games("bob", "", 5000, 10) == [("mid", 2000, b"b")]
    assert await _rows(backend, "carol", "", 5000, 10) == []


async def test_a_refreshed_entry_moves_to_its_new_status_with_its_summary(
    backend: Backend,
) -> None:
    """Indexing a game again replaces its status, expiry and summary: it leaves the old
    status's listing."""
    store = backend.store
    await store.index_owned("alice", "g", W, 1000, 4000, b"waiting")
    await store.index_owned("alice", "g", A, 1000, F, b"turn:1")
    assert await _rows(backend, "alice", W, 5000, 10) == []
    assert await store.owned_games("alice", A, 5000, 10) == [("g", 1000, b"turn:1")]
    assert await store.owned_games("alice", "", 5000, 10) == [("g", 1000, b"turn:1")]


async def test_owned_games_page_after_the_cursor(backend: Backend) -> None:
    """Pages continue strictly after the last entry, ties on the time broken by id."""
    store = backend.store
    for game in ("a", "b", "c", "d"):
        await store.index_owned("alice", game, A, 1000, F, b"")
    await store.index_owned("alice", "e", A, 900, F, b"")
    first = await _rows(backend, "alice", A, 5000, 2)
    second = await _rows(backend, "alice", A, 5000, 2, (first[-1][1], first[-1][0]))
    third = await _rows(backend, "alice", A, 5000, 2, (second[-1][1], second[-1][0]))
    assert [g for g, _ in first + second + third] == ["d", "c", "b", "a", "e"]


async def test_expired_and_removed_entries_are_never_listed(backend: Backend) -> None:
    """An entry past its game's expiry is never listed, even among many; nor is a removed
    one."""
    store = backend.store
    for i in range(40):
        await store.index_owned("alice", f"stale{i:02}", A, 2000 + i, 4000, b"")
    await store.index_owned("alice", "live", A, 1000, F, b"")
    await store.index_owned("alice", "gone", D, 1500, F, b"")
    await store.unindex_owned("alice", "gone")
    await store.unindex_owned("alice", "never-indexed")
    assert await _rows(backend, "alice", A, 5000, 2) == [("live", 1000)]
    assert await _rows(backend, "alice", "", 5000, 100) == [("live", 1000)]


async def test_a_page_only_reads_and_a_put_drops_what_expired(
    redis_store: RedisStore, redis_admin: Redis[bytes]
) -> None:
    """On Redis a page changes nothing (it runs as EVALSHA_RO): an entry it skips as expired
    is listed again as of an earlier time. A put drops up to 16 entries expired by Redis'
    clock, so a player's index does not grow with games long gone."""
    now_ms = int(time.time() * 1000)
    await redis_store.index_owned("bob", "later", A, 1000, now_ms + 60_000, b"")
    assert await _owned(redis_store, "bob", now_ms + 120_000) == []
    assert await _owned(redis_store, "bob", now_ms) == ["later"]
    expiries = owner_keys("bob")[4]
    for i in range(20):
        await redis_admin.zadd(expiries, {f"gone{i:02}": 4000})
    await redis_store.index_owned("bob", "new", A, 2000, now_ms + 60_000, b"")
    assert await redis_admin.zcard(expiries) == 2 + 20 - 16
    await redis_store.index_owned("bob", "newer", A, 3000, now_ms + 60_000, b"")
    assert await redis_admin.zcard(expiries) == 3


async def _owned(store: RedisStore, owner: str, now_ms: int) -> list[str]:
    return [game for game, _, _ in await store.owned_games(owner, "", now_ms, 10)]


async def test_bad_owners_and_statuses_are_refused(backend: Backend) -> None:
    """An owner that would break the hash tag, or an unknown status, is a ValueError."""
    with pytest.raises(ValueError, match="owner"):
        await backend.store.owned_games("{x}", "", 1, 1)
    with pytest.raises(ValueError, match="status"):
        await backend.store.owned_games("alice", "lost", 1, 1)
    with pytest.raises(ValueError, match="status"):
        await backend.store.index_owned("alice", "g", "", 1, F, b"")


async def test_an_owner_index_is_one_slot_and_expires_with_its_last_entry(
    redis_store: RedisStore, redis_admin: Redis[bytes]
) -> None:
    """Every key of one owner's index carries the owner's hash tag (one Cluster slot, apart
    from the games'), and expires at the latest entry's expiry."""
    keys = owner_keys("alice")
    assert {key.split("}")[0] for key in keys} == {"scopa:{own-alice"}
    now_ms = int(time.time() * 1000)
    await redis_store.index_owned("alice", "a", A, 1000, now_ms + 60_000, b"")
    await redis_store.index_owned("alice", "b", A, 2000, now_ms + 30_000, b"")
    ttl = await redis_admin.pttl(keys[0])
    assert 50_000 < ttl <= 60_000
    await redis_store.unindex_owned("alice", "a")
    await redis_store.unindex_owned("alice", "b")
    assert await redis_admin.exists(*keys) == 0
