"""Contract tests of the store's indexes (turn deadlines, the lobby) on every backend."""

from __future__ import annotations

import time

import pytest

from scopa.storage import DEADLINE_SHARDS, deadline_shard
from storage.backends import Backend

pytestmark = pytest.mark.asyncio(loop_scope="session")

F = 10**13
"""Deadlines far in the future (year 2286): the servers of other suites sweep the same Redis,
and would take (or forget) entries due by their real clock."""


async def _rows(
    backend: Backend,
    preset: str,
    now_ms: int,
    limit: int,
    before: tuple[int, str] | None = None,
) -> list[tuple[str, int]]:
    """A lobby page as (game id, creation ms), without the summaries."""
    page = await backend.store.public_games(preset, now_ms, limit, before)
    return [(game, created) for game, created, _ in page]


async def _due(backend: Backend, now_ms: int) -> list[tuple[str, int]]:
    rows: list[tuple[str, int]] = []
    for shard in range(DEADLINE_SHARDS):
        rows += await backend.store.due_games(shard, now_ms, 100)
    return sorted(rows)


async def test_store_time_is_the_epoch(backend: Backend) -> None:
    """The store's clock reads seconds since the epoch, close to this host's."""
    assert abs(await backend.store.time() - time.time()) < 5


async def test_due_games_lists_entries_due_by_now(backend: Backend) -> None:
    """Only entries whose deadline is at or before now are due, each in its own shard."""
    await backend.store.set_deadline("a", 3, F + 1000)
    await backend.store.set_deadline("b", 1, F + 2000)
    await backend.store.set_deadline("c", 1, F + 3000)
    assert await _due(backend, F + 2000) == [("a", F + 1000), ("b", F + 2000)]
    rows = await backend.store.due_games(deadline_shard("a"), F + 2000, 100)
    assert ("a", F + 1000) in rows and ("c", F + 3000) not in rows


async def test_due_games_respects_the_limit(backend: Backend) -> None:
    """A shard returns at most ``limit`` entries, earliest first."""
    games = [f"g{i}" for i in range(40)]
    same = [g for g in games if deadline_shard(g) == deadline_shard("g0")]
    for i, game in enumerate(same):
        await backend.store.set_deadline(game, 1, F + 100 + i)
    rows = await backend.store.due_games(deadline_shard("g0"), F + 10_000, 2)
    assert rows == [(same[0], F + 100), (same[1], F + 101)][: len(same)]


async def test_set_deadline_ignores_an_older_version(backend: Backend) -> None:
    """An entry set for version 5 is not replaced by a late write for version 4."""
    assert await backend.store.set_deadline("g", 5, F + 5000)
    assert not await backend.store.set_deadline("g", 4, F + 1000)
    assert not await backend.store.set_deadline("g", 4, None)
    assert await _due(backend, F + 10_000) == [("g", F + 5000)]


async def test_set_deadline_none_removes_the_entry(backend: Backend) -> None:
    """A version without a deadline removes the game's entry."""
    await backend.store.set_deadline("g", 1, F + 1000)
    assert await backend.store.set_deadline("g", 2, None)
    assert await _due(backend, F + 10_000) == []


async def test_lower_deadline_only_lowers_or_adds(backend: Backend) -> None:
    """lower_deadline adds a missing entry and never raises an existing one."""
    await backend.store.lower_deadline("new", F + 700)
    await backend.store.set_deadline("g", 1, F + 1000)
    await backend.store.lower_deadline("g", F + 2000)
    await backend.store.lower_deadline("g", F + 500)
    assert await _due(backend, F + 10_000) == [("g", F + 500), ("new", F + 700)]


async def test_forget_deadline_needs_the_same_deadline(backend: Backend) -> None:
    """An entry moved since the sweeper read it is not forgotten."""
    await backend.store.set_deadline("g", 1, F + 1000)
    assert not await backend.store.forget_deadline("g", F + 999)
    assert await backend.store.forget_deadline("g", F + 1000)
    assert await _due(backend, F + 10_000) == []


async def test_public_games_newest_first_and_by_preset(backend: Backend) -> None:
    """The lobby lists newest first, filtered by preset when asked."""
    store = backend.store
    await store.list_public("old", "scopa", 1000, 10**13)
    await store.list_public("mid", "scopone", 2000, 10**13)
    await store.list_public("new", "scopa", 3000, 10**13)
    assert await _rows(backend, "", 5000, 10) == [("new", 3000), ("mid", 2000), ("old", 1000)]
    assert await _rows(backend, "scopa", 5000, 10) == [("new", 3000), ("old", 1000)]


async def test_public_games_pages_after_the_cursor(backend: Backend) -> None:
    """Pages continue strictly after the last entry, ties on the time broken by id."""
    store = backend.store
    for game in ("a", "b", "c", "d"):
        await store.list_public(game, "scopa", 1000, 10**13)
    await store.list_public("e", "scopa", 900, 10**13)
    first = await _rows(backend, "", 5000, 2)
    second = await _rows(backend, "", 5000, 2, (first[-1][1], first[-1][0]))
    third = await _rows(backend, "", 5000, 2, (second[-1][1], second[-1][0]))
    assert [g for g, _ in first + second + third] == ["d", "c", "b", "a", "e"]


async def test_unlisted_and_expired_games_leave_the_lobby(backend: Backend) -> None:
    """A game taken off the lobby, or past its expiry, is no longer listed."""
    store = backend.store
    await store.list_public("gone", "scopa", 1000, 10**13)
    await store.list_public("stale", "scopa", 2000, 4000)
    await store.list_public("live", "scopa", 3000, 10**13)
    await store.unlist_public("gone")
    await store.unlist_public("never-listed")
    assert await _rows(backend, "", 3999, 10) == [("live", 3000), ("stale", 2000)]
    assert await _rows(backend, "scopa", 4000, 10) == [("live", 3000)]
    assert await _rows(backend, "", 4000, 10) == [("live", 3000)]


async def test_expired_lobby_entries_are_purged_in_batches_without_a_listing(
    backend: Backend,
) -> None:
    """``purge_public`` drops up to ``limit`` expired entries (no listing needed): listed again
    as of a time before their expiry, the purged entries are gone, the live one stays."""
    store = backend.store
    for i in range(3):
        await store.list_public(f"stale{i}", "scopa" if i else "scopone", 2000 + i, 4000)
    await store.list_public("live", "scopa", 1000, 10**13)
    assert await store.purge_public(5000, 2) == 2
    assert len(await _rows(backend, "", 3000, 10)) == 2
    assert await store.purge_public(5000, 2) == 1
    assert await store.purge_public(5000, 2) == 0
    assert await _rows(backend, "", 3000, 10) == [("live", 1000)]
    assert await _rows(backend, "scopone", 3000, 10) == []


async def test_a_first_page_skips_any_number_of_expired_entries(backend: Backend) -> None:
    """However many expired entries are newer than the live ones, the first page holds live
    games (never an empty page while some match), for every preset filter."""
    store = backend.store
    for i in range(100):
        await store.list_public(f"stale{i:03}", "scopa", 2000 + i, 4000)
    for i in range(3):
        await store.list_public(f"live{i}", "scopa", 1000 + i, 10**13)
    assert await _rows(backend, "", 5000, 2) == [("live2", 1002), ("live1", 1001)]
    assert await _rows(backend, "scopa", 5000, 2, (1001, "live1")) == [("live0", 1000)]


async def test_each_entry_comes_with_its_latest_summary(backend: Backend) -> None:
    """The summary stored with a listing is returned with its entry in the same page; listing
    the game again replaces it; an entry listed without one has an empty summary."""
    store = backend.store
    await store.list_public("a", "scopa", 1000, 10**13, b"seats:1/2")
    await store.list_public("b", "scopone", 2000, 10**13)
    assert await store.public_games("", 5000, 10) == [("b", 2000, b""), ("a", 1000, b"seats:1/2")]
    await store.list_public("a", "scopa", 1000, 10**13, b"seats:2/3 \x00\xff")
    assert await store.public_games("scopa", 5000, 10) == [("a", 1000, b"seats:2/3 \x00\xff")]
    await store.unlist_public("a")
    await store.list_public("a", "scopa", 1000, 10**13)
    assert await store.public_games("scopa", 5000, 10) == [("a", 1000, b"")]
