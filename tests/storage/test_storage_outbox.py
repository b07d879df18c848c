"""Contract tests of the webhook outbox on every backend: written with the commit, leased,
finished, indexed (scopa.storage._outbox, lua/outbox.lua, lua/outbox_index.lua)."""

from __future__ import annotations

import uuid

import pytest

from scopa.storage import OUTBOX_SHARDS, VersionConflict, outbox_shard
from storage.backends import Backend

pytestmark = pytest.mark.asyncio(loop_scope="session")

F = 10**13
"""Times far in the future: no other suite's worker takes these entries."""
LEASE = 5_000
GRACE = 30_000


def _game() -> str:
    return f"wh-{uuid.uuid4().hex[:12]}"


async def _due(backend: Backend, now_ms: int) -> list[str]:
    found: list[str] = []
    for shard in range(OUTBOX_SHARDS):
        found += await backend.store.due_outboxes(shard, now_ms, 100)
    return found


async def _created(backend: Backend, game: str) -> None:
    await backend.store.touch_outbox(game, F)
    await backend.store.create(game, b"s", b"m", [b"e"], 60, outbox=[("msg_a", b"\n{}")])


async def test_create_and_commit_write_entries_with_the_game(backend: Backend) -> None:
    """Entries written by create and commit are claimed in version order (whatever their ids),
    each attempt counted."""
    game = _game()
    await _created(backend, game)
    await backend.store.touch_outbox(game, F)
    await backend.store.commit(game, 1, b"s2", b"m2", [b"e"], 60, outbox=[("msg_0", b"u\n{1}")])
    assert game in await _due(backend, F)
    claim = await backend.store.claim_outbox(game, F, LEASE, 10, "lease-1")
    assert [(e.entry_id, e.payload, e.attempts) for e in claim.entries] == [
        ("msg_a", b"\n{}", 1),
        ("msg_0", b"u\n{1}", 1),
    ]
    assert claim.next_due_ms == F + LEASE


async def test_a_refused_commit_writes_no_entry(backend: Backend) -> None:
    """A version conflict leaves the outbox as it was: the entries go with the commit."""
    game = _game()
    await backend.store.create(game, b"s", b"m", [b"e"], 60)
    with pytest.raises(VersionConflict):
        await backend.store.commit(game, 7, b"x", b"y", [b"e"], 60, outbox=[("msg_x", b"\n{}")])
    claim = await backend.store.claim_outbox(game, F, LEASE, 10, "l")
    assert claim.entries == () and claim.next_due_ms is None


async def test_a_lease_keeps_others_off_until_it_runs_out(backend: Backend) -> None:
    """A second claim within the lease gets nothing; after it, the entry is taken over (its
    second attempt) and the first holder's finish is a no-op."""
    game = _game()
    await _created(backend, game)
    first = await backend.store.claim_outbox(game, F, LEASE, 10, "one")
    assert [e.attempts for e in first.entries] == [1]
    assert (await backend.store.claim_outbox(game, F + 1, LEASE, 10, "two")).entries == ()
    again = await backend.store.claim_outbox(game, F + LEASE, LEASE, 10, "two")
    assert [(e.entry_id, e.attempts) for e in again.entries] == [("msg_a", 2)]
    assert await backend.store.finish_outbox(game, "msg_a", "one", None) == F + 2 * LEASE
    assert await backend.store.finish_outbox(game, "msg_a", "two", None) is None
    assert (await backend.store.claim_outbox(game, F * 2, LEASE, 10, "x")).entries == ()


async def test_a_retry_is_due_at_its_time(backend: Backend) -> None:
    """A finished attempt with a retry time makes the entry due then, not before."""
    game = _game()
    await _created(backend, game)
    await backend.store.claim_outbox(game, F, LEASE, 10, "one")
    assert await backend.store.finish_outbox(game, "msg_a", "one", F + 100) == F + 100
    assert (await backend.store.claim_outbox(game, F + 99, LEASE, 10, "two")).entries == ()
    later = await backend.store.claim_outbox(game, F + 100, LEASE, 10, "two")
    assert [e.attempts for e in later.entries] == [2]


async def test_settle_drops_the_index_only_once_nothing_can_be_on_its_way(
    backend: Backend,
) -> None:
    """An empty outbox touched long before the claim leaves the index; one touched since the
    claim stays due (its commit's entries may not have been there to see)."""
    game = _game()
    await _created(backend, game)
    await backend.store.claim_outbox(game, F, LEASE, 10, "l")
    await backend.store.finish_outbox(game, "msg_a", "l", None)
    if backend.name != "memory":  # the embedded store indexes exactly (no commit in flight)
        await backend.store.touch_outbox(game, F + 10)
        await backend.store.settle_outbox(game, None, F, GRACE)
        assert game in await _due(backend, F + 10)
    await backend.store.settle_outbox(game, None, F + 10 + GRACE, GRACE)
    assert game not in await _due(backend, F * 2)


async def test_settle_keeps_a_game_with_entries_indexed_for_the_next(backend: Backend) -> None:
    """A game whose outbox still holds an entry is due again when that entry is."""
    game = _game()
    await _created(backend, game)
    await backend.store.claim_outbox(game, F, LEASE, 10, "l")
    await backend.store.finish_outbox(game, "msg_a", "l", F + 500)
    await backend.store.settle_outbox(game, F + 500, F + GRACE * 2, GRACE)
    assert game not in await backend.store.due_outboxes(outbox_shard(game), F + 499, 10)
    assert game in await backend.store.due_outboxes(outbox_shard(game), F + 500, 10)
