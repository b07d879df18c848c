"""The sweeper: every replica's background task that takes overdue actions nobody asked for.

A turn whose clock ran out, or a bot turn left unplayed by a replica that died, is taken by the
first replica that reads or writes the game; the sweeper covers games nobody touches (every
person disconnected). It also drops the lobby entries of expired public games, so the lobby
stays bounded with nobody listing it. Each replica scans every deadline shard of the store once
per interval and calls :meth:`GameCore.sweep_game` for each due entry: the commit is a
compare-and-set, so when several replicas find the same entry exactly one acts. No scheduler
service, no leader.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager

import structlog
from opentelemetry import context

from scopa._tasks import cancel_until_done
from scopa.archive import ArchiveError
from scopa.rules import FormatTooNew
from scopa.storage import StorageError

from ._core import GameCore

__all__ = ["Sweeper"]

_log = structlog.get_logger("scopa.app.sweeper")


@contextmanager
def _untraced() -> Iterator[None]:
    """OpenTelemetry's suppress-instrumentation flag for the block: no store span."""
    token = context.attach(context.set_value(context._SUPPRESS_INSTRUMENTATION_KEY, True))
    try:
        yield
    finally:
        context.detach(token)


class Sweeper:
    """Scans the deadline index every ``interval_s`` and takes what is due."""

    def __init__(
        self,
        core: GameCore,
        interval_s: float = 1.0,
        batch: int = 32,
        retention_interval_s: float = 60.0,
    ) -> None:
        self._core = core
        self._interval_s = interval_s
        self._batch = batch
        self._retention_interval_s = retention_interval_s
        self._purged_at = -retention_interval_s
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Run :meth:`run` in a task of its own until :meth:`stop`."""
        if self._task is None:
            self._task = asyncio.create_task(self.run())

    async def stop(self) -> None:
        """End the task :meth:`start` began, for good: a pass awaiting a timed store call can
        swallow one cancellation and sweep on (a stopped replica taking turns, and a shutdown
        that never ends), so it is cancelled until it has ended."""
        if self._task is not None:
            await cancel_until_done(self._task)

    async def sweep(self) -> int:
        """One pass: sync the clock with the store, take every due action, then drop the lobby
        entries of expired games (in bounded batches); returns how many actions."""
        # The scans run every interval on every replica: untraced (no span per shard), like the
        # readiness poll; taking a due action is traced as usual.
        with _untraced():
            await self._core.sync_clock()
            due = await self._core.due_games(self._batch)
        acted = 0
        for game_id, deadline_ms in due:
            try:
                if await self._core.sweep_game(game_id, deadline_ms):
                    acted += 1
                    _log.info("overdue_taken", game_id=game_id)
            except StorageError:
                raise
            except FormatTooNew as exc:
                # A newer replica wrote the game (a rolling update): its sweeper takes it.
                _log.warning("sweep_skipped_newer_format", game_id=game_id, **exc.metadata)
            except Exception:
                # One broken game must not stop the sweep of the others (logged without locals).
                _log.exception("sweep_failed", game_id=game_id)
        with _untraced():  # after the turns: a failing purge never holds a turn up
            dropped = await self._core.purge_lobby()
        if dropped:
            _log.info("lobby_purged", entries=dropped)
        await self._retention()
        return acted

    async def _retention(self) -> None:
        """The archive's retention job, once per ``retention_interval_s``: one batch of records
        past the retention is deleted (every replica runs it; a delete is idempotent)."""
        now = time.monotonic()
        if now - self._purged_at < self._retention_interval_s:
            return
        self._purged_at = now
        try:
            deleted = await self._core.purge_archive()
        except ArchiveError as exc:
            _log.warning("archive_purge_failed", error=type(exc).__name__)
            return
        if deleted:
            _log.info("archive_purged", records=deleted)

    async def run(self) -> None:
        """Sweep until cancelled; a store outage is logged and the next pass tries again."""
        while True:
            try:
                await self.sweep()
            except StorageError as exc:
                _log.warning("sweep_storage_unavailable", error=type(exc).__name__)
            except Exception:
                _log.exception("sweep_crashed")
            await asyncio.sleep(self._interval_s)
