"""The archive's contract, run against SQLite (a file) and a real PostgreSQL server."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import sqlite3
import zlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from support.postgres_server import PostgresServer

from scopa.archive import ArchiveCorrupt, ArchivedGame, ArchiveError, GameArchive, open_archive
from scopa.archive._archive import async_url, pack_record, unpack_record
from scopa.archive._schema import RECORDS

pytestmark = pytest.mark.asyncio(loop_scope="session")

_ALL = 2**62


@pytest.fixture(params=["sqlite", "postgresql"])
async def archive_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/archive/games.db"
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.url


@pytest.fixture
async def archive(archive_url: str) -> AsyncIterator[GameArchive]:
    opened = await open_archive(archive_url)
    await opened.purge(_ALL, 1_000_000)  # the PostgreSQL server is the session's
    yield opened
    await opened.purge(_ALL, 1_000_000)
    await opened.close()


def _game(
    game_id: str, finished_ms: int, public: bool = True, preset: str = "scopa"
) -> ArchivedGame:
    record = b'{"game":"games/%s","events":[]}' % game_id.encode()
    summary = b'{"seats":["%s"]}' % game_id.encode()
    return ArchivedGame(game_id, preset, public, finished_ms - 1000, finished_ms, record, summary)


async def test_a_record_is_written_once_and_read_back(archive: GameArchive) -> None:
    game = _game("g1", 5000)
    assert await archive.put(game, 6000)
    assert not await archive.put(ArchivedGame("g1", "other", False, 0, 1, b"{}"), 7000)
    assert await archive.get("g1") == game
    assert await archive.get("missing") is None
    assert await archive.stored_bytes("g1") > 0


async def test_a_record_is_stored_as_zstd_and_one_stored_as_zlib_still_reads(
    archive: GameArchive,
) -> None:
    """Records are written as zstd frames; one written by an earlier release (zlib, level 9)
    reads back the same."""
    record = b'{"game":"games/z","events":[' + b'{"t":"card_played","seat":0},' * 50 + b"{}]}"
    assert pack_record(record)[:4] == b"\x28\xb5\x2f\xfd"
    assert unpack_record(pack_record(record)) == record
    assert unpack_record(zlib.compress(record, 9)) == record
    game = dataclasses.replace(_game("z", 5000), record=record)
    assert await archive.put(game, 6000)
    assert (await archive.get("z")) == game
    assert await archive.stored_bytes("z") == len(pack_record(record))
    old = dataclasses.replace(_game("old", 5000), record=record)
    async with archive._engine.begin() as conn:  # a row as the earlier release wrote it
        row = {f: getattr(old, f) for f in ("game_id", "preset", "public", "summary")}
        row.update(created_ms=4000, finished_ms=5000, archived_ms=6000)
        await conn.execute(RECORDS.insert(), [{**row, "record": zlib.compress(record, 9)}])
    assert (await archive.get("old")) == old


async def test_a_record_that_cannot_be_read_is_archive_corrupt(archive: GameArchive) -> None:
    """A row whose record is neither a zstd frame nor zlib (a damaged database) raises
    ArchiveCorrupt, not a codec's error; the rows around it still read."""
    game = _game("bad", 5000)
    async with archive._engine.begin() as conn:
        row = {f: getattr(game, f) for f in ("game_id", "preset", "public", "summary")}
        row.update(created_ms=4000, finished_ms=5000, archived_ms=6000)
        broken = [b"\x28\xb5\x2f\xfd broken frame", b"not a record at all"]
        rows = [{**row, "game_id": f"bad{i}", "record": data} for i, data in enumerate(broken)]
        await conn.execute(RECORDS.insert(), rows)
    for game_id in ("bad0", "bad1"):
        with pytest.raises(ArchiveCorrupt):
            await archive.get(game_id)
    assert await archive.put(_game("good", 5000), 6000)
    assert (await archive.get("good")) == _game("good", 5000)


async def test_a_sqlite_archive_is_in_write_ahead_mode(tmp_path: Path) -> None:
    """A SQLite archive's file keeps a write-ahead log (no rollback journal per commit)."""
    opened = await open_archive(f"sqlite:///{tmp_path}/games.db")
    try:
        assert await opened.put(_game("w", 100), 100)
    finally:
        await opened.close()
    with contextlib.closing(sqlite3.connect(tmp_path / "games.db")) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)


async def test_racing_writers_write_one_record(archive: GameArchive) -> None:
    wrote = await asyncio.gather(*[archive.put(_game("race", 100), 200) for _ in range(8)])
    assert sorted(wrote) == [False] * 7 + [True]


async def test_put_many_writes_the_new_records_in_one_call(archive: GameArchive) -> None:
    """A batch writes the records not there yet and their owners (a record already there
    keeps its own, and its owners are not added); it names the ids it wrote."""
    kept = dataclasses.replace(_game("kept", 100), owners=(("alice", 0),))
    assert await archive.put(kept, 200)
    batch = [
        dataclasses.replace(_game("kept", 900, preset="other"), owners=(("bob", 1),)),
        dataclasses.replace(_game("a", 300), owners=(("bob", 0),)),
        _game("b", 400),
    ]
    assert await archive.put_many(batch, 1000) == {"a", "b"}
    assert await archive.get("kept") == kept
    assert await archive.get("a") == batch[1]
    assert await archive.get("b") == batch[2]
    assert [g.game_id for g in await archive.owned("bob", 10)] == ["a"]
    assert await archive.put_many(batch, 2000) == set()
    assert await archive.put_many([], 2000) == set()


async def test_finished_lists_latest_first_in_pages(archive: GameArchive) -> None:
    for n, ms in enumerate([300, 100, 200, 200]):
        await archive.put(_game(f"g{n}", ms), 1000)
    await archive.put(_game("private", 400, public=False), 1000)
    first = await archive.finished(2)
    assert [(g.game_id, g.finished_ms) for g in first] == [("g0", 300), ("g3", 200)]
    assert all(g.record == b"" for g in first)
    assert first[0].summary == _game("g0", 300).summary
    rest = await archive.finished(10, before=(200, "g3"))
    assert [g.game_id for g in rest] == ["g2", "g1"]
    everything = await archive.finished(10, public_only=False)
    assert [g.game_id for g in everything][:2] == ["private", "g0"]
    await archive.put(_game("other", 50, preset="scopone"), 1000)
    assert [g.game_id for g in await archive.finished(10, preset="scopone")] == ["other"]
    assert len(await archive.finished(10, preset="scopa")) == 4


async def test_purge_deletes_the_oldest_past_retention(archive: GameArchive) -> None:
    for n in range(5):
        await archive.put(_game(f"g{n}", 100 * (n + 1)), 1000)
    assert await archive.purge(350, 2) == 2  # g0, g1 (100, 200)
    assert await archive.get("g0") is None
    assert await archive.purge(350, 10) == 1  # g2 (300)
    assert await archive.purge(350, 10) == 0
    assert [g.game_id for g in await archive.finished(10)] == ["g4", "g3"]


async def test_opening_again_keeps_the_records(archive_url: str) -> None:
    first = await open_archive(archive_url)
    try:
        await first.put(_game("kept", 100), 100)
    finally:
        await first.close()
    again, other = await asyncio.gather(open_archive(archive_url), open_archive(archive_url))
    try:
        assert (await again.get("kept")) == _game("kept", 100)
        await again.ping()
        await again.purge(_ALL, 100)
    finally:
        await again.close()
        await other.close()


async def test_an_unreachable_database_is_an_archive_error(tmp_path: Path) -> None:
    """Opening does not fail (the replica starts); every call does, with ArchiveError, the
    next try at migrating the schema at most a second later."""
    archive = await open_archive("postgresql://scopa@127.0.0.1:1/postgres")
    try:
        with pytest.raises(ArchiveError, match="archive"):
            await archive.get("g1")
        with pytest.raises(ArchiveError, match="not migrated yet"):
            await archive.ping()  # within the second: no new try
    finally:
        await archive.close()


async def test_urls_get_the_async_drivers() -> None:
    assert async_url("sqlite:///data/games.db") == "sqlite+aiosqlite:///data/games.db"
    assert async_url("postgres://u:p@h:5/db") == "postgresql+asyncpg://u:p@h:5/db"
    with pytest.raises(ValueError, match="sqlite"):
        async_url("mysql://h/db")


async def test_owned_lists_an_owners_games_latest_first_and_purges_with_them(
    archive: GameArchive,
) -> None:
    """Each record's owners are written with it: an owner's page lists its games (private
    ones too) with its seat, latest finish first after the cursor; a purged record leaves
    every owner's list."""
    for i, owners in enumerate([(("alice", 0),), (("alice", 1), ("bob", 0)), (("bob", 1),)]):
        game = dataclasses.replace(_game(f"g{i}", 1000 * (i + 1), public=i != 1), owners=owners)
        assert await archive.put(game, 9000)
    alice = await archive.owned("alice", 10)
    assert [(g.game_id, g.owners) for g in alice] == [
        ("g1", (("alice", 1),)),
        ("g0", (("alice", 0),)),
    ]
    assert [g.game_id for g in await archive.owned("alice", 10, (2000, "g1"))] == ["g0"]
    assert [g.game_id for g in await archive.owned("bob", 1)] == ["g2"]
    assert await archive.owned("carol", 10) == []
    assert await archive.purge(2500, 10) == 2
    assert await archive.owned("alice", 10) == []
    assert [g.game_id for g in await archive.owned("bob", 10)] == ["g2"]
