"""The archive of finished games: write once, read by id, list by finish time, purge by age.

Any SQLAlchemy URL of SQLite or PostgreSQL: ``sqlite:///path`` (aiosqlite) or
``postgresql://user:password@host:port/db`` (asyncpg). The schema is brought to the latest
revision by Alembic when the archive opens, or, when the database cannot be reached then, by
the first call once it can (until then each call raises :class:`ArchiveError`, and one call per
``_RETRY_S`` tries again). A record is keyed by its game id and written with
``INSERT ... ON CONFLICT DO NOTHING``: writers racing for one game write it once.
"""

from __future__ import annotations

import asyncio
import time
import weakref
import zlib
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

import structlog
import zstandard
from alembic import command
from alembic.config import Config
from sqlalchemy import and_, delete, event, func, or_, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from scopa.archive._schema import OWNERS, RECORDS
from scopa.archive._types import ArchiveCorrupt, ArchivedGame, ArchiveError

__all__ = ["ArchiveError", "ArchivedGame", "GameArchive", "open_archive"]

_MIGRATIONS: Final = Path(__file__).with_name("migrations")
_DRIVERS: Final = {"sqlite": "sqlite+aiosqlite", "postgresql": "postgresql+asyncpg"}
_MIGRATE_ATTEMPTS: Final = 5
_RETRY_S: Final = 1.0
"""How often a call of an archive not yet migrated tries again (the others fail at once)."""
_LOCK_KEY: Final = 0x5C0BA  # PostgreSQL advisory lock held while migrating
_MIGRATING: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
    weakref.WeakKeyDictionary()
)
"""One migration at a time per event loop: Alembic's ``context`` and ``op`` are module globals."""

_log = structlog.get_logger("scopa.archive")


def async_url(url: str) -> str:
    """``url`` with the async driver of its database (``sqlite`` or ``postgresql``)."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "postgres":
        backend = "postgresql"
    if backend not in _DRIVERS:
        raise ValueError("expected a sqlite:/// or postgresql:// URL")
    return parsed.set(drivername=_DRIVERS[backend]).render_as_string(hide_password=False)


def _upgrade(connection: Connection) -> None:
    """Alembic's upgrade to the latest revision, on ``connection``."""
    if connection.dialect.name == "postgresql":  # replicas starting together migrate in turn
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


_LISTED: Final = [c for c in RECORDS.c if c.name not in ("record", "archived_ms")]
"""What a list reads of a record: all but its JSON and when it was written."""


def _listed(row: Any) -> ArchivedGame:
    """A listed row (:data:`_LISTED`) as a game without its record."""
    return ArchivedGame(
        row.game_id,
        row.preset,
        bool(row.public),
        row.created_ms,
        row.finished_ms,
        summary=bytes(row.summary),
    )


_RECORD_LEVEL: Final = 7
"""zstd's level for a record: as many bytes as zlib's level 9 (which wrote records before), for
a quarter of a record's write CPU (``bench/archive_cost.py`` on both trees: 1.11 against 4.19 ms
a record in batches of 32)."""
_ZSTD_MAGIC: Final = b"\x28\xb5\x2f\xfd"


def pack_record(record: bytes) -> bytes:
    """A record's JSON as the archive stores it: a zstd frame."""
    return zstandard.compress(record, _RECORD_LEVEL)


def unpack_record(stored: bytes) -> bytes:
    """A stored record's JSON: a zstd frame, or zlib as records were written before (a zlib
    stream never starts with zstd's magic number: its first two bytes make a multiple of 31,
    and 0x28b5 is not one)."""
    if stored[:4] == _ZSTD_MAGIC:
        return zstandard.decompress(stored)
    return zlib.decompress(stored)


class GameArchive:
    """Finished games' records in one SQL database."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._dialect = engine.dialect.name
        self._migrated = False
        self._next_try = 0.0

    async def _ready(self) -> None:
        """Migrate first if opening could not (the database was down): one try per
        ``_RETRY_S``, the calls in between fail at once with :class:`ArchiveError`."""
        if self._migrated:
            return
        now = time.monotonic()
        if now < self._next_try:
            raise ArchiveError("archive unreachable: its schema is not migrated yet")
        self._next_try = now + _RETRY_S
        await self.migrate(attempts=1)

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self._dialect

    async def migrate(self, attempts: int = _MIGRATE_ATTEMPTS) -> None:
        """Bring the schema to the latest revision (two processes at once: one migrates, the
        other retries and finds it done)."""
        lock = _MIGRATING.setdefault(asyncio.get_running_loop(), asyncio.Lock())
        for attempt in range(attempts):
            try:
                async with lock, self._engine.begin() as conn:
                    await conn.run_sync(_upgrade)
                self._migrated = True
                return
            except (SQLAlchemyError, OSError) as exc:
                if attempt == attempts - 1:
                    raise ArchiveError(f"archive migration failed: {type(exc).__name__}") from exc
                await asyncio.sleep(0.2 * (attempt + 1))

    async def put(self, game: ArchivedGame, archived_ms: int) -> bool:
        """Write a game's record unless one is there already; True if this call wrote it."""
        return game.game_id in await self.put_many([game], archived_ms)

    async def put_many(self, games: Sequence[ArchivedGame], archived_ms: int) -> set[str]:
        """Write each game's record unless one is there already, all in one transaction (one
        statement for the records, one for their owners); the ids of those this call wrote."""
        if not games:
            return set()
        await self._ready()
        insert: Any = postgresql.insert if self._dialect == "postgresql" else sqlite.insert
        rows = [
            {
                "game_id": game.game_id,
                "preset": game.preset,
                "public": game.public,
                "created_ms": game.created_ms,
                "finished_ms": game.finished_ms,
                "archived_ms": archived_ms,
                "record": pack_record(game.record),
                "summary": game.summary,
            }
            for game in {game.game_id: game for game in games}.values()
        ]
        statement = (
            insert(RECORDS)
            .on_conflict_do_nothing(index_elements=["game_id"])
            .returning(RECORDS.c.game_id)
        )
        try:
            async with self._engine.begin() as conn:
                wrote = {str(row[0]) for row in await conn.execute(statement, rows)}
                owners = [
                    {"owner": o, "game_id": g.game_id, "seat": seat, "finished_ms": g.finished_ms}
                    for g in games
                    if g.game_id in wrote
                    for o, seat in g.owners
                ]
                if owners:
                    await conn.execute(insert(OWNERS).on_conflict_do_nothing(), owners)
        except (SQLAlchemyError, OSError) as exc:
            raise ArchiveError(f"archive write failed: {type(exc).__name__}") from exc
        return wrote

    async def get(self, game_id: str) -> ArchivedGame | None:
        """A game's record (with its owners), or None when the archive has none (never
        finished, or purged); ArchiveCorrupt when its stored bytes cannot be read."""
        await self._ready()
        try:
            async with self._engine.connect() as conn:
                row = (
                    await conn.execute(select(RECORDS).where(RECORDS.c.game_id == game_id))
                ).first()
                owners = (
                    []
                    if row is None
                    else (
                        await conn.execute(
                            select(OWNERS.c.owner, OWNERS.c.seat)
                            .where(OWNERS.c.game_id == game_id)
                            .order_by(OWNERS.c.owner)
                        )
                    ).all()
                )
        except (SQLAlchemyError, OSError) as exc:
            raise ArchiveError(f"archive read failed: {type(exc).__name__}") from exc
        if row is None:
            return None
        try:
            record = unpack_record(bytes(row.record))
        except (zlib.error, zstandard.ZstdError) as exc:
            raise ArchiveCorrupt(f"games/{game_id}: its stored record cannot be read") from exc
        return ArchivedGame(
            row.game_id,
            row.preset,
            bool(row.public),
            row.created_ms,
            row.finished_ms,
            record,
            bytes(row.summary),
            tuple((str(owner), int(seat)) for owner, seat in owners),
        )

    async def stored_bytes(self, game_id: str) -> int:
        """The size of a game's stored record (compressed), 0 if none: for the bench."""
        await self._ready()
        async with self._engine.connect() as conn:
            size = (
                await conn.execute(
                    select(func.length(RECORDS.c.record)).where(RECORDS.c.game_id == game_id)
                )
            ).scalar()
        return int(size or 0)

    async def finished(
        self,
        limit: int,
        before: tuple[int, str] | None = None,
        public_only: bool = True,
        preset: str = "",
    ) -> list[ArchivedGame]:
        """Up to ``limit`` finished games (of ``preset``; "": all), latest finish first, with
        their summaries but not their records; ``before``: the (finished ms, game id) of the
        previous page's last entry."""
        await self._ready()
        query = select(*_LISTED)
        if public_only:
            query = query.where(RECORDS.c.public.is_(True))
        if preset:
            query = query.where(RECORDS.c.preset == preset)
        rows = await self._page(query, RECORDS, before, limit)
        return [_listed(r) for r in rows]

    async def owned(
        self, owner: str, limit: int, before: tuple[int, str] | None = None
    ) -> list[ArchivedGame]:
        """Up to ``limit`` finished games where ``owner`` held a seat, latest finish first,
        each with its summary and ``owners`` = ((owner, its seat),); ``before``: the
        (finished ms, game id) of the previous page's last entry."""
        await self._ready()
        query = (
            select(*_LISTED, OWNERS.c.seat)
            .join(OWNERS, OWNERS.c.game_id == RECORDS.c.game_id)
            .where(OWNERS.c.owner == owner)
        )
        rows = await self._page(query, OWNERS, before, limit)
        return [replace(_listed(r), owners=((owner, int(r.seat)),)) for r in rows]

    async def _page(
        self, query: Any, table: Any, before: tuple[int, str] | None, limit: int
    ) -> Sequence[Any]:
        """``query``'s rows after the cursor ``before`` (finished ms, game id) of ``table``'s
        columns, latest finish first, at most ``limit``."""
        if before is not None:
            ms, game_id = before
            query = query.where(
                or_(
                    table.c.finished_ms < ms,
                    and_(table.c.finished_ms == ms, table.c.game_id < game_id),
                )
            )
        query = query.order_by(table.c.finished_ms.desc(), table.c.game_id.desc())
        try:
            async with self._engine.connect() as conn:
                return (await conn.execute(query.limit(limit))).all()
        except (SQLAlchemyError, OSError) as exc:
            raise ArchiveError(f"archive read failed: {type(exc).__name__}") from exc

    async def purge(self, finished_before_ms: int, limit: int) -> int:
        """Delete up to ``limit`` records of games finished before ``finished_before_ms``
        (oldest first), their owners' rows with them, and return how many: the retention
        job."""
        await self._ready()
        oldest = (
            select(RECORDS.c.game_id)
            .where(RECORDS.c.finished_ms < finished_before_ms)
            .order_by(RECORDS.c.finished_ms)
            .limit(limit)
        )
        try:
            async with self._engine.begin() as conn:
                ids = list((await conn.execute(oldest)).scalars())
                if not ids:
                    return 0
                await conn.execute(delete(OWNERS).where(OWNERS.c.game_id.in_(ids)))
                result = await conn.execute(delete(RECORDS).where(RECORDS.c.game_id.in_(ids)))
        except (SQLAlchemyError, OSError) as exc:
            raise ArchiveError(f"archive purge failed: {type(exc).__name__}") from exc
        return int(result.rowcount or 0)

    async def ping(self) -> None:
        """Raise ArchiveError unless the database answers."""
        await self._ready()
        try:
            async with self._engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
        except (SQLAlchemyError, OSError) as exc:
            raise ArchiveError(f"archive unreachable: {type(exc).__name__}") from exc

    async def close(self) -> None:
        """Close the connection pool."""
        await self._engine.dispose()


def _write_ahead(connection: Any, _record: Any) -> None:
    """A SQLite connection's journal: write-ahead (a commit appends to the log, one fsync, and
    readers do not wait for writers) instead of a rollback journal created and deleted by every
    commit, which cost ~10% more CPU a record's write (``bench/archive_cost.py``). The file
    must be on a local disk (its readers and writers on one host)."""
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.close()


def _server_limits(timeout_s: float) -> dict[str, Any]:
    """asyncpg's connection arguments that bound every statement by ``timeout_s``: the server
    cancels one that runs or waits for a lock longer (``statement_timeout``, ``lock_timeout``),
    the client gives up on one whose answer does not come (``command_timeout``: a stalled
    network), and a connection attempt is bounded too (``timeout``). A stalled database then
    fails the call (:class:`ArchiveError`: UNAVAILABLE) instead of holding it."""
    ms = str(max(1, round(timeout_s * 1000)))
    return {
        "timeout": timeout_s,
        "command_timeout": timeout_s,
        "server_settings": {"statement_timeout": ms, "lock_timeout": ms},
    }


async def open_archive(url: str, timeout_s: float = 5.0) -> GameArchive:
    """Connect to the archive at ``url`` (sqlite:/// or postgresql://) and migrate its schema.

    A database that cannot be reached does not stop the opening (logged): the archive migrates
    on the first call that reaches it. A PostgreSQL statement may take ``timeout_s``
    (:func:`_server_limits`). A SQLite file's directory is created if missing; its writers
    wait up to 30 s for a lock; it is kept in write-ahead mode (:func:`_write_ahead`).
    """
    full = async_url(url)
    parsed = make_url(full)
    connect_args: dict[str, Any] = {}
    sqlite_file = parsed.get_backend_name() == "sqlite"
    if sqlite_file:
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        connect_args["timeout"] = 30
    elif parsed.get_backend_name() == "postgresql":
        connect_args = _server_limits(timeout_s)
    # A file does not drop connections: no ping before each transaction (a round trip to
    # aiosqlite's thread); a server's connection is checked before use.
    engine = create_async_engine(full, connect_args=connect_args, pool_pre_ping=not sqlite_file)
    if sqlite_file:
        event.listen(engine.sync_engine, "connect", _write_ahead)
    archive = GameArchive(engine)
    try:
        await archive.migrate()
    except ArchiveError as exc:
        _log.warning("archive_unreachable", error=str(exc))
    except BaseException:
        await engine.dispose()
        raise
    return archive
