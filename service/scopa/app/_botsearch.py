"""Where a bot's search runs: in a thread of the server's process, or in worker processes.

An ``ismcts`` search uses its whole budget of CPU; run in a thread, it holds the interpreter's
lock against the event loop serving the players (docs/performance.md, "Bots flooding one
replica"). :class:`ProcessSearches` runs the searches in a pool of worker processes instead
(started with ``spawn``: a worker inherits none of the server's memory), so the loop keeps its
core. What crosses to a worker is what the bot gets in a thread too: the seat's view
(``rules.observe``: its own hand and what every seat has seen, never another hand nor the
stock), a seed, the budget and the level.

:class:`ProcessSearches` starts its pool at its first search and chooses in a thread until every
worker is up (a worker's start, an interpreter and the engine's import, would otherwise delay
that turn). A worker that dies breaks the pool: the searches in flight raise (the caller plays a
random legal action instead, :meth:`scopa.app._turns.Turns`), and the next search starts a new
pool. A pool none of whose workers ever started (e.g. an interpreter that cannot spawn this
one) is not tried again: the searches stay in threads (logged as ``bot_pool_unavailable``).
:meth:`close` stops the workers (the server's shutdown); a worker whose server was killed exits
by itself (:func:`scopa.bots._worker.start_worker`).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final, Protocol

import structlog

from scopa import bots, rules
from scopa.bots._worker import choose_seeded, start_worker, worker_pid

__all__ = ["BotSearches", "ProcessSearches", "ThreadSearches"]

_log = structlog.get_logger("scopa.app")

_STOP_WAIT_S: Final = 5.0
"""How long :meth:`ProcessSearches.close` waits for a worker to end before killing it."""


class BotSearches(Protocol):
    """Runs a bot's choice of action for one seat."""

    async def choose(
        self, view: rules.SeatView, seed: int, budget: bots.Budget, level: bots.Level
    ) -> rules.Action:
        """The action ``level`` picks for ``view``'s seat, with a generator seeded by ``seed``."""
        ...

    async def close(self) -> None:
        """Stop whatever runs the searches (the server stops)."""
        ...


class ThreadSearches:
    """Each search in a thread of this process (``bots.choose``, looked up at each call)."""

    async def choose(
        self, view: rules.SeatView, seed: int, budget: bots.Budget, level: bots.Level
    ) -> rules.Action:
        return await asyncio.to_thread(bots.choose, view, random.Random(seed), budget, level)

    async def close(self) -> None:
        return None


class ProcessSearches:
    """Each search in one of ``processes`` worker processes (see the module docstring)."""

    def __init__(self, processes: int) -> None:
        self._processes = processes
        self._pool: ProcessPoolExecutor | None = None
        self._started: list[Future[int]] = []
        self._closed = False
        self._threads = ThreadSearches()
        self._initializer: tuple[Callable[..., Any], tuple[Any, ...]] = (
            start_worker,
            (os.getpid(),),
        )

    def worker_pids(self) -> list[int]:
        """The process ids of the current pool's workers."""
        return sorted(getattr(self._pool, "_processes", None) or ())

    @property
    def in_threads(self) -> bool:
        """Whether the searches run in threads for good (closed, or no worker ever started)."""
        return self._closed

    def ready(self) -> bool:
        """Whether the current pool takes searches (its first workers are up)."""
        return self._pool is not None and all(f.done() for f in self._started)

    def _start(self) -> ProcessPoolExecutor:
        context = multiprocessing.get_context("spawn")
        initializer, initargs = self._initializer
        pool = ProcessPoolExecutor(
            self._processes, context, initializer=initializer, initargs=initargs
        )
        # With spawn, each job submitted while no worker is idle starts one more worker; the
        # pool takes searches once these have run (in the first worker up, or in several).
        self._started = [pool.submit(worker_pid) for _ in range(self._processes)]
        self._pool = pool
        return pool

    async def choose(
        self, view: rules.SeatView, seed: int, budget: bots.Budget, level: bots.Level
    ) -> rules.Action:
        if self._closed:
            return await self._threads.choose(view, seed, budget, level)
        pool = self._pool or self._start()
        if not self.ready():
            return await self._threads.choose(view, seed, budget, level)
        if all(f.cancelled() or f.exception() is not None for f in self._started):
            _log.error("bot_pool_unavailable", processes=self._processes)
            self._closed, self._pool = True, None  # no worker ever started: threads for good
            self._stop(pool)
            return await self._threads.choose(view, seed, budget, level)
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(pool, choose_seeded, view, seed, budget, level)
        except BrokenProcessPool:
            if self._pool is pool:  # the first search to see it replaces the pool
                _log.warning("bot_pool_broken", processes=self._processes)
                self._pool = None
                self._stop(pool)
            raise

    def _stop(self, pool: ProcessPoolExecutor) -> list[multiprocessing.process.BaseProcess]:
        """Shut ``pool`` down without waiting; its worker processes (to join)."""
        workers = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        return workers

    async def close(self) -> None:
        """Stop the workers: searches not begun are cancelled, running ones end within their
        budget; a worker still alive after :data:`_STOP_WAIT_S` is killed."""
        self._closed = True
        pool, self._pool = self._pool, None
        if pool is None:
            return
        workers = self._stop(pool)
        await asyncio.to_thread(_join, workers, _STOP_WAIT_S)


def _join(workers: list[multiprocessing.process.BaseProcess], timeout_s: float) -> None:
    for worker in workers:
        worker.join(timeout_s)
        if worker.is_alive():
            worker.kill()
            worker.join()
