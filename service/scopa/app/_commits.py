"""Writes: one compare-and-set commit per change, its idempotency record, and the indexes
(deadlines, lobby, owners) brought up to it; a retried request gets its first response back."""

from __future__ import annotations

import secrets
from collections.abc import Sequence

import structlog

from scopa import rules
from scopa.storage import (
    DuplicateRequest,
    GameNotFound,
    OutboxItem,
    Snapshot,
    StorageError,
    VersionConflict,
    basis_digest,
)

from . import _due, _records, _views, _webhooks
from ._archiving import Archiving
from ._commands import PlayResult
from ._errors import ConcurrentUpdate, GameNotFoundError
from ._eventlog import AppEvent, encode_log
from ._games import Games
from ._meta import GameMeta
from ._mine import MyGames
from ._summary import dump_summary

__all__ = ["Commits", "NotLatest"]

_log = structlog.get_logger("scopa.app")


class NotLatest(Exception):
    """A commit on the version this replica knew found the game elsewhere; nothing written."""

    def __init__(self, stored: Snapshot | None) -> None:
        super().__init__("the known version is not the game's")
        self.stored = stored
        """The game as the commit found it; None: not known (a retried request), load it."""


class Commits:
    """Commits a game's next version for every use case that changes a game."""

    def __init__(self, games: Games, archiving: Archiving, mine: MyGames | None = None) -> None:
        self._games = games
        self._archiving = archiving
        self._mine = mine

    async def commit(
        self,
        game_id: str,
        version: int,
        state: rules.MatchState,
        meta: GameMeta,
        seat: int,
        events: Sequence[AppEvent],
        request_id: str | None,
        fingerprint: bytes,
        slot: str | None = None,
        basis: Snapshot | None = None,
        notices: Sequence[_webhooks.Notice] = (),
    ) -> tuple[PlayResult, GameMeta | None]:
        """Compare-and-set ``state`` at ``version`` + 1; the result and the meta as committed
        (None when ``request_id`` was committed already: the result is the first response, and
        ``state`` is not the game's, so nothing may be built on it).

        ``basis``: the stored game ``state`` was derived from, as this replica last knew it
        (not loaded for this request): the commit names its digest too, and raises NotLatest
        instead of a conflict or a replay (the caller decides again on the stored game).

        The meta gets the new version's deadline; the deadline index is lowered before the
        commit when the deadline comes sooner (so no process death leaves it late) and set
        exactly after it. The commit's webhook notices (and ``notices``, e.g. a rematch offer)
        go into the game's outbox in the same commit (:mod:`._webhooks`).
        """
        games = self._games
        store = games.store
        new_version = version + 1
        blob = rules.dump_state(state)
        log = encode_log(events)
        before = meta
        meta = meta.committed(log, games.deadline(state, meta))
        if meta.deadline_ms and not 0 < before.deadline_ms <= meta.deadline_ms:
            await store.lower_deadline(game_id, meta.deadline_ms)
        if state.finished:  # marked before the commit: no process death loses the record
            await self._archiving.mark(game_id)
        meta_blob = meta.dump()
        found = _webhooks.notices(game_id, new_version, seat, before, state, meta, events)
        outbox = await self.outbox(game_id, meta, [*found, *notices])
        response = None
        if request_id:
            response = _records.frame_response(fingerprint, seat, new_version, log)
        try:
            await store.commit(
                game_id,
                version,
                blob,
                meta_blob,
                [log],
                _due.ttl(state, meta, games.settings),
                request_id,
                response,
                slot,
                None if basis is None else basis_digest(basis.state, basis.meta),
                outbox,
            )
        except VersionConflict as conflict:
            if conflict.stored is not None:
                games.note(game_id, conflict.stored)
            if basis is not None:
                raise NotLatest(conflict.stored) from None
            raise ConcurrentUpdate("another move was made at the same time; reload") from None
        except DuplicateRequest as dup:
            if basis is not None:
                raise NotLatest(None) from None
            replayed = self.replayed(game_id, seat, dup.response, dup.state, before, fingerprint)
            return replayed, None
        except GameNotFound:
            games.known.discard(game_id)
            raise GameNotFoundError(f"no game games/{game_id}") from None
        games.states.remember(blob, state)
        games.metas.remember(meta_blob, meta)
        games.logs.remember(log, tuple(events))  # what decode_log(log) gives back
        committed = Snapshot(blob, meta_blob, new_version)
        games.known.put(game_id, committed)
        if state.finished:
            games.hooks.finished(state.ruleset.preset, state.finish_reason.value)
        games.hooks.active(game_id, state.finished)
        await self.indexed(game_id, new_version, before, state, meta)
        if state.finished:
            self._archiving.archive_later(game_id, committed)
        return self.result(game_id, seat, new_version, state, meta, events), meta

    async def outbox(
        self, game_id: str, meta: GameMeta, notices: Sequence[_webhooks.Notice]
    ) -> list[OutboxItem]:
        """The outbox entries of ``notices`` (none when the game has no webhook), each with an
        id of its own (``webhook-id``, stable across attempts); the outbox index is touched
        first, so a process death after the commit leaves no entry unindexed."""
        settings = self._games.settings
        url = _webhooks.target(meta, settings.webhooks, settings.per_game_webhooks)
        if url is None or not notices:
            return []
        now_ms = self._games.clock.now_ms()
        await self._games.store.touch_outbox(game_id, now_ms)
        prefix = secrets.token_hex(10)  # then the index: one commit's entries go in order
        return [
            (f"msg_{prefix}{i:02d}", _webhooks.outbox_payload(url, notice, now_ms))
            for i, notice in enumerate(notices)
        ]

    async def indexed(
        self,
        game_id: str,
        version: int,
        before: GameMeta,
        state: rules.MatchState,
        meta: GameMeta,
    ) -> None:
        """Bring the deadline index and the lobby up to a committed version (best effort).

        The commit stands whatever happens here: a failed deadline update leaves an entry that
        is never later than the game's deadline (``lower_deadline`` ran before the commit), which
        the sweeper then corrects; a lobby entry (and its summary) left behind by a failed update
        stays listed until its game's waiting expiry, when a sweeper drops it.
        """
        store = self._games.store
        try:
            archiving = state.finished and self._archiving.enabled  # the mark stays
            if (before.deadline_ms or meta.deadline_ms) and not archiving:
                await store.set_deadline(game_id, version, meta.deadline_ms or None)
            if meta.public and (before.waiting or not before.seats):
                if meta.waiting and not state.finished:
                    waiting_ms = round(self._games.settings.waiting_ttl_s * 1000)
                    expires = self._games.clock.now_ms() + waiting_ms
                    preset = state.ruleset.preset
                    bot = self._games.timeout_bot(meta)
                    summary = dump_summary(version, preset, meta, bot)
                    await store.list_public(game_id, preset, meta.created_ms, expires, summary)
                else:
                    await store.unlist_public(game_id)
            await self._live_board(game_id, version, before, state, meta)
        except StorageError:
            _log.warning("index_update_failed", game_id=game_id, version=version)
        if self._mine is not None:  # the signed-in owners' indexes (ListMyGames)
            await self._mine.index(game_id, version, state, meta)

    async def went_live(
        self, game_id: str, version: int, state: rules.MatchState, meta: GameMeta
    ) -> None:
        """After the commit of ``version`` took a public game's last open seat: list it on
        the lobby's second board (best effort, as :meth:`unlist`)."""
        try:
            await self._live_board(game_id, version, GameMeta(()), state, meta)
        except StorageError:
            _log.warning("index_update_failed", game_id=game_id, version=version)

    async def _live_board(
        self,
        game_id: str,
        version: int,
        before: GameMeta,
        state: rules.MatchState,
        meta: GameMeta,
    ) -> None:
        """List a public game with public spectators on the lobby's second board once it is
        being played (until the game's expiry), and take it off when it ends. ``before``:
        the meta before the commit (no seats: the game is new)."""
        if not meta.public or meta.spectators_invite:
            return
        store = self._games.store
        if state.finished:
            await store.unlist_public(game_id, live=True)
        elif not meta.waiting and (before.waiting or not before.seats):
            settings = self._games.settings
            expires = self._games.clock.now_ms() + round(settings.active_ttl_s * 1000)
            preset = state.ruleset.preset
            summary = dump_summary(version, preset, meta, self._games.timeout_bot(meta))
            await store.list_public(game_id, preset, meta.created_ms, expires, summary, live=True)

    async def unlist(self, game_id: str, version: int) -> None:
        """Take a game off the lobby after the commit of ``version`` took its last open seat
        (best effort: a sweeper drops the entry at the game's waiting expiry otherwise)."""
        try:
            await self._games.store.unlist_public(game_id)
        except StorageError:
            _log.warning("index_update_failed", game_id=game_id, version=version)

    def result(
        self,
        game_id: str,
        seat: int,
        version: int,
        state: rules.MatchState,
        meta: GameMeta,
        events: Sequence[AppEvent],
    ) -> PlayResult:
        """The result of a committed write, as ``seat`` sees it."""
        bot = self._games.timeout_bot(meta)
        return _views.result(game_id, seat, version, state, meta, events, bot)

    def replayed(
        self,
        game_id: str,
        seat: int,
        cached: bytes,
        cached_state: bytes | None,
        meta: GameMeta,
        fingerprint: bytes,
    ) -> PlayResult:
        """The first response to a retried request (see :func:`._records.replay`); it shows
        the replayed version's events as last_events, not the latest version's."""
        version, state, events = _records.replay(seat, cached, cached_state, fingerprint)
        return self.result(game_id, seat, version, state, meta, events)
