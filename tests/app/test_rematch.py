"""Tests of scopa.app._rematch (RematchGame) through the core, on the embedded store."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from support.fake_clock import FakeClock
from support.games import SECRET, InterleavingStore, make_core, play_one, two_seat_game

from scopa.app import (
    CoreSettings,
    CreateGameCommand,
    GameCore,
    GameNotFinished,
    GameNotFoundError,
    PermissionDenied,
    RematchUnavailable,
    SeatSpec,
    TokenAuthority,
    Unauthenticated,
)
from scopa.archive import open_archive
from scopa.storage import MemoryStore, StorageUnavailable


def _core(store: MemoryStore, seed: int = 7, **hooks: Any) -> GameCore:
    return GameCore(store, TokenAuthority(SECRET), CoreSettings(), random.Random(seed), **hooks)


async def test_a_rematch_keeps_seats_and_tokens_and_is_asked_once() -> None:
    """Seat 0 asks: a new game, linked in a new version of the finished one; seat 1 asking
    later gets the same game without a new version; both old tokens play the rematch, and
    the rematch's rematch too (the first game's tokens act for the whole chain)."""
    linked: list[tuple[str, str]] = []
    core = _core(MemoryStore(), on_rematch=lambda old, new: linked.append((old, new)))
    created, tokens = await two_seat_game(core)
    game = created.game_id
    finished = (await core.resign(game, tokens[1])).snapshot.version
    asked = await core.rematch_game(game, tokens[0])
    assert asked.game_id != game and asked.snapshot.view.seat == 0
    assert asked.snapshot.previous_game_id == game and asked.snapshot.version == 1
    old = await core.get_state(game, None)
    assert old.version == finished + 1 and old.rematch_game_id == asked.game_id
    assert linked == [(game, asked.game_id)]
    again = await core.rematch_game(game, tokens[1])
    assert again.game_id == asked.game_id and again.snapshot.view.seat == 1
    assert (await core.get_state(game, None)).version == finished + 1
    assert linked == [(game, asked.game_id)]
    await play_one(core, asked.game_id, tokens, random.Random(1))
    await core.resign(asked.game_id, tokens[0])
    third = await core.rematch_game(asked.game_id, tokens[1])
    assert third.game_id not in (game, asked.game_id)
    assert third.snapshot.view.dealer == 1  # -1 (seat 1), then 0, then 1 again
    await play_one(core, third.game_id, tokens, random.Random(1))


async def test_racing_replicas_make_one_rematch() -> None:
    """Four asks at once on two replicas (a store that yields at every load and commit): one
    game, one link, one hook call; every ask answers with it."""
    store = InterleavingStore()
    linked: list[str] = []
    replicas = [_core(store, seed, on_rematch=lambda _, new: linked.append(new)) for seed in (1, 2)]
    created, tokens = await two_seat_game(replicas[0])
    game = created.game_id
    await replicas[1].resign(game, tokens[0])
    asks = [replicas[i % 2].rematch_game(game, tokens[i // 2]) for i in range(4)]
    answers = await asyncio.gather(*asks)
    assert len({a.game_id for a in answers}) == 1 and linked == [answers[0].game_id]
    assert [a.snapshot.view.seat for a in answers] == [0, 0, 1, 1]


class _LinkFailsOnce(MemoryStore):
    """The embedded store whose next commit fails once ``fail_next`` is set: the replica died
    after storing the rematch, before linking it."""

    def __init__(self) -> None:
        super().__init__()
        self.fail_next = False

    async def commit(self, *args: Any, **kwargs: Any) -> int:
        if self.fail_next:
            self.fail_next = False
            raise StorageUnavailable("gone")
        return await super().commit(*args, **kwargs)


async def test_a_rematch_stored_but_not_linked_is_linked_by_the_next_ask() -> None:
    """The link's commit fails after the rematch was stored: the next ask links that same
    game (its id is derived), without dealing another."""
    store = _LinkFailsOnce()
    core = _core(store)
    created, tokens = await two_seat_game(core)
    game = created.game_id
    await core.resign(game, tokens[0])
    store.fail_next = True
    with pytest.raises(StorageUnavailable):
        await core.rematch_game(game, tokens[0])
    assert not (await core.get_state(game, None)).rematch_game_id
    stored = await store.load(TokenAuthority(SECRET).derive_rematch_id(game))
    asked = await core.rematch_game(game, tokens[1])
    assert (await core.get_state(game, None)).rematch_game_id == asked.game_id
    assert (await store.load(asked.game_id)).state == stored.state  # the same deal


async def test_a_failing_hook_leaves_the_rematch_standing() -> None:
    """The rematch hook raising (a webhook's wiring) is logged; the ask still answers."""

    def broken(old: str, new: str) -> None:
        raise RuntimeError("hook down")

    core = _core(MemoryStore(), on_rematch=broken)
    created, tokens = await two_seat_game(core)
    await core.resign(created.game_id, tokens[0])
    asked = await core.rematch_game(created.game_id, tokens[0])
    assert (await core.get_state(created.game_id, None)).rematch_game_id == asked.game_id


async def test_refused_asks_change_nothing() -> None:
    """No token, another game's token, an unfinished game, an unknown game, a seat nobody
    took: each its error, and the game keeps its version."""
    core = make_core()
    created, tokens = await two_seat_game(core)
    game = created.game_id
    other = (await two_seat_game(core))[1][0]
    with pytest.raises(GameNotFinished):
        await core.rematch_game(game, tokens[0])
    version = (await core.resign(game, tokens[0])).snapshot.version
    with pytest.raises(Unauthenticated):
        await core.rematch_game(game, None)
    with pytest.raises(PermissionDenied):
        await core.rematch_game(game, other)
    with pytest.raises(GameNotFoundError):
        await core.rematch_game("nosuchgame0000000000", tokens[0])
    assert (await core.get_state(game, None)).version == version
    waiting = await core.create_game(
        CreateGameCommand("scopa", {}, [SeatSpec("ann"), SeatSpec("", open=True)])
    )
    (token,) = dict(waiting.tokens).values()
    await core.resign(waiting.game_id, token)
    with pytest.raises(RematchUnavailable):
        await core.rematch_game(waiting.game_id, token)


async def test_a_rematch_token_is_not_another_games() -> None:
    """The first game's token acts for the rematch; a token of a third game does not (the
    rematch's meta names whose tokens it takes)."""
    core = make_core()
    created, tokens = await two_seat_game(core)
    await core.resign(created.game_id, tokens[0])
    asked = await core.rematch_game(created.game_id, tokens[0])
    other = (await two_seat_game(core))[1][1]
    with pytest.raises(PermissionDenied):
        await core.resign(asked.game_id, other)
    with pytest.raises(PermissionDenied):
        await core.get_state(asked.game_id, other)
    assert (await core.get_state(asked.game_id, tokens[1])).view.seat == 1


async def test_a_watch_following_the_rematch_ends_with_its_link() -> None:
    """On a finished game, a watch with follow_rematch stays open until the rematch is linked
    (that update is its last); one without it ends at once."""
    core = make_core()
    created, tokens = await two_seat_game(core)
    game = created.game_id
    await core.resign(game, tokens[0])
    plain = [u async for u in core.watch(game, tokens[1])]
    assert len(plain) == 1 and not plain[0].snapshot.rematch_game_id
    following = core.watch(game, tokens[1], follow_rematch=True)
    first = await anext(following)
    assert not first.snapshot.rematch_game_id
    waiting = asyncio.ensure_future(anext(following))
    await asyncio.sleep(0.05)
    assert not waiting.done()
    asked = await core.rematch_game(game, tokens[0])
    linked = await asyncio.wait_for(waiting, 5)
    assert linked.snapshot.rematch_game_id == asked.game_id and linked.events == ()
    assert linked.snapshot.view.seat == 1
    with pytest.raises(StopAsyncIteration):
        await asyncio.wait_for(anext(following), 5)
    late = [u async for u in core.watch(game, None, follow_rematch=True)]
    assert len(late) == 1 and late[0].snapshot.rematch_game_id == asked.game_id


async def test_the_rematch_span_names_both_games_only() -> None:
    """One ``scopa.rematch_game`` span per rematch made, with the two game ids and nothing
    else; a later ask finds the link and makes none."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    core = GameCore(MemoryStore(), TokenAuthority(SECRET), tracer_provider=provider)
    created, tokens = await two_seat_game(core)
    await core.resign(created.game_id, tokens[0])
    exporter.clear()
    asked = await core.rematch_game(created.game_id, tokens[0])
    await core.rematch_game(created.game_id, tokens[1])
    (span,) = [s for s in exporter.get_finished_spans() if s.name == "scopa.rematch_game"]
    assert dict(span.attributes or {}) == {
        "scopa.game_id": created.game_id,
        "scopa.rematch_game_id": asked.game_id,
    }


async def test_a_game_left_only_in_the_archive_has_no_rematch(tmp_path: Path) -> None:
    """Past its time in the store a finished game is only a record: its rematch is
    GAME_NOT_FOUND (the record keeps no seat credentials), while the record is still read."""
    clock = FakeClock()
    archive = await open_archive(f"sqlite:///{tmp_path}/games.db")
    core = GameCore(
        MemoryStore(clock=clock),
        TokenAuthority(SECRET),
        CoreSettings(finished_ttl_s=60),
        random.Random(1),
        archive=archive,
    )
    try:
        created, tokens = await two_seat_game(core)
        game = created.game_id
        await core.resign(game, tokens[0])
        record = json.loads(await core.game_record(game, tokens[0]))
        clock.advance(61)
        with pytest.raises(GameNotFoundError):
            await core.rematch_game(game, tokens[0])
        assert json.loads(await core.game_record(game, tokens[1])) == record
    finally:
        await core.close()
        await archive.close()
