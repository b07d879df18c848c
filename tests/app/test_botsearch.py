"""Tests of where bot searches run (scopa.app._botsearch): threads, or worker processes."""

from __future__ import annotations

import asyncio
import os
import random
import signal
from concurrent.futures.process import BrokenProcessPool

import pytest

from scopa import bots, rules
from scopa.app import (
    CoreSettings,
    CreateGameCommand,
    GameCore,
    ProcessSearches,
    SeatSpec,
    ThreadSearches,
    TokenAuthority,
)
from scopa.storage import MemoryStore

BUDGET = bots.Budget(iterations=30)
"""No time limit: a search's choice depends on its seed only."""


def _views(count: int) -> list[rules.SeatView]:
    """The views of the seat to play of ``count`` scopa deals."""
    views = []
    for seed in range(count):
        state, _ = rules.new_match(rules.make_ruleset("scopa"), rng=random.Random(seed))
        views.append(rules.observe(state, state.turn))
    return views


async def _until_started(searches: ProcessSearches, processes: int) -> list[int]:
    for _ in range(600):
        if searches.ready() and len(searches.worker_pids()) == processes:
            return searches.worker_pids()
        await asyncio.sleep(0.05)
    raise AssertionError("the workers did not start within 30 s")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


async def test_the_workers_choose_what_a_thread_chooses(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker process's search, from the same view, seed, budget and level, picks the action
    the in-thread search picks (while the workers start, the searches run in threads)."""
    searches = ProcessSearches(2)
    views = _views(6)
    threads = ThreadSearches()
    expected = [await threads.choose(v, 7, BUDGET, bots.Level.ISMCTS) for v in views]
    try:
        first = await searches.choose(views[0], 7, BUDGET, bots.Level.ISMCTS)  # starts the pool
        pids = await _until_started(searches, 2)
        assert len(set(pids)) == 2 and os.getpid() not in pids

        def in_this_process(*args: object) -> rules.Action:
            raise AssertionError("searched in the server's process")

        monkeypatch.setattr(bots, "choose", in_this_process)  # the workers have their own
        picked = await asyncio.gather(
            *(searches.choose(v, 7, BUDGET, bots.Level.ISMCTS) for v in views)
        )
        assert picked == expected and first == expected[0]
    finally:
        await searches.close()
    assert not any(_alive(pid) for pid in pids)


async def test_a_dead_worker_fails_the_searches_in_flight_then_a_new_pool_serves() -> None:
    """Killing a worker breaks the pool: the next search raises BrokenProcessPool, and the one
    after it is served again (in a thread while a new pool starts, then by new workers)."""
    searches = ProcessSearches(1)
    view = _views(1)[0]
    try:
        await searches.choose(view, 1, BUDGET, bots.Level.GREEDY)
        (pid,) = await _until_started(searches, 1)
        os.kill(pid, signal.SIGKILL)
        await asyncio.sleep(0.2)
        with pytest.raises(BrokenProcessPool):
            await searches.choose(view, 1, BUDGET, bots.Level.GREEDY)
        assert await searches.choose(view, 1, BUDGET, bots.Level.GREEDY) in view.legal_actions
        (new_pid,) = await _until_started(searches, 1)
        assert new_pid != pid
        assert await searches.choose(view, 1, BUDGET, bots.Level.GREEDY) in view.legal_actions
    finally:
        await searches.close()
    assert not _alive(new_pid)


async def test_a_pool_whose_workers_never_start_gives_way_to_threads() -> None:
    """Workers that die before their first job (here: at once, in the initializer) leave the
    searches in threads for good, instead of starting processes at every bot turn."""
    searches = ProcessSearches(2)
    searches._initializer = (os._exit, (3,))
    view = _views(1)[0]
    try:
        for _ in range(600):
            assert await searches.choose(view, 1, BUDGET, bots.Level.GREEDY) in view.legal_actions
            if searches.in_threads:
                break
            await asyncio.sleep(0.05)
        assert searches.in_threads and not searches.ready()
        assert await searches.choose(view, 2, BUDGET, bots.Level.GREEDY) in view.legal_actions
        assert searches.worker_pids() == [] and not searches.ready()  # no new pool
    finally:
        await searches.close()


async def test_a_closed_pool_chooses_in_threads() -> None:
    """After close (the server stopping) a late bot turn still gets its action, in a thread."""
    searches = ProcessSearches(1)
    assert not searches.in_threads
    await searches.close()
    assert searches.in_threads
    view = _views(1)[0]
    assert await searches.choose(view, 3, BUDGET, bots.Level.RANDOM) in view.legal_actions
    assert searches.worker_pids() == []


class _Recording:
    """Bot searches that record what they were given and fail or play the first action."""

    def __init__(self, fail: bool = False) -> None:
        self.calls: list[tuple[rules.SeatView, int, bots.Level]] = []
        self.fail = fail
        self.closed = False

    async def choose(
        self, view: rules.SeatView, seed: int, budget: bots.Budget, level: bots.Level
    ) -> rules.Action:
        self.calls.append((view, seed, level))
        if self.fail:
            raise BrokenProcessPool("a worker died")
        return view.legal_actions[0]

    async def close(self) -> None:
        self.closed = True


async def test_a_search_gets_the_bot_seat_s_view_only() -> None:
    """What the core hands to the searches (what crosses to a worker) is the bot seat's own
    view of the stored state, a seed, the budget and the level: no other hand, no stock."""
    store, searches = MemoryStore(), _Recording()
    core = GameCore(
        store, TokenAuthority(b"k" * 32), CoreSettings(), random.Random(1), bot_searches=searches
    )
    seats = [SeatSpec("bot", bot="ismcts"), SeatSpec("ann")]
    created = await core.create_game(CreateGameCommand("scopa", {}, seats))
    ((view, seed, level),) = searches.calls
    assert level is bots.Level.ISMCTS and isinstance(seed, int)
    stored = await store.load(created.game_id)
    assert created.snapshot.version == 2
    first = rules.load_state(stored.state)  # the state after the bot's move: its hand is known
    assert view.seat == 0 and view.hand_sizes[1] == len(first.hands[1])
    assert type(view) is rules.SeatView and not hasattr(view, "stock")
    assert all(card not in view.hand for card in first.hands[1])
    await core.close()
    assert searches.closed


async def test_a_failed_search_plays_a_random_legal_action() -> None:
    """A search that fails (a worker process died) neither fails the person's request nor
    stalls the game: the bot plays a random legal action."""
    searches = _Recording(fail=True)
    core = GameCore(
        MemoryStore(),
        TokenAuthority(b"k" * 32),
        CoreSettings(),
        random.Random(1),
        bot_searches=searches,
    )
    seats = [SeatSpec("bot", bot="ismcts"), SeatSpec("ann")]
    created = await core.create_game(CreateGameCommand("scopa", {}, seats))
    assert len(searches.calls) == 1
    assert (created.snapshot.version, created.snapshot.view.turn) == (2, 1)
