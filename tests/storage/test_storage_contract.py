"""Contract tests of GameStore, run against the embedded store and the Redis store."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from scopa.storage import (
    INITIAL_VERSION,
    DuplicateRequest,
    Event,
    GameExists,
    GameNotFound,
    GameStore,
    Snapshot,
    VersionConflict,
    basis_digest,
)
from storage.backends import Backend

pytestmark = pytest.mark.asyncio(loop_scope="session")

TTL = 60.0


async def _new_game(store: GameStore, game_id: str = "g1") -> None:
    await store.create(game_id, b"s0", b"m0", [b"dealt"], TTL)


async def _next(versions: AsyncIterator[int]) -> int:
    return await asyncio.wait_for(anext(versions), timeout=2.0)


async def test_create_then_load(backend: Backend) -> None:
    """A created game loads with its state, meta and the initial version."""
    result = await backend.store.create("g1", b"state", b"meta", [], TTL)
    snapshot = await backend.store.load("g1")
    assert result.created and result.version == INITIAL_VERSION
    assert (snapshot.state, snapshot.meta, snapshot.version) == (b"state", b"meta", 1)
    assert snapshot.cached_response is None


async def test_create_twice_raises_game_exists(backend: Backend) -> None:
    """Creating an existing game fails and leaves it untouched."""
    await _new_game(backend.store)
    with pytest.raises(GameExists):
        await backend.store.create("g1", b"other", b"other", [], TTL, "r1", b"resp")
    assert (await backend.store.load("g1")).state == b"s0"


async def test_create_retry_returns_recorded_response(backend: Backend) -> None:
    """Re-creating with the same request id returns the response recorded the first time."""
    first = await backend.store.create("g1", b"s", b"m", [], TTL, "req-1", b"created!")
    await backend.store.commit("g1", 1, b"s2", b"m2", [], TTL)
    retry = await backend.store.create("g1", b"x", b"x", [], TTL, "req-1", b"ignored")
    assert first.created and first.response == b"created!"
    assert not retry.created and retry.response == b"created!" and retry.version == 2


async def test_commit_bumps_version_and_replaces_blobs(backend: Backend) -> None:
    """A commit at the current version stores the new blobs under version + 1."""
    await _new_game(backend.store)
    v2 = await backend.store.commit("g1", 1, b"s1", b"m1", [b"e"], TTL, "r1", b"ok1")
    v3 = await backend.store.commit("g1", v2, b"s2", b"m2", [], TTL, "r2", b"ok2")
    snapshot = await backend.store.load("g1")
    assert (v2, v3) == (2, 3)
    assert (snapshot.state, snapshot.meta, snapshot.version) == (b"s2", b"m2", 3)


async def test_version_conflict_carries_the_game_as_stored(backend: Backend) -> None:
    """A conflict carries the stored state, meta and version, so no load need follow it."""
    await _new_game(backend.store)
    await backend.store.commit("g1", 1, b"s1", b"m1", [b"e1"], TTL)
    with pytest.raises(VersionConflict) as excinfo:
        await backend.store.commit("g1", 1, b"bad", b"bad", [b"bad"], TTL)
    assert excinfo.value.stored == Snapshot(b"s1", b"m1", 2)


async def test_commit_with_the_expected_digest_applies(backend: Backend) -> None:
    """A commit naming the digest of the stored state and meta applies as a plain one does."""
    await _new_game(backend.store)
    version = await backend.store.commit(
        "g1", 1, b"s1", b"m1", [b"e1"], TTL, expected_digest=basis_digest(b"s0", b"m0")
    )
    snapshot = await backend.store.load("g1")
    assert version == 2
    assert (snapshot.state, snapshot.meta, snapshot.version) == (b"s1", b"m1", 2)


@pytest.mark.parametrize(("state", "meta"), [(b"s0", b"other"), (b"other", b"m0"), (b"s", b"0m0")])
async def test_other_bytes_at_the_expected_version_conflict(
    backend: Backend, state: bytes, meta: bytes
) -> None:
    """A digest of other bytes at the right version is a conflict, and nothing changes."""
    await _new_game(backend.store)
    with pytest.raises(VersionConflict) as excinfo:
        await backend.store.commit(
            "g1",
            1,
            b"s1",
            b"m1",
            [b"e1"],
            TTL,
            "r1",
            b"ok",
            expected_digest=basis_digest(state, meta),
        )
    snapshot = await backend.store.load("g1", "r1")
    assert excinfo.value.stored == Snapshot(b"s0", b"m0", 1)
    assert (snapshot.state, snapshot.meta, snapshot.version) == (b"s0", b"m0", 1)
    assert snapshot.cached_response is None
    assert [e.payload for e in await backend.store.events_since("g1", 0)] == [b"dealt"]


async def test_a_duplicate_request_is_found_before_the_digest(backend: Backend) -> None:
    """A request already applied is answered as a duplicate, whatever digest the retry names."""
    await _new_game(backend.store)
    await backend.store.commit("g1", 1, b"s1", b"m1", [b"e1"], TTL, "r1", b"ok1")
    with pytest.raises(DuplicateRequest) as excinfo:
        await backend.store.commit(
            "g1", 1, b"s9", b"m9", [], TTL, "r1", b"again", expected_digest=basis_digest(b"", b"")
        )
    assert excinfo.value.response == b"ok1"


async def test_version_conflict_leaves_data_unchanged(backend: Backend) -> None:
    """A stale expected version raises VersionConflict carrying the current one; nothing changes."""
    await _new_game(backend.store)
    await backend.store.commit("g1", 1, b"s1", b"m1", [b"e1"], TTL)
    with pytest.raises(VersionConflict) as excinfo:
        await backend.store.commit("g1", 1, b"bad", b"bad", [b"bad"], TTL, "r9", b"bad")
    snapshot = await backend.store.load("g1", "r9")
    assert (excinfo.value.current, excinfo.value.expected) == (2, 1)
    assert (snapshot.state, snapshot.meta, snapshot.version) == (b"s1", b"m1", 2)
    assert snapshot.cached_response is None
    assert [e.payload for e in await backend.store.events_since("g1", 0)] == [b"dealt", b"e1"]


async def test_duplicate_request_returns_stored_response(backend: Backend) -> None:
    """Replaying a request id raises DuplicateRequest carrying the first response."""
    await _new_game(backend.store)
    await backend.store.commit("g1", 1, b"s1", b"m1", [], TTL, "move-7", b"response-7")
    with pytest.raises(DuplicateRequest) as excinfo:
        await backend.store.commit("g1", 1, b"s9", b"m9", [], TTL, "move-7", b"other")
    assert excinfo.value.response == b"response-7"
    assert (await backend.store.load("g1")).version == 2


async def test_a_cached_response_comes_with_the_state_of_its_commit(backend: Backend) -> None:
    """A request's response is loaded, or returned as a duplicate, with the state committed
    with it, after later commits of other slots and requests too."""
    store = backend.store
    await store.create("g1", b"s1", b"m", [], TTL)
    await store.commit("g1", 1, b"s2", b"m", [], TTL, "a", b"resp-a", slot="0")
    snapshot = await store.load("g1", "a", slot="0")
    assert (snapshot.cached_response, snapshot.cached_state) == (b"resp-a", b"s2")
    await store.commit("g1", 2, b"s3", b"m", [], TTL, "b", b"resp-b", slot="1")
    await store.commit("g1", 3, b"s4", b"m", [b"e"], TTL, "j", b"resp-j")
    await store.commit("g1", 4, b"s5", b"m", [], TTL)
    for request_id, slot, state in (("a", "0", b"s2"), ("b", "1", b"s3"), ("j", None, b"s4")):
        snapshot = await store.load("g1", request_id, slot)
        assert (snapshot.cached_response, snapshot.cached_state) == (
            f"resp-{request_id}".encode(),
            state,
        )
    with pytest.raises(DuplicateRequest) as dup:
        await store.commit("g1", 5, b"x", b"m", [], TTL, "a", b"again", slot="0")
    assert (dup.value.response, dup.value.state) == (b"resp-a", b"s2")
    assert (await store.load("g1")).state == b"s5"


async def test_load_returns_cached_response_for_request(backend: Backend) -> None:
    """load with a request id returns the recorded response, or None for unknown ids."""
    await _new_game(backend.store)
    await backend.store.commit("g1", 1, b"s1", b"m1", [], TTL, "move-1", b"resp-1")
    assert (await backend.store.load("g1", "move-1")).cached_response == b"resp-1"
    assert (await backend.store.load("g1", "move-2")).cached_response is None


async def test_request_without_response_is_checked_not_recorded(backend: Backend) -> None:
    """A request id without a response is not recorded, so it can be applied again."""
    await _new_game(backend.store)
    await backend.store.commit("g1", 1, b"s1", b"m1", [], TTL, "probe")
    assert await backend.store.commit("g1", 2, b"s2", b"m2", [], TTL, "probe") == 3


async def test_events_since_is_ordered_and_tagged(backend: Backend) -> None:
    """events_since returns later events oldest first, tagged with the version that made them."""
    await backend.store.create("g1", b"s", b"m", [b"a", b"b"], TTL)
    await backend.store.commit("g1", 1, b"s", b"m", [b"c", b"d"], TTL)
    await backend.store.commit("g1", 2, b"s", b"m", [], TTL)
    await backend.store.commit("g1", 3, b"s", b"m", [b"e"], TTL)
    everything = await backend.store.events_since("g1", 0)
    assert everything == [
        Event(1, b"a"),
        Event(1, b"b"),
        Event(2, b"c"),
        Event(2, b"d"),
        Event(4, b"e"),
    ]
    assert await backend.store.events_since("g1", 1) == everything[2:]
    assert await backend.store.events_since("g1", 4) == []


async def test_missing_game_raises_game_not_found(backend: Backend) -> None:
    """load, commit and events_since on an unknown game raise GameNotFound."""
    with pytest.raises(GameNotFound):
        await backend.store.load("nope")
    with pytest.raises(GameNotFound):
        await backend.store.commit("nope", 1, b"s", b"m", [], TTL)
    with pytest.raises(GameNotFound):
        await backend.store.events_since("nope", 0)


async def test_invalid_game_id_is_rejected(backend: Backend) -> None:
    """Game ids that would break the Redis hash tag are refused."""
    with pytest.raises(ValueError):
        await backend.store.create("a}b", b"s", b"m", [], TTL)


async def test_non_positive_ttl_is_rejected(backend: Backend) -> None:
    """A TTL of zero would delete the game at once, so create and commit refuse it."""
    with pytest.raises(ValueError):
        await backend.store.create("g1", b"s", b"m", [], 0)
    await _new_game(backend.store)
    with pytest.raises(ValueError):
        await backend.store.commit("g1", 1, b"s", b"m", [], -1.0)
    assert (await backend.store.load("g1")).version == 1


async def test_subscribe_receives_committed_versions(backend: Backend) -> None:
    """A subscriber sees every successful commit's version, and nothing for a conflict."""
    await _new_game(backend.store)
    async with backend.store.subscribe("g1") as versions:
        await backend.store.commit("g1", 1, b"s", b"m", [], TTL)
        with pytest.raises(VersionConflict):
            await backend.store.commit("g1", 1, b"s", b"m", [], TTL)
        await backend.store.commit("g1", 2, b"s", b"m", [], TTL)
        assert [await _next(versions), await _next(versions)] == [2, 3]


async def test_subscribe_leaves_out_the_versions_skip_is_true_for(backend: Backend) -> None:
    """``skip`` is asked of each committed version as it is published; the subscriber is not
    woken for those it is true for."""
    await _new_game(backend.store)
    asked: list[int] = []

    def skip(version: int) -> bool:
        asked.append(version)
        return version == 3

    async with backend.store.subscribe("g1", skip) as versions:
        for version in (1, 2, 3):
            await backend.store.commit("g1", version, b"s", b"m", [], TTL)
        assert [await _next(versions), await _next(versions)] == [2, 4]
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(anext(versions), timeout=0.2)
    assert asked == [2, 3, 4]


async def test_subscribe_ignores_other_games(backend: Backend) -> None:
    """A subscriber of one game is not woken by commits to another game."""
    await _new_game(backend.store, "g1")
    await _new_game(backend.store, "g2")
    async with backend.store.subscribe("g1") as versions:
        await backend.store.commit("g2", 1, b"s", b"m", [], TTL)
        await backend.store.commit("g1", 1, b"s", b"m", [], TTL)
        assert await _next(versions) == 2
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(anext(versions), timeout=0.2)


async def test_cancelled_subscriber_is_cleaned_up(backend: Backend) -> None:
    """Cancelling a task blocked in a subscription exits it cleanly; later commits still work."""
    await _new_game(backend.store)
    entered = asyncio.Event()

    async def watch() -> None:
        async with backend.store.subscribe("g1") as versions:
            entered.set()
            async for _ in versions:
                pass

    task = asyncio.create_task(watch())
    await asyncio.wait_for(entered.wait(), timeout=2.0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await backend.store.commit("g1", 1, b"s", b"m", [], TTL) == 2


async def test_game_expires_after_ttl(backend: Backend) -> None:
    """A game not written for its TTL disappears."""
    await backend.store.create("g1", b"s", b"m", [b"e"], 0.2)
    await backend.advance(0.4)
    with pytest.raises(GameNotFound):
        await backend.store.load("g1")
    with pytest.raises(GameNotFound):
        await backend.store.events_since("g1", 0)
    assert (await backend.store.create("g1", b"new", b"m", [], TTL)).created


async def test_commit_refreshes_ttl(backend: Backend) -> None:
    """Each commit restarts the TTL it is given (margins of 0.6 s for a loaded machine)."""
    await backend.store.create("g1", b"s", b"m", [], 1.5)
    await backend.advance(0.9)
    await backend.store.commit("g1", 1, b"s", b"m", [b"e"], 1.5)
    await backend.advance(0.9)
    assert (await backend.store.load("g1")).version == 2
    assert await backend.store.events_since("g1", 0) == [Event(2, b"e")]


async def test_concurrent_commits_exactly_one_wins(backend: Backend) -> None:
    """N concurrent commits against the same expected version: one succeeds, the rest conflict."""
    await _new_game(backend.store)
    attempts = [
        backend.store.commit("g1", 1, f"s{i}".encode(), b"m", [f"e{i}".encode()], TTL)
        for i in range(20)
    ]
    results = await asyncio.gather(*attempts, return_exceptions=True)
    winners = [r for r in results if r == 2]
    conflicts = [r for r in results if isinstance(r, VersionConflict)]
    assert len(winners) == 1 and len(conflicts) == 19
    assert all(c.current == 2 for c in conflicts)
    events = await backend.store.events_since("g1", 1)
    assert len(events) == 1
    assert (await backend.store.load("g1")).state == b"s" + events[0].payload[1:]


async def test_ping_succeeds_on_open_store(backend: Backend) -> None:
    """ping returns quietly while the backend is reachable."""
    await backend.store.ping()
