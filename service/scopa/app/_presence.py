"""Presence: which seats have a stream open (WatchGame, SSE, a session) on any replica, and
how many spectators do; and the presence messages of the watch streams.

Each open stream holds one entry in the store (:meth:`scopa.storage.GameStore.touch_presence`)
that it refreshes every third of ``presence_ttl_s`` and drops when it closes; an entry of a
replica that died lapses after ``presence_ttl_s``. A change (a seat's first stream opened, its
last one closed or lapsed, a spectator came or went) is announced on the game's channel as
:data:`scopa.storage.PRESENCE`, never as a version: presence does not write the game, so its
version and etag (the moves' compare-and-set) are untouched. A lapsed entry is noticed by the
next refresh or close of any stream of the game: a seat whose replica died shows disconnected
to reads within ``presence_ttl_s``, and its "left" message reaches the game's other streams
within ``presence_ttl_s`` plus a third of it.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import structlog

from scopa.storage import Presence, Snapshot, StorageError

from ._commands import GameSnapshot
from ._decoded import BoundedMap
from ._errors import WatchIdle
from ._games import DECODED_CACHE_SIZE, Games
from ._presence_changes import same_presence
from ._watch import SharedReads

__all__ = ["Attendance", "Presences"]

_log = structlog.get_logger("scopa.app")

_RETRY_S = 1.0
"""A refresh the store refused is tried again this much later (at the latest)."""


class Attendance:
    """One open stream's presence entry: refreshed by :meth:`beat` when :attr:`beat_at`
    (on the loop's clock) has come."""

    def __init__(self, presences: Presences, game_id: str, seat: int | None) -> None:
        self._presences = presences
        self.game_id = game_id
        self.seat = seat
        self.connection = uuid.uuid4().hex
        self.beat_at = 0.0

    async def beat(self) -> None:
        """Refresh the entry (dropping the game's lapsed ones; a change is announced). A
        store error is logged and the refresh tried again soon: the stream goes on."""
        presences = self._presences
        settings = presences.games.settings
        interval = settings.presence_ttl_s / 3
        try:
            async with presences.writing():
                await presences.games.store.touch_presence(
                    self.game_id,
                    self.seat,
                    self.connection,
                    settings.presence_ttl_s,
                    settings.active_ttl_s,
                )
        except StorageError as exc:
            _log.warning("presence_refresh_failed", error=type(exc).__name__)
            interval = min(interval, _RETRY_S)
        self.beat_at = now_s() + interval

    async def __aenter__(self) -> Attendance:
        try:
            await self.beat()
        except BaseException:
            # Cancelled (a drain) while the entry's first touch was on its way: the store may
            # have applied it, and no __aexit__ follows. Dropped as a closing stream's entry
            # is; the replica's close waits for it (Presences.close).
            self._presences.dropping(self)
            raise
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, *_: object) -> None:
        # A plain object, not an async generator: a stream closed by the garbage collector
        # runs this inside its own aclose (an inner generator would be "already running").
        if exc_type is not None and issubclass(exc_type, WatchIdle):
            return  # the client watches again at once: no "left" and "joined"; else it lapses
        try:
            # Goes on if the task is cancelled (a drain cancels its streams again and again
            # until they end); the replica's close waits for it (Presences.close).
            await asyncio.shield(self._presences.dropping(self))
        except asyncio.CancelledError:
            if exc_type is None:
                raise  # a cancellation during a normal exit is the task's, not ours to drop


class Presences:
    """Presence entries of this replica's streams, and shared reads of a game's presence."""

    def __init__(self, games: Games) -> None:
        self.games = games
        self._reads: SharedReads[Presence] = SharedReads(games.settings.watch_read_concurrency)
        self._writes = asyncio.Semaphore(games.settings.watch_read_concurrency)
        self._kept: BoundedMap[int, tuple[GameSnapshot, GameSnapshot]] = BoundedMap(
            DECODED_CACHE_SIZE
        )
        self._drops: set[asyncio.Task[None]] = set()

    async def read(self, game_id: str, since: float | None = None) -> Presence:
        """The game's presence, read after ``since`` (on the loop's clock; None: now): one
        read shared by the streams that ask for the same notice."""
        at = now_s() if since is None else since
        return await self._reads.read(game_id, at, lambda: self._read(game_id))

    async def _read(self, game_id: str) -> Presence:
        async with self._writes:
            return await self.games.store.presence(game_id)

    @asynccontextmanager
    async def writing(self) -> AsyncIterator[None]:
        """A slot for a presence store call: at most ``watch_read_concurrency`` at once (reads
        and writes together), so a thousand streams opening together take a handful of pooled
        connections."""
        async with self._writes:
            yield

    async def load(self, game_id: str) -> tuple[Snapshot, Presence]:
        """The stored game and its presence, read together (GetState's one round trip), in a
        slot of :meth:`writing`. Read on its own, not shared: a read shared with another
        caller must start after this call did, which a call of its own always does."""
        async with self._writes:
            return await self.games.load_with_presence(game_id)

    def shown(self, snapshot: GameSnapshot, presence: Presence) -> GameSnapshot:
        """``snapshot`` with the game's ``presence``: the same object as last time for the
        same snapshot while its presence is unchanged (transports reuse what they built from
        it, see ``Actions.get_state``)."""
        kept = self._kept.get(id(snapshot))
        if kept is not None and kept[0] is snapshot and same_presence(kept[1].presence, presence):
            return kept[1]
        shown = snapshot.with_presence(presence)
        self._kept.put(id(snapshot), (snapshot, shown))
        return shown

    def attend(self, game_id: str, seat: int | None) -> Attendance:
        """A presence entry for ``seat`` (None: a spectator), held while the ``async with``
        block runs; its drop is best effort (a store error leaves the entry to lapse)."""
        return Attendance(self, game_id, seat)

    def dropping(self, here: Attendance) -> asyncio.Task[None]:
        """:meth:`drop` as a task of its own, which :meth:`close` waits for."""
        task = asyncio.create_task(self.drop(here))
        self._drops.add(task)
        task.add_done_callback(self._drops.discard)
        return task

    async def close(self, timeout_s: float) -> None:
        """Wait up to ``timeout_s`` for the drops of closed streams still on their way (a
        draining replica's streams end just before it closes its store)."""
        if self._drops:
            await asyncio.wait(set(self._drops), timeout=timeout_s)

    async def drop(self, here: Attendance) -> None:
        """Drop a closed stream's entry (a store error is logged: the entry lapses)."""
        try:
            async with self.writing():
                await self.games.store.drop_presence(
                    here.game_id, here.seat, here.connection, self.games.settings.active_ttl_s
                )
        except StorageError as exc:
            _log.warning("presence_drop_failed", error=type(exc).__name__)


now_s = time.monotonic
"""The clock of presence refreshes and watch streams: the event loop's (``loop.time()``),
without looking the loop up (in Python 3.11 a ``getpid`` system call each time)."""
