"""Finished games' records: built from the game's log, written to the archive once, read back.

Finishing a game marks it in the deadline index (due at once) before the commit that finishes
it, and the mark stays until its record is in the archive. The finishing replica writes the
record right after its commit, in the background; a replica killed before that leaves the mark,
and the next sweep (any replica's) writes it. The archive writes a game once, keyed by its id,
so replicas racing for the same record leave one. The game's Redis copy must outlive pending
archiving: it keeps ``SCOPA_FINISHED_TTL_S`` after the finish, as before.
"""

from __future__ import annotations

import asyncio
import enum
import json
from collections.abc import Awaitable, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

import orjson
import structlog

from scopa import rules
from scopa.archive import ArchiveCorrupt, ArchivedGame, ArchiveError
from scopa.storage import Event, GameNotFound, Snapshot, StorageError, StorageUnavailable

from ._checks import check_game_id
from ._commands import GameStatus, LobbyGame
from ._errors import AppError, GameNotFoundError, PermissionDenied
from ._eventlog import COMPACT, entry_records
from ._games import Games
from ._meta import GameMeta, SeatMeta
from ._paging import page_size, page_token, read_page_token

if TYPE_CHECKING:
    from scopa.archive import GameArchive

__all__ = ["RECORD_FORMAT", "ArchiveUnavailable", "Archiving", "GameNotFinished"]

_log = structlog.get_logger("scopa.app.archive")

RECORD_FORMAT: Final = 1
"""The ``format`` of a record's JSON (docs/api.md, "Game records")."""

_T = TypeVar("_T")

_PURGE_BATCH: Final = 500
_WRITE_BATCH: Final = 64
"""The most finished games one background archive write takes (one transaction)."""


class GameNotFinished(AppError):
    """A record was asked of a game still being played."""

    reason = "GAME_NOT_FINISHED"


class ArchiveUnavailable(StorageUnavailable):
    """The archive of finished games failed (unreachable, or a read or write refused): for
    GetGameRecord and the finished games of ListGames and ListMyGames. The same status and
    reason as the game store's outage, told apart by its message."""

    message = "the archive of finished games is unavailable; nothing was changed, retry later"


def _plain(value: Any) -> Any:
    """An option's value as JSON: enums by value, tuples as lists."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def build_record(
    game_id: str,
    state: rules.MatchState,
    meta: GameMeta,
    versions: list[tuple[int, list[dict[str, Any]]]],
    finished_ms: int,
) -> bytes:
    """A finished game's record as JSON: options, seats, every version's events (the deals'
    cards included: the game is over) and the result."""
    options = state.ruleset.options
    finished = next(
        (r for _, records in reversed(versions) for r in records if r["t"] == "game_finished"),
        None,
    )
    record = {
        "format": RECORD_FORMAT,
        "game": f"games/{game_id}",
        "preset": state.ruleset.preset,
        "options": {i.name: _plain(getattr(options, i.name)) for i in rules.list_options()},
        "public": meta.public,
        "created_ms": meta.created_ms,
        "finished_ms": finished_ms,
        "seats": [{"name": s.name, "bot": s.bot} for s in meta.seats],
        # The events name cards by number: each number of this game's deck and its code.
        "cards": {str(c): rules.card_code(c) for c in rules.deck_cards(options.deck_size)},
        "result": {
            "reason": state.finish_reason.value,
            "winners": None if finished is None else finished.get("winners"),
            "scores": None if finished is None else finished.get("scores"),
        },
        "versions": [{"version": v, "events": records} for v, records in versions],
    }
    if meta.rematch_of:  # a rematch: whose seat tokens act for its seats (and its record)
        record["rematch_of"] = f"games/{meta.rematch_of}"
        record["tokens_of"] = f"games/{meta.tokens_of or meta.rematch_of}"
    return orjson.dumps(record)


def _listed(row: ArchivedGame) -> LobbyGame:
    """A finished game as a list shows it, from its archived summary."""
    summary = json.loads(row.summary)
    seats = tuple(SeatMeta(name, False, True, bot=bot) for name, bot in summary["seats"])
    return LobbyGame(
        row.game_id,
        summary["version"],
        row.preset,
        seats,
        row.created_ms,
        status=GameStatus.FINISHED,
        public=row.public,
    )


async def _each(calls: Iterable[Awaitable[_T]]) -> list[_T | StorageError]:
    """Every call's result, a store error in place of its result (any other error raised)."""
    results = await asyncio.gather(*calls, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException) and not isinstance(result, StorageError):
            raise result
    return cast(list[_T | StorageError], results)


def _deferred(game_id: str, error: StorageError) -> None:
    """Log a game whose archiving the store failed: it keeps its mark, for a sweep."""
    _log.warning("archive_deferred", game_ids=[game_id], error=type(error).__name__)


class Archiving:
    """Writes finished games to the archive (None: no archive) and serves their records."""

    def __init__(self, games: Games, archive: GameArchive | None, retention_days: int) -> None:
        self._games = games
        self._archive = archive
        self._retention_ms = retention_days * 86_400_000
        self._pending: dict[str, Snapshot] = {}
        self._writer: asyncio.Task[None] | None = None

    @property
    def enabled(self) -> bool:
        """Whether finished games are archived (an archive is configured)."""
        return self._archive is not None

    async def mark(self, game_id: str) -> None:
        """Mark a game about to finish as due for archiving (before the finishing commit)."""
        if self._archive is not None:
            await self._games.store.lower_deadline(game_id, self._games.clock.now_ms())

    def archive_later(self, game_id: str, snap: Snapshot) -> None:
        """Write a just-finished game's record (``snap``: its finishing commit) in the
        background, after the move is answered; a failure leaves the mark, for a sweep.

        One writer task writes the games pending when it starts in one batch (one archive
        transaction), then those that finished meanwhile: under load a batch holds every game
        finished during the previous batch's write, and a game finishing alone is written
        alone, at once.
        """
        if self._archive is None:
            return
        self._pending[game_id] = snap
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_pending())

    async def settled(self) -> None:
        """Wait until the background writer has nothing pending (tests and the bench)."""
        while self._writer is not None and not self._writer.done():
            await asyncio.wait([self._writer])

    async def _write_pending(self) -> None:
        while self._pending:
            batch = list(self._pending.items())[:_WRITE_BATCH]
            for game_id, _snap in batch:
                del self._pending[game_id]
            try:
                await self._write(batch)
            except (ArchiveError, StorageError) as exc:
                ids = [game_id for game_id, _snap in batch]
                _log.warning("archive_deferred", game_ids=ids, error=type(exc).__name__)
            except Exception:  # the marks stay: a sweep tries again (logged without locals)
                _log.exception("archive_failed", game_ids=[game_id for game_id, _ in batch])

    async def _write(self, batch: list[tuple[str, Snapshot]]) -> None:
        """Write one batch's records in one archive transaction, then clear their marks. A game
        whose log or mark the store fails to read or clear keeps its mark (the others go on)."""
        archive = self._archive
        assert archive is not None
        games = self._games
        logs = await _each(games.store.events_since(g, 0) for g, _ in batch)
        records, done = [], []
        for (game_id, snap), log in zip(batch, logs, strict=True):
            if isinstance(log, StorageError):
                _deferred(game_id, log)
                continue
            state, meta = games.states.load(snap.state), games.metas.load(snap.meta)
            records.append(self._record(game_id, state, meta, log))
            done.append((game_id, snap))
        wrote = await archive.put_many(records, games.clock.now_ms())
        for record in records:
            if record.game_id in wrote:
                _log.info("game_archived", game_id=record.game_id, bytes=len(record.record))
        cleared = await _each(games.store.set_deadline(g, s.version, None) for g, s in done)
        for (game_id, _snap), result in zip(done, cleared, strict=True):
            if isinstance(result, StorageError):
                _deferred(game_id, result)

    async def archive(self, game_id: str, snap: Snapshot | None = None) -> bool:
        """Write a finished game's record (if not written yet) and clear its mark; True if
        this call wrote it. Raises ArchiveError or StorageError: the mark then stays."""
        archive = self._archive
        if archive is None:
            return False
        games = self._games
        if snap is None:
            snap = await games.store.load(game_id)
        state = games.states.load(snap.state)
        meta = games.metas.load(snap.meta)
        log = await games.store.events_since(game_id, 0)
        record = self._record(game_id, state, meta, log)
        wrote = await archive.put(record, games.clock.now_ms())
        if wrote:
            _log.info("game_archived", game_id=game_id, bytes=len(record.record))
        await games.store.set_deadline(game_id, snap.version, None)
        return wrote

    def _record(
        self, game_id: str, state: rules.MatchState, meta: GameMeta, log: Sequence[Event]
    ) -> ArchivedGame:
        versions = [(e.version, entry_records(e.payload)) for e in log]
        now = self._games.clock.now_ms()
        blob = build_record(game_id, state, meta, versions, now)
        preset = state.ruleset.preset
        last = versions[-1][0] if versions else 0
        seats = [[s.name, s.bot] for s in meta.seats]
        summary = COMPACT.encode({"version": last, "seats": seats}).encode()
        owners = {s.owner: meta.owned_seat(s.owner, -1) for s in meta.seats if s.owner}
        return ArchivedGame(
            game_id,
            preset,
            meta.public,
            meta.created_ms,
            now,
            blob,
            summary,
            tuple(sorted((owner, seat) for owner, seat in owners.items() if seat is not None)),
        )

    async def finished_page(
        self, preset: str, size: int, token: str
    ) -> tuple[list[LobbyGame], str]:
        """One page of finished public games (of ``preset``; "": all), latest finish first,
        each from its archived summary, and the next page's token ("" on the last page)."""
        rows_wanted = page_size(preset, size)
        key = f"finished:{preset}"  # a lobby page's token is no token here, nor the reverse
        cursor = read_page_token(token, key)
        if self._archive is None:
            return [], ""
        try:
            rows = await self._archive.finished(rows_wanted + 1, cursor, True, preset)
        except ArchiveError as exc:
            raise ArchiveUnavailable(f"the archive failed: {exc}") from None
        more = len(rows) > rows_wanted
        rows = rows[:rows_wanted]
        games = [_listed(row) for row in rows]
        last = rows[-1] if rows else None
        next_token = page_token(key, last.finished_ms, last.game_id) if more and last else ""
        return games, next_token

    async def owned(
        self, owner: str, limit: int, before: tuple[int, str] | None
    ) -> list[tuple[LobbyGame, int]]:
        """Up to ``limit`` archived games where ``owner`` held a seat, latest finish first,
        each with its finish time (ms); ``before``: the previous page's last (finish ms, game
        id). None without an archive."""
        if self._archive is None:
            return []
        try:
            rows = await self._archive.owned(owner, limit, before)
        except ArchiveError as exc:
            raise ArchiveUnavailable(f"the archive failed: {exc}") from None
        return [
            (replace(_listed(row), seat=row.owners[0][1] if row.owners else None), row.finished_ms)
            for row in rows
        ]

    async def record(self, game_id: str, token: str | None) -> bytes:
        """A finished game's record (JSON) for its seats (seat tokens or signed-in players), or
        anyone if the game was public;
        a finished game not archived yet is archived now (ArchiveUnavailable: the archive
        failed)."""
        try:
            return await self._record_of(game_id, token)
        except ArchiveError as exc:
            raise ArchiveUnavailable(f"the archive failed: {exc}") from None
        except ArchiveCorrupt as exc:  # as a stored game that cannot be read: the server's fault
            raise rules.InvalidState(f"the archived record of games/{game_id} is corrupt") from exc

    async def _record_of(self, game_id: str, token: str | None) -> bytes:
        check_game_id(game_id)
        archive = self._archive
        if archive is None:
            raise GameNotFoundError("this server keeps no game records (no archive)")
        found = await archive.get(game_id)
        if found is None:
            try:
                snap = await self._games.store.load(game_id)
            except GameNotFound:
                raise GameNotFoundError(f"no record of games/{game_id}") from None
            if not self._games.states.load(snap.state).finished:
                raise GameNotFinished(f"games/{game_id} is not finished; it has no record yet")
            await self.archive(game_id, snap)
            found = await archive.get(game_id)
            if found is None:  # purged at once: a retention of 0 days
                raise GameNotFoundError(f"no record of games/{game_id}")
        owner = (await self._games.caller(token)).owner
        if owner:  # a signed-in player: one of its seats', or a public game's
            if not found.public and all(held != owner for held, _ in found.owners):
                raise PermissionDenied("the record of a private game is for its seats")
        elif token is None:
            if not found.public:
                raise PermissionDenied("the record of a private game is for its seats")
        else:
            record = json.loads(found.record)
            seats = len(record["seats"])
            tokens_of = record.get("tokens_of", "").removeprefix("games/")
            seat = self._games.tokens.verify(token, game_id, tokens_of)
            if seat >= seats:
                raise PermissionDenied("this token does not act for this game")
        return found.record

    async def purge(self) -> int:
        """Delete one batch of records past the retention (the sweepers' retention job)."""
        if self._archive is None:
            return 0
        cutoff = self._games.clock.now_ms() - self._retention_ms
        return await self._archive.purge(cutoff, _PURGE_BATCH)

    async def close(self) -> None:
        """Let the background archive writes end (a killed one leaves its mark)."""
        writer = self._writer
        if writer is not None and not writer.done():
            await asyncio.wait([writer], timeout=5)
            writer.cancel()
