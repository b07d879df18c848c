"""Contract tests of presence (``touch_presence``, ``drop_presence``, ``presence``,
``load_with_presence``) on every backend: entries per open stream, lapsing, the ``p`` notice on
the game's channel, and the game read with its presence."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from scopa.storage import (
    PRESENCE,
    GameNotFound,
    GameStore,
    MemoryStore,
    SeatSeen,
    Snapshot,
)
from scopa.storage._presence import presence_keys
from storage.backends import Backend

pytestmark = pytest.mark.asyncio(loop_scope="session")

TTL = 60.0
KEEP = 600.0


async def _next(versions: AsyncIterator[int]) -> int:
    return await asyncio.wait_for(anext(versions), timeout=2.0)


async def _quiet(versions: AsyncIterator[int]) -> None:
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(anext(versions), timeout=0.2)


def _now_ms() -> int:
    return round(time.time() * 1000)


async def test_an_unknown_game_has_no_presence(backend: Backend) -> None:
    """Nobody is seen on a game no stream ever opened."""
    presence = await backend.store.presence("nobody")
    assert (presence.seats, presence.spectators) == ({}, 0)
    assert abs(presence.now_ms - _now_ms()) < 5000


async def test_a_touched_seat_is_connected_until_its_last_stream_drops(backend: Backend) -> None:
    """A seat is connected while any of its streams has an entry; the first entry and the
    last drop are changes, a refresh and a second stream are not."""
    store = backend.store
    assert await store.touch_presence("g1", 1, "a", TTL, KEEP)
    assert not await store.touch_presence("g1", 1, "a", TTL, KEEP)
    assert not await store.touch_presence("g1", 1, "b", TTL, KEEP)
    seen = (await store.presence("g1")).seats
    assert list(seen) == [1] and seen[1].connected
    assert abs(seen[1].last_seen_ms - _now_ms()) < 5000
    assert not await store.drop_presence("g1", 1, "a", KEEP)
    assert (await store.presence("g1")).seats[1].connected
    assert await store.drop_presence("g1", 1, "b", KEEP)
    left = (await store.presence("g1")).seats[1]
    assert not left.connected and left.last_seen_ms >= seen[1].last_seen_ms
    assert not await store.drop_presence("g1", 1, "b", KEEP)


async def test_spectators_are_counted_not_named(backend: Backend) -> None:
    """Spectators' streams are a count; every join and leave changes it."""
    store = backend.store
    assert await store.touch_presence("g1", None, "s1", TTL, KEEP)
    assert await store.touch_presence("g1", None, "s2", TTL, KEEP)
    assert not await store.touch_presence("g1", None, "s2", TTL, KEEP)
    presence = await store.presence("g1")
    assert (presence.seats, presence.spectators) == ({}, 2)
    assert await store.drop_presence("g1", None, "s1", KEEP)
    assert (await store.presence("g1")).spectators == 1


async def test_changes_are_announced_without_a_version(backend: Backend) -> None:
    """A change publishes PRESENCE to the game's subscribers; a refresh does not; the game's
    version stays as it was."""
    store = backend.store
    await store.create("g1", b"s", b"m", [], TTL)
    async with store.subscribe("g1") as versions:
        await store.touch_presence("g1", 0, "a", TTL, KEEP)
        assert await _next(versions) == PRESENCE
        await store.touch_presence("g1", 0, "a", TTL, KEEP)
        await _quiet(versions)
        await store.touch_presence("g1", None, "s", TTL, KEEP)
        assert await _next(versions) == PRESENCE
        await store.drop_presence("g1", 0, "a", KEEP)
        assert await _next(versions) == PRESENCE
    assert (await store.load("g1")).version == 1


async def test_a_lapsed_entry_is_not_connected_and_its_drop_is_announced(
    backend: Backend,
) -> None:
    """An entry not refreshed within its TTL (its replica died) no longer counts; the next
    touch of any stream of the game drops it and announces the change."""
    store = backend.store
    await store.create("g1", b"s", b"m", [], TTL)
    await store.touch_presence("g1", 0, "dead", 0.3, KEEP)
    await store.touch_presence("g1", None, "dead-s", 0.3, KEEP)
    await store.touch_presence("g1", 1, "alive", TTL, KEEP)
    touched = (await store.presence("g1")).seats[0].last_seen_ms
    await asyncio.sleep(0.5)
    presence = await store.presence("g1")
    assert presence.seats[0] == SeatSeen(False, touched)
    assert presence.seats[1].connected and presence.spectators == 0
    async with store.subscribe("g1") as versions:
        assert await store.touch_presence("g1", 1, "alive", TTL, KEEP)
        assert await _next(versions) == PRESENCE
    assert not await store.touch_presence("g1", 1, "alive", TTL, KEEP)


async def test_a_seat_back_after_lapsing_is_a_change(backend: Backend) -> None:
    """A seat whose entry lapsed unseen and that connects again is announced as back."""
    store = backend.store
    await store.touch_presence("g1", 0, "old", 0.2, KEEP)
    await asyncio.sleep(0.4)
    assert await store.touch_presence("g1", 0, "new", TTL, KEEP)


async def test_presence_is_per_game(backend: Backend) -> None:
    """Another game's streams are not seen, nor announced to this game's subscribers."""
    store = backend.store
    await store.create("g1", b"s", b"m", [], TTL)
    async with store.subscribe("g1") as versions:
        await store.touch_presence("g2", 0, "a", TTL, KEEP)
        await _quiet(versions)
    assert (await store.presence("g1")).seats == {}


async def test_bad_arguments_are_refused(backend: Backend) -> None:
    """A malformed game id, a negative seat or a non-positive TTL is a ValueError."""
    store = backend.store
    for call in (
        store.touch_presence("g{1}", 0, "a", TTL, KEEP),
        store.touch_presence("g1", -1, "a", TTL, KEEP),
        store.touch_presence("g1", 0, "a", 0, KEEP),
        store.drop_presence("g1", 0, "a", -1),
    ):
        with pytest.raises(ValueError):
            await call
    assert (await store.presence("g1")).seats == {}


async def test_a_game_is_loaded_with_its_presence(backend: Backend) -> None:
    """load_with_presence reads what load (without a request) and presence read."""
    store = backend.store
    await store.create("g1", b"s", b"m", [], TTL, request_id="r1", response=b"x")
    await store.commit("g1", 1, b"s2", b"m2", [b"e"], TTL)
    await store.touch_presence("g1", 0, "a", TTL, KEEP)
    await store.touch_presence("g1", 1, "b", TTL, KEEP)
    await store.drop_presence("g1", 1, "b", KEEP)
    await store.touch_presence("g1", None, "s", TTL, KEEP)
    snap, presence = await store.load_with_presence("g1")
    assert snap == Snapshot(b"s2", b"m2", 2) == await store.load("g1")
    alone = await store.presence("g1")
    assert (presence.seats, presence.spectators) == (alone.seats, alone.spectators)
    assert presence.seats[0].connected and not presence.seats[1].connected
    assert presence.spectators == 1 and abs(presence.now_ms - _now_ms()) < 5000


async def test_a_game_nobody_watches_is_loaded_with_empty_presence(backend: Backend) -> None:
    """A game without presence entries loads with no seats and no spectators."""
    store = backend.store
    await store.create("g1", b"s", b"m", [], TTL)
    snap, presence = await store.load_with_presence("g1")
    assert snap == Snapshot(b"s", b"m", 1)
    assert (presence.seats, presence.spectators) == ({}, 0)


async def test_a_missing_game_is_not_found_with_its_presence(backend: Backend) -> None:
    """A game that does not exist (or expired) is GameNotFound even if streams are open on
    it; a malformed id is a ValueError."""
    store = backend.store
    await store.touch_presence("g1", 0, "a", TTL, KEEP)
    with pytest.raises(GameNotFound):
        await store.load_with_presence("g1")
    await store.create("g2", b"s", b"m", [], 0.3)
    await backend.advance(0.5)
    with pytest.raises(GameNotFound):
        await store.load_with_presence("g2")
    with pytest.raises(ValueError):
        await store.load_with_presence("g{1}")


async def test_presence_keys_share_the_game_hash_tag() -> None:
    """Every presence key lives in the game's slot (one script call on a Cluster)."""
    assert all("{g1}" in key for key in presence_keys("g1"))


async def test_the_embedded_store_forgets_presence_after_keep() -> None:
    """Presence keys live ``keep_s`` after their last write (the Redis keys' PEXPIRE)."""
    now = [1000.0]
    store: GameStore = MemoryStore(wall=lambda: now[0])
    await store.touch_presence("g1", 0, "a", 1.0, 10.0)
    now[0] += 11
    assert (await store.presence("g1")).seats == {}
    await store.close()
