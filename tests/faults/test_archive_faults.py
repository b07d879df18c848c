"""A replica SIGKILLed between a game's last move and its archive write: the record is written
by another replica's sweep, once (real redis-server, real postgres, real server processes)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
import uuid
from typing import TYPE_CHECKING, Any

import asyncpg  # type: ignore[import-untyped]
import grpc
import pytest
from support.postgres_server import PostgresServer, running_postgres_server
from support.redis_server import free_port

from faults.conftest import StartServers
from faults.ledger import Game, async_stub, create_game
from scopa.archive._archive import unpack_record
from scopa_client import bearer_metadata, error_info
from scopa_client.v1 import scopa_pb2 as pb

if TYPE_CHECKING:
    from faults.ledger import AsyncStub

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_a_replica_killed_before_archiving_loses_no_record_and_doubles_none(
    start_servers: StartServers, postgres_server: PostgresServer
) -> None:
    url = postgres_server.url
    [finishing] = start_servers(1, SCOPA_ARCHIVE_URL=url, SCOPA_SWEEP_INTERVAL_S="0.2")
    db = await asyncpg.connect(url.replace("postgresql://", "postgres://"))
    channel, stub = async_stub(finishing.target)
    game = await create_game(stub, seed=11)
    game_id = game.name.removeprefix("games/")
    # The archive's table is locked: the finishing replica's write (and sweep) waits on it.
    blocker = db.transaction()
    await blocker.start()
    await db.execute("LOCK TABLE game_records IN ACCESS EXCLUSIVE MODE")
    resign = stub.ResignGame(
        pb.ResignGameRequest(name=game.name, request_id=uuid.uuid4().hex),
        metadata=bearer_metadata(game.tokens[0]),
        timeout=10,
    )
    await resign  # the game is finished in Redis; its record is not written
    await asyncio.sleep(0.5)  # the replica is now blocked inside the archive write
    os.kill(finishing.process.pid, signal.SIGKILL)
    assert finishing.process.wait(timeout=10) == -signal.SIGKILL
    await channel.close()
    await blocker.rollback()
    assert await db.fetchval("SELECT count(*) FROM game_records WHERE game_id=$1", game_id) == 0
    # Two replicas sweep: the record is written by one of them, once.
    start_servers(2, SCOPA_ARCHIVE_URL=url, SCOPA_SWEEP_INTERVAL_S="0.2")
    deadline = time.monotonic() + 20
    rows: list[Any] = []
    while time.monotonic() < deadline:
        rows = await db.fetch("SELECT record FROM game_records WHERE game_id=$1", game_id)
        if rows:
            break
        await asyncio.sleep(0.1)
    assert len(rows) == 1, "the finished game was not archived"
    await asyncio.sleep(1)  # more sweeps: still one record
    assert await db.fetchval("SELECT count(*) FROM game_records WHERE game_id=$1", game_id) == 1
    record = json.loads(unpack_record(rows[0]["record"]))
    assert record["game"] == game.name
    assert record["result"]["reason"] == "resigned"
    events = [e["t"] for v in record["versions"] for e in v["events"]]
    assert events[-2:] == ["seat_resigned", "game_finished"]
    assert "cards_dealt" in events
    await db.execute("DELETE FROM game_records")
    await db.close()


async def test_a_replica_starts_with_the_archive_down_and_archives_once_it_is_up(
    start_servers: StartServers,
) -> None:
    """The archive's database unreachable at start: the replica starts and plays anyway, a
    record or the finished games asked for are UNAVAILABLE / STORAGE_UNAVAILABLE with a message
    naming the archive, and the game finished meanwhile is archived by a sweep once the
    database is up (its schema migrated then)."""
    port = free_port()
    url = f"postgresql://scopa@127.0.0.1:{port}/postgres"
    [replica] = start_servers(1, SCOPA_ARCHIVE_URL=url, SCOPA_SWEEP_INTERVAL_S="0.2")
    channel, stub = async_stub(replica.target)
    game = await create_game(stub, seed=12)
    await stub.ResignGame(
        pb.ResignGameRequest(name=game.name, request_id=uuid.uuid4().hex),
        metadata=bearer_metadata(game.tokens[0]),
        timeout=10,
    )
    asked = pb.GetGameRecordRequest(name=game.name)
    with pytest.raises(grpc.aio.AioRpcError) as down:
        await stub.GetGameRecord(asked, metadata=bearer_metadata(game.tokens[0]), timeout=10)
    assert down.value.code() == grpc.StatusCode.UNAVAILABLE  # to retry, as for the store's
    archive_down = "the archive of finished games is unavailable; nothing was changed, retry later"
    assert down.value.details() == archive_down  # not the game store's message
    info = error_info(down.value)
    assert info is not None and info.reason == "STORAGE_UNAVAILABLE"
    with pytest.raises(grpc.aio.AioRpcError) as listing:
        await stub.ListGames(pb.ListGamesRequest(status=pb.GAME_STATUS_FINISHED), timeout=10)
    assert (listing.value.code(), listing.value.details()) == (
        grpc.StatusCode.UNAVAILABLE,
        archive_down,
    )
    with running_postgres_server(port=port):
        deadline = time.monotonic() + 30
        record = None
        while record is None and time.monotonic() < deadline:
            try:
                record = await stub.GetGameRecord(
                    asked, metadata=bearer_metadata(game.tokens[0]), timeout=10
                )
            except grpc.aio.AioRpcError as exc:
                if exc.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.NOT_FOUND):
                    raise
                await asyncio.sleep(0.2)
        assert record is not None, "the game finished while the archive was down was not archived"
        assert json.loads(record.record.record_json)["game"] == game.name
    await channel.close()


async def test_a_stalled_archive_answers_unavailable_and_archives_once_it_moves(
    start_servers: StartServers, postgres_server: PostgresServer
) -> None:
    """The archive's table locked (a stalled database): a record asked for is UNAVAILABLE /
    STORAGE_UNAVAILABLE after SCOPA_ARCHIVE_TIMEOUT_S, not held until the caller's deadline; a
    game finished meanwhile is answered at once and archived, once, after the stall."""
    url = postgres_server.url
    [replica] = start_servers(
        1, SCOPA_ARCHIVE_URL=url, SCOPA_SWEEP_INTERVAL_S="0.2", SCOPA_ARCHIVE_TIMEOUT_S="1"
    )
    db = await asyncpg.connect(url.replace("postgresql://", "postgres://"))
    channel, stub = async_stub(replica.target)
    first, second = await create_game(stub, seed=13), await create_game(stub, seed=14)
    await _resign(stub, first)
    asked = pb.GetGameRecordRequest(name=first.name)
    owner = bearer_metadata(first.tokens[0])
    query = "SELECT count(*) FROM game_records WHERE game_id=$1"
    deadline = time.monotonic() + 20
    while not await db.fetchval(query, first.name.removeprefix("games/")):
        assert time.monotonic() < deadline, "the first game was not archived"
        await asyncio.sleep(0.1)
    assert (await stub.GetGameRecord(asked, metadata=owner, timeout=10)).record.record_json
    blocker = db.transaction()
    await blocker.start()
    await db.execute("LOCK TABLE game_records IN ACCESS EXCLUSIVE MODE")
    started = time.monotonic()
    with pytest.raises(grpc.aio.AioRpcError) as stalled:
        await stub.GetGameRecord(asked, metadata=owner, timeout=20)
    assert stalled.value.code() == grpc.StatusCode.UNAVAILABLE, stalled.value.details()
    info = error_info(stalled.value)
    assert info is not None and info.reason == "STORAGE_UNAVAILABLE"
    assert time.monotonic() - started < 10  # the archive's timeout, not the call's deadline
    await _resign(stub, second)  # the finishing move does not wait on the archive
    await asyncio.sleep(1.5)  # the replica's write and a sweep time out on the lock
    await blocker.rollback()
    deadline = time.monotonic() + 20
    while not await db.fetchval(query, second.name.removeprefix("games/")):
        assert time.monotonic() < deadline, "the game finished during the stall was not archived"
        await asyncio.sleep(0.1)
    await asyncio.sleep(1)  # more sweeps: still one record
    assert await db.fetchval(query, second.name.removeprefix("games/")) == 1
    record = await stub.GetGameRecord(
        pb.GetGameRecordRequest(name=second.name),
        metadata=bearer_metadata(second.tokens[0]),
        timeout=10,
    )
    assert json.loads(record.record.record_json)["game"] == second.name
    await db.execute("DELETE FROM game_records")
    await db.close()
    await channel.close()


async def _resign(stub: AsyncStub, game: Game) -> None:
    """Seat 0 resigns ``game``: it is finished (in Redis) once this returns."""
    await stub.ResignGame(
        pb.ResignGameRequest(name=game.name, request_id=uuid.uuid4().hex),
        metadata=bearer_metadata(game.tokens[0]),
        timeout=10,
    )
