"""ListMyGames: the games where the signed-in caller holds a seat, from the owner index.

Each commit of a game with signed-in seats brings each owner's index entry up to it
(:meth:`MyGames.index`, best effort, beside the commit: the index has its own hash tag), with
the game's expiry and a summary of what a list shows: the lobby's fields plus the owner's seat,
whose turn it is and the status. A page is one store call per page and reads no game; an entry
whose game expired is dropped by that call, one without a readable summary is read from its
game (and dropped if the game is gone). Finished games are listed from the archive when there
is one (they outlive the store's finished TTL there), from the index otherwise.

The summary is :mod:`._owned`'s.
"""

from __future__ import annotations

import asyncio
from typing import Final

import structlog

from scopa import rules
from scopa.storage import GameNotFound, PublicGame, StorageError

from . import _due, _views
from ._archiving import Archiving
from ._commands import GameStatus, LobbyGame
from ._errors import IdentityRequired
from ._games import Games
from ._meta import GameMeta
from ._owned import dump_owned, load_owned
from ._paging import page_size, page_token, read_page_token

__all__ = ["MyGames"]

_log = structlog.get_logger("scopa.app")

_METHOD: Final = "ListMyGames"


class MyGames:
    """The owner index of signed-in players: kept up by commits, listed by ListMyGames."""

    def __init__(self, games: Games, archiving: Archiving) -> None:
        self._games = games
        self._archiving = archiving

    async def index(
        self, game_id: str, version: int, state: rules.MatchState, meta: GameMeta
    ) -> None:
        """Bring each signed-in owner's entry of the game up to ``version`` (nothing for a
        game without one). Best effort: a failed write leaves the entry of an earlier version
        (or none) until the next commit; the entry's expiry is the game's."""
        owners = {s.owner for s in meta.seats if s.owner}
        if not owners:
            return
        games = self._games
        expires = games.clock.now_ms() + round(_due.ttl(state, meta, games.settings) * 1000)
        status = _views.status(state, meta).value
        bot = games.timeout_bot(meta)
        writes = []
        for owner in sorted(owners):
            seat = meta.owned_seat(owner, state.turn)
            assert seat is not None
            summary = dump_owned(version, state, meta, seat, bot)
            writes.append(
                games.store.index_owned(owner, game_id, status, meta.created_ms, expires, summary)
            )
        outcomes = await asyncio.gather(*writes, return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, StorageError):
                _log.warning("owner_index_update_failed", game_id=game_id, version=version)
            elif isinstance(outcome, BaseException):
                raise outcome

    async def list_games(
        self, bearer: str | None, status: GameStatus | None, size: int, token: str
    ) -> tuple[list[LobbyGame], str]:
        """One page of the signed-in caller's games (of ``status``; None: every status),
        newest first, and the next page's token ("" on the last page). IDENTITY_REQUIRED
        without an identity token."""
        rows_wanted = page_size("", size)
        games = self._games
        caller = await games.caller(bearer)
        if not caller.owner:
            raise IdentityRequired(
                "ListMyGames lists a signed-in player's games: send an identity token"
            )
        filtered = "" if status is None else status.value
        cursor = read_page_token(token, filtered, method=_METHOD, filter_name="status")
        if status is GameStatus.FINISHED and self._archiving.enabled:
            archived = await self._archiving.owned(caller.owner, rows_wanted + 1, cursor)
            more = len(archived) > rows_wanted
            archived = archived[:rows_wanted]
            end = archived[-1] if more and archived else None
            next_token = page_token(filtered, end[1], end[0].game_id, method=_METHOD) if end else ""
            return [game for game, _ in archived], next_token
        now_ms = games.clock.now_ms()
        rows = await games.store.owned_games(
            caller.owner, filtered, now_ms, rows_wanted + 1, cursor
        )
        more = len(rows) > rows_wanted
        rows = rows[:rows_wanted]
        listed = [load_owned(row) for row in rows]
        unread = [i for i, game in enumerate(listed) if game is None]
        if unread:
            loaded = await asyncio.gather(
                *(self._read(caller.owner, rows[i].game_id) for i in unread)
            )
            for i, game in zip(unread, loaded, strict=True):
                listed[i] = game
        last = rows[-1] if rows else None
        next_token = (
            page_token(filtered, last.created_ms, last.game_id, method=_METHOD)
            if more and last
            else ""
        )
        return [g for g in listed if g is not None and status in (None, g.status)], next_token

    async def _read(self, owner: str, game_id: str) -> LobbyGame | None:
        """An entry without a readable summary, from its game; None (and dropped from the
        index) when the game is gone or the owner holds no seat of it."""
        games = self._games
        try:
            snap = await games.store.load(game_id)
        except GameNotFound:
            await games.store.unindex_owned(owner, game_id)
            return None
        try:
            state = games.states.load(snap.state)
        except (rules.FormatTooNew, rules.GameUnplayable):
            return None
        meta = games.metas.load(snap.meta)
        seat = meta.owned_seat(owner, state.turn)
        if seat is None:
            await games.store.unindex_owned(owner, game_id)
            return None
        summary = dump_owned(snap.version, state, meta, seat, games.timeout_bot(meta))
        return load_owned(PublicGame(game_id, meta.created_ms, summary))
