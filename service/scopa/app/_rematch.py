"""RematchGame: a finished game's rematch, created and linked to it once.

The rematch has the finished game's preset, options and seats; its first dealer is the seat
after the finished game's first dealer (the ``first_dealer`` option: rulesets are data, the
rules know nothing of rematches). Every seat keeps its credential: owners (signed-in players)
and bots are copied, and the seat tokens of the first game of the chain act for the same seats
of the rematch (``GameMeta.tokens_of``, :meth:`._games.Games.token_seat`), so nobody joins
again.

One rematch per game, by construction: its id is derived from the finished game's
(:meth:`._tokens.TokenAuthority.derive_rematch_id`), so replicas racing to create it store one
game (the store's create is atomic); and the link is a compare-and-set commit of the finished
game's next version (its meta's ``rematch``), so the loser of a race reads the link and answers
with it. The link is a version like any other: the finished game's watchers (WatchGame with
``follow_rematch``, sessions) are told of it, and every seat learns of the rematch.

A finished game stays in the store for ``finished_ttl_s``; after that only its archived record
is left (:mod:`._archiving`), which holds no seats' credentials: its rematch is GAME_NOT_FOUND.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

import structlog

from scopa import rules
from scopa.storage import GameExists, GameNotFound, Snapshot, VersionConflict

from . import _due, _webhooks
from ._archiving import GameNotFinished
from ._commands import RematchResult
from ._errors import (
    ConcurrentUpdate,
    GameNotFoundError,
    PermissionDenied,
    Unauthenticated,
)
from ._eventlog import encode_log
from ._games import Caller
from ._meta import GameMeta
from ._rematch_setup import rematch_meta, rematch_ruleset
from ._usecase import UseCase

__all__ = ["Rematches"]

_log = structlog.get_logger("scopa.app")

_LINK_TRIES: Final = 5
"""Commits of the link tried before CONCURRENT_UPDATE (each lost one re-reads the game)."""


class Rematches(UseCase):
    """Creates a finished game's rematch and links it to the finished game."""

    async def rematch(self, game_id: str, bearer: str | None) -> RematchResult:
        """The rematch of the finished game (created and linked by the first ask), as the
        caller's seat sees it."""
        games = self._games
        if bearer is None:
            raise Unauthenticated("a rematch needs a seat token (or a seat's identity token)")
        caller = await games.caller(bearer)
        for _ in range(_LINK_TRIES):
            snap = await games.load(game_id)
            state = games.state(game_id, snap)
            meta = games.metas.load(snap.meta)
            seat = games.seat_of(caller, game_id, state, meta)
            if seat is None:
                raise PermissionDenied("only a seat of the game can ask for its rematch")
            if not state.finished:
                raise GameNotFinished(
                    f"games/{game_id} is still being played; ask for its rematch once it is over"
                )
            if meta.rematch:
                return await self._shown(meta.rematch, caller)
            with self._tracer.start_as_current_span("scopa.rematch_game") as span:
                span.set_attribute("scopa.game_id", game_id)
                new_id, stored = await self._create(game_id, state, meta)
                span.set_attribute("scopa.rematch_game_id", new_id)
                linked = await self._link(game_id, snap, state, meta, new_id, seat)
            if stored is not None:  # this call stored it: its first due turn (a bot's) is ours
                await self._turns.advance(new_id, *stored)
            if linked:
                return await self._shown(new_id, caller)
        raise ConcurrentUpdate("the game kept changing while its rematch was linked; retry")

    async def _create(
        self, game_id: str, state: rules.MatchState, meta: GameMeta
    ) -> tuple[str, tuple[int, rules.MatchState, GameMeta] | None]:
        """Store the rematch unless a racing ask did: its id, and its first version, state and
        meta when this call stored it (None: found it stored)."""
        games = self._games
        new_id = games.tokens.derive_rematch_id(game_id)
        ruleset = rematch_ruleset(state.ruleset)
        now_ms = games.clock.now_ms()
        meta = rematch_meta(game_id, meta, now_ms)
        new_state, events = rules.new_match(ruleset, rng=self._rng)
        meta = replace(meta, last_events=encode_log(events))
        meta = replace(meta, deadline_ms=_due.deadline(new_state, meta, now_ms, games.settings))
        state_blob, meta_blob = rules.dump_state(new_state), meta.dump()
        if meta.deadline_ms:
            await games.store.lower_deadline(new_id, meta.deadline_ms)
        found = _webhooks.notices(new_id, 1, -1, GameMeta(()), new_state, meta, [])
        outbox = await self._commits.outbox(new_id, meta, found)
        try:
            result = await games.store.create(
                new_id,
                state_blob,
                meta_blob,
                [meta.last_events],
                _due.ttl(new_state, meta, games.settings),
                outbox=outbox,
            )
        except GameExists:
            return new_id, None
        games.states.remember(state_blob, new_state)
        games.metas.remember(meta_blob, meta)
        games.note(new_id, Snapshot(state_blob, meta_blob, result.version))
        games.hooks.created(ruleset.preset)
        games.hooks.active(new_id, False)
        _log.info("game_created", game_id=new_id, preset=ruleset.preset, players=len(meta.seats))
        await self._commits.indexed(new_id, result.version, GameMeta(()), new_state, meta)
        return new_id, (result.version, new_state, meta)

    async def _link(
        self,
        game_id: str,
        snap: Snapshot,
        state: rules.MatchState,
        meta: GameMeta,
        rematch_id: str,
        seat: int,
    ) -> bool:
        """Commit the finished game's next version naming its rematch (compare-and-set on
        ``snap``'s version); False when another commit came first (read the game again).

        The state stays as it is; the version's log entry is empty. Nothing else a commit of a
        move does applies: the game was finished, archived (or marked for it) and counted by
        the commit that finished it; the offer (``seat`` asked) goes to the game's webhook, in the
        same commit."""
        games = self._games
        linked = replace(meta, rematch=rematch_id, last_events=encode_log([]))
        meta_blob = linked.dump()
        offer = _webhooks.rematch_offered(game_id, snap.version + 1, seat, rematch_id)
        outbox = await self._commits.outbox(game_id, linked, [offer])
        try:
            version = await games.store.commit(
                game_id,
                snap.version,
                snap.state,
                meta_blob,
                [linked.last_events],
                _due.ttl(state, linked, games.settings),
                outbox=outbox,
            )
        except VersionConflict as conflict:
            if conflict.stored is not None:
                games.note(game_id, conflict.stored)
            return False
        except GameNotFound:
            games.known.discard(game_id)
            raise GameNotFoundError(f"no game games/{game_id}") from None
        games.metas.remember(meta_blob, linked)
        games.known.put(game_id, Snapshot(snap.state, meta_blob, version))
        games.hooks.active(game_id, True)
        _log.info("rematch_linked", game_id=game_id, rematch_game_id=rematch_id)
        try:
            games.hooks.rematch(game_id, rematch_id)
        except Exception:  # a hook's failure is not the caller's: the rematch stands
            _log.exception("rematch_hook_failed", game_id=game_id)
        return True

    async def _shown(self, game_id: str, caller: Caller) -> RematchResult:
        """The rematch as the caller's seat sees it."""
        games = self._games
        snap = await games.load(game_id)
        state = games.state(game_id, snap)
        meta = games.metas.load(snap.meta)
        seat = games.seat_of(caller, game_id, state, meta)
        return RematchResult(game_id, games.snapshot(game_id, snap.version, state, meta, seat))
