"""ListGames: public games waiting for players (or being played, on the lobby's second board),
newest first, each from its lobby summary."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Final

from scopa import rules
from scopa.storage import GameNotFound, PublicGame

from ._commands import GameStatus, LobbyGame
from ._decoded import BoundedMap
from ._games import DECODED_CACHE_SIZE, Games
from ._paging import page_size, page_token, read_page_token
from ._presence import Presences
from ._summary import dump_summary, load_summary

__all__ = ["PURGE_BATCH", "PURGE_BATCHES", "Lobby"]

PURGE_BATCH = 500
"""Expired lobby entries one store call drops at most (one short script on the lobby's node)."""
PURGE_BATCHES = 20
"""Store calls one sweep makes at most to drop expired lobby entries (so a pass is bounded; the
next pass, or another replica's, drops the rest)."""


_ACTIVE: Final = "active:"
"""What an active listing's page token names before its preset filter."""


class Lobby:
    """The lobby of public games (AIP-158 pages), each game listed from its summary."""

    def __init__(self, games: Games, presences: Presences) -> None:
        self._games = games
        self._presences = presences
        # A summary is written once per version, and the same first pages are listed again
        # and again (every open lobby refreshes): each is decoded once (~10 us a game).
        self._read: BoundedMap[PublicGame, LobbyGame] = BoundedMap(DECODED_CACHE_SIZE)

    async def list_games(
        self, preset: str, size: int, token: str, active: bool = False
    ) -> tuple[list[LobbyGame], str]:
        """One page of public games waiting for players, and the token of the next ("" on the
        last page): one store call, each game from the summary kept in its lobby entry. An
        entry without a readable summary (listed by an earlier release) is read from its game,
        and leaves the lobby here if that game is gone or no longer waiting.

        ``active``: the games being played instead (public, with public spectators), each with
        its spectator count (one presence read per game, at once)."""
        if active:
            return await self._active(preset, size, token)
        rows_wanted = page_size(preset, size)
        cursor = read_page_token(token, preset)
        now_ms = self._games.clock.now_ms()
        rows = await self._games.store.public_games(preset, now_ms, rows_wanted + 1, cursor)
        more = len(rows) > rows_wanted
        rows = rows[:rows_wanted]
        listed = [self._summary(row) for row in rows]
        if None in listed:
            unread = [i for i, game in enumerate(listed) if game is None]
            loaded = await asyncio.gather(*(self._listed(rows[i].game_id) for i in unread))
            for i, game in zip(unread, loaded, strict=True):
                listed[i] = game
        next_token = page_token(preset, rows[-1][1], rows[-1][0]) if more and rows else ""
        return [game for game in listed if game is not None], next_token

    async def _active(self, preset: str, size: int, token: str) -> tuple[list[LobbyGame], str]:
        """A page of the second board: public games being played, with spectator counts."""
        rows_wanted = page_size(preset, size)
        board = _ACTIVE + preset  # a page token of one board is refused by the other
        cursor = read_page_token(token, board)
        now_ms = self._games.clock.now_ms()
        store = self._games.store
        rows = await store.public_games(preset, now_ms, rows_wanted + 1, cursor, live=True)
        more = len(rows) > rows_wanted
        rows = rows[:rows_wanted]
        listed = [game for game in map(self._summary, rows) if game is not None]
        seen = await asyncio.gather(*(self._presences.read(g.game_id) for g in listed))
        games = [
            replace(g, status=GameStatus.ACTIVE, spectator_count=p.spectators)
            for g, p in zip(listed, seen, strict=True)
        ]
        next_token = page_token(board, rows[-1][1], rows[-1][0]) if more and rows else ""
        return games, next_token

    def _summary(self, row: PublicGame) -> LobbyGame | None:
        """The lobby game of an entry's summary (None: none, or unreadable), decoded once."""
        game = self._read.get(row)
        if game is None:
            game = load_summary(*row)
            if game is not None:
                self._read.put(row, game)
        return game

    async def purge(self) -> int:
        """Drop the lobby entries of expired games, in bounded batches; returns how many.

        The sweepers call it every pass, so an abandoned public game leaves the lobby about
        one sweep interval after it expired, whether or not anyone lists the lobby.
        """
        now_ms = self._games.clock.now_ms()
        dropped = 0
        for live in (False, True):
            for _ in range(PURGE_BATCHES):
                batch = await self._games.store.purge_public(now_ms, PURGE_BATCH, live=live)
                dropped += batch
                if batch < PURGE_BATCH:
                    break
        return dropped

    async def _listed(self, game_id: str) -> LobbyGame | None:
        """A lobby entry without a summary, from its game; None (and off the lobby) when no
        longer open or unplayable; None, left listed, when a newer release wrote it."""
        games = self._games
        try:
            snap = await games.store.load(game_id)
        except GameNotFound:
            await games.store.unlist_public(game_id)
            return None
        try:
            state = games.states.load(snap.state)
        except rules.FormatTooNew:  # a newer replica's game: listed by the newer replicas
            return None
        except rules.GameUnplayable:  # nobody can join it: off the lobby
            await games.store.unlist_public(game_id)
            return None
        meta = games.metas.load(snap.meta)
        if state.finished or not meta.waiting:
            await games.store.unlist_public(game_id)
            return None
        summary = dump_summary(snap.version, state.ruleset.preset, meta, games.timeout_bot(meta))
        return load_summary(game_id, meta.created_ms, summary)
