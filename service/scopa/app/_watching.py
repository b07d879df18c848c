"""WatchGame: a seat's (or a spectator's) stream of updates, first what it missed, then each
new version live, each with only the events that seat may see; and a presence message when a
seat connects or leaves (:mod:`._presence`: the stream holds a presence entry while it is
open; a new spectator count alone comes with the next message).

Streams are told of new versions by the store's shared subscription; reads are shared and
bounded (:mod:`._watch`). A stream also looks at its game when the awaited action falls due,
so a run-out clock or a bot turn left by a dead replica is taken (as GetState would).
"""

from __future__ import annotations

import math
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Final

from scopa.storage import PRESENCE, RESYNC, Event, GameNotFound, Snapshot, VersionQueue

from ._checks import check_game_id
from ._commands import PlayResult
from ._errors import GameNotFoundError, InvalidArgument, WatchIdle
from ._eventlog import VersionedEvent, visible
from ._games import Games
from ._presence import Presences, now_s
from ._presence_changes import presence_message
from ._turns import Turns
from ._watch import SharedReads, WatchCounter

__all__ = ["Watches"]

_DUE_MARGIN_MS: Final = 5
"""A watch stream looks at its game this long after the deadline (clock rounding)."""
_DUE_RETRY_S: Final = 0.5
"""A watch stream that found its game's due action not taken yet looks again this much later."""
_QUIET: Final = -3
"""No notice came before the stream's next wake-up."""


class Watches:
    """The watch streams of this replica."""

    def __init__(self, games: Games, turns: Turns, presences: Presences) -> None:
        self._games = games
        self._turns = turns
        self._presences = presences
        settings = games.settings
        self._watchers = WatchCounter(settings.watch_per_client)
        self._reads: SharedReads[tuple[Snapshot, list[Event]]] = SharedReads(
            settings.watch_read_concurrency
        )

    @asynccontextmanager
    async def _watching(self) -> AsyncIterator[None]:
        """Count one open watch stream (``Hooks.watch``) for as long as the block runs."""
        self._games.hooks.watch(1)
        try:
            yield
        finally:
            self._games.hooks.watch(-1)

    async def watch(
        self,
        game_id: str,
        token: str | None,
        from_version: int = 0,
        client: str = "",
        delivered: Callable[[], int] | None = None,
        follow_rematch: bool = False,
    ) -> AsyncGenerator[PlayResult, None]:
        """Updates after ``from_version``: first what was missed, then each new version live.

        ``from_version`` 0 starts from the current state with no past events; the first
        message always carries the current view. The stream ends after the game is over
        (``follow_rematch``: after the version that links its rematch, :mod:`._rematch`); it
        fails with WATCH_IDLE after ``watch_idle_s`` without a new version, with
        GAME_NOT_FOUND once the game expired, and ``client`` (its address) may hold at most
        ``watch_per_client`` streams (TOO_MANY_WATCHES).

        ``delivered``: the last version the caller already has by other means (a session's
        own action's result); a version up to it is followed without building its view.
        """
        games = self._games
        idle_s = games.settings.watch_idle_s
        check_game_id(game_id)
        caller = await games.caller(token)
        snap, _ = await self._reads.read(
            (game_id, None, RESYNC), now_s(), lambda: self._watched(game_id, None)
        )
        state = games.state(game_id, snap)
        seat = games.viewer_of(caller, game_id, state, games.metas.load(snap.meta))
        if not 0 <= from_version <= snap.version:
            raise InvalidArgument(
                f"from_version must be between 0 and the game's version {snap.version}",
                field="from_version",
            )
        own = None if delivered is None else _OwnVersions(games, game_id, delivered)
        with self._watchers.admit(client):
            async with (
                self._watching(),
                games.store.subscribe(game_id, own) as versions,
                self._presences.attend(game_id, seat) as here,
            ):
                first = await self._catch_up(
                    game_id, seat, from_version or None, RESYNC, first=True, follow=follow_rematch
                )
                assert first is not None
                update, last, done, due_at = first
                assert update is not None
                seen = await self._presences.read(game_id)
                shown = update.snapshot.with_presence(seen)
                yield update.with_snapshot(shown)
                if done:
                    return
                start = now_s()
                idle_until, probe_at = start + idle_s, start + games.settings.watch_probe_s
                while True:
                    wake_at = min(idle_until, due_at, probe_at)
                    version = await self._next_notice(versions, min(wake_at, here.beat_at))
                    if version is None:
                        return  # the store is closing
                    if now_s() >= here.beat_at:
                        await here.beat()
                    if own is not None and own.upto > last:  # as if told of them and caught up
                        last, due_at, idle_until = own.upto, math.inf, now_s() + idle_s
                    if version == _QUIET:
                        # Only the presence refresh was due, or a skipped version moved the
                        # idle limit or the deadline the stream woke for.
                        if now_s() < min(idle_until, due_at, probe_at):
                            continue
                        version = RESYNC
                    probe_at = now_s() + games.settings.watch_probe_s
                    if version in (PRESENCE, RESYNC):
                        since = versions.presence_at  # shared by the notice
                        fresh = await self._presences.read(
                            game_id, since if version == PRESENCE else None
                        )
                        message = presence_message(shown, seen, fresh)
                        seen = fresh
                        if message is not None:
                            shown = message.snapshot
                            yield message
                        if version == PRESENCE:
                            continue
                    if version != RESYNC and version <= last:
                        continue
                    caught = await self._catch_up(
                        game_id, seat, last, version, delivered, follow=follow_rematch
                    )
                    if caught is None:
                        if now_s() >= due_at:  # not taken yet (a rounding early): look again soon
                            due_at = now_s() + _DUE_RETRY_S
                        if now_s() >= idle_until:
                            raise WatchIdle(
                                f"no new version for {idle_s:g} s; "
                                f"watch again from version {last} to resume"
                            )
                        continue
                    result, last, done, due_at = caught
                    if result is not None:
                        shown = result.snapshot.with_presence(seen)
                        yield result.with_snapshot(shown)
                    if done:
                        return
                    idle_until = now_s() + idle_s

    async def _next_notice(self, notices: VersionQueue, wake_at: float) -> int | None:
        """The next notice (a version, PRESENCE or RESYNC); _QUIET when ``wake_at`` (on the
        ``now_s`` clock: a probe, the stream's idle limit, its game's deadline or its presence
        refresh) comes first; None once the store closed."""
        try:
            version = await notices.next_within(max(0.0, wake_at - now_s()))
        except StopAsyncIteration:
            return None
        return _QUIET if version is None else version

    async def _watched(
        self, game_id: str, last: int | None, notice: int = RESYNC
    ) -> tuple[Snapshot, list[Event]]:
        """The game and its logged events after ``last`` (none when None), for watch streams.

        A read that finds an action due (a run-out turn clock, a bot turn left by a dead
        replica) takes it first, as GetState does, and reads the game again.

        No round trip for the usual notice, the next version, when this replica committed it
        (``Games.known`` is that very version) or read it: a version's log entry is also its
        meta's ``last_events`` (every commit writes both), so one version's events come with
        the game.
        """
        games = self._games
        known = games.known.get(game_id)
        fresh = known is not None and notice != RESYNC and known.version == notice
        snap = known if fresh and known is not None else await games.load(game_id)
        state = games.state(game_id, snap)
        meta = games.metas.load(snap.meta)
        if games.is_due(state, meta):
            await self._turns.advance(game_id, snap.version, state, meta)
            snap = await games.load(game_id)
            meta = games.metas.load(snap.meta)
        if last is None or snap.version <= last:
            return snap, []
        if snap.version == last + 1 and meta.last_events:
            return snap, [Event(snap.version, meta.last_events)]
        try:
            return snap, await games.store.events_since(game_id, last)
        except GameNotFound:
            raise GameNotFoundError(f"no game games/{game_id}") from None

    def _next_known(
        self, game_id: str, last: int | None, notice: int
    ) -> tuple[Snapshot, list[Event]] | None:
        """What :meth:`_watched` returns for the usual notice, the version after ``last`` that
        this replica committed or read (``Games.known``) with nothing due, without a shared
        read (its task and wake-ups); None otherwise."""
        if last is None or notice != last + 1:
            return None
        games = self._games
        known = games.known.get(game_id)
        if known is None or known.version != notice:
            return None
        meta = games.metas.load(known.meta)
        if not meta.last_events or games.is_due(games.state(game_id, known), meta):
            return None
        return known, [Event(known.version, meta.last_events)]

    async def _catch_up(
        self,
        game_id: str,
        seat: int | None,
        last: int | None,
        notice: int,
        delivered: Callable[[], int] | None = None,
        first: bool = False,
        follow: bool = False,
    ) -> tuple[PlayResult | None, int, bool, float] | None:
        """The current view and the events after ``last``, the version, whether the stream is
        done (the game is over; with ``follow``, and its rematch linked) and when (on the
        ``now_s`` clock) its awaited action is due; None when nothing is new. No view (None)
        for a version up to ``delivered()``: the caller has it.

        ``last`` None means the current view with no past events. The ``first`` message always
        carries the view. The read is shared with the streams of this game told of the same
        ``notice`` (a version; RESYNC shares only reads started from now on).
        """
        games = self._games
        read = self._next_known(game_id, last, notice)
        if read is None:
            since = now_s() if notice == RESYNC else float("-inf")
            read = await self._reads.read(
                (game_id, last, notice), since, lambda: self._watched(game_id, last, notice)
            )
        snap, logged = read
        state = games.state(game_id, snap)
        meta = games.metas.load(snap.meta)
        if not first and (last is None or snap.version <= last):
            return None
        done = state.finished and (not follow or bool(meta.rematch))
        due_at = math.inf
        if meta.deadline_ms:  # store-clock ms to this process's monotonic clock
            wait_ms = max(0, meta.deadline_ms - games.clock.now_ms()) + _DUE_MARGIN_MS
            due_at = now_s() + wait_ms / 1000
        if not first and delivered is not None and snap.version <= delivered():
            return None, snap.version, done, due_at
        if last is None or snap.version <= last:
            snapshot = games.snapshot(game_id, snap.version, state, meta, seat)
            return PlayResult((), snapshot), snap.version, done, due_at
        truncated = not logged or logged[0].version > last + 1
        shown: list[VersionedEvent] = []
        latest: tuple[VersionedEvent, ...] | None = None
        for entry in logged:
            if entry.version > snap.version:
                break
            events = visible(games.logs.load(entry.payload), seat)
            seen = [VersionedEvent(entry.version, e) for e in events]
            shown.extend(seen)
            if entry.version == snap.version and entry.payload == meta.last_events:
                latest = tuple(seen)  # the view's last events: decoded once
        snapshot = games.snapshot(game_id, snap.version, state, meta, seat, latest)
        return PlayResult(tuple(shown), snapshot, truncated), snap.version, done, due_at


class _OwnVersions:
    """Which versions a stream's reader sent already and need not wake the stream (the
    store's ``subscribe(skip=...)``): a session's own action's version (up to ``delivered()``)
    that this replica holds (``Games.known``: it committed it), plain: no deadline (a turn
    clock, a bot's turn), nothing awaited from a joining seat, not over. The stream takes
    ``upto``, the latest skipped, as caught up with, as its notice would have had it; any
    other version wakes it as before.
    """

    __slots__ = ("_delivered", "_game_id", "_games", "upto")

    def __init__(self, games: Games, game_id: str, delivered: Callable[[], int]) -> None:
        self._games = games
        self._game_id = game_id
        self._delivered = delivered
        self.upto = 0

    def __call__(self, version: int) -> bool:
        if version > self._delivered():
            return False
        games = self._games
        known = games.known.get(self._game_id)
        if known is None or known.version != version:
            return False
        meta = games.metas.load(known.meta)
        if meta.deadline_ms or meta.waiting or games.states.load(known.state).finished:
            return False
        self.upto = max(self.upto, version)
        return True
