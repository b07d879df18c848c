"""Fault tests of WatchGame fan-out: a thousand streams on one replica, caps and limits."""

from __future__ import annotations

import asyncio
import random

import grpc
import grpc.aio
import pytest
import redis

from faults.conftest import StartServers
from faults.ledger import Game, Ledger, async_stub, audit, create_game, play
from scopa_client import error_info
from scopa_client.v1 import scopa_pb2 as pb

pytestmark = pytest.mark.asyncio(loop_scope="session")

STREAMS = 1000
CHANNELS = 10


async def _watch(stub: object, name: str, seen: list[int]) -> grpc.StatusCode:
    """Read a stream to its end, appending each version; return its final status."""
    call = stub.WatchGame(pb.WatchGameRequest(name=name))  # type: ignore[attr-defined]
    try:
        async for update in call:
            seen.append(update.version)
    except grpc.aio.AioRpcError as exc:
        return exc.code()
    return grpc.StatusCode.OK


def _server_clients(admin: redis.Redis[bytes]) -> tuple[int, int]:
    """(all client connections but ours, those in pub/sub mode)."""
    clients = [c for c in admin.client_list() if c.get("cmd") != "client|list"]
    return len(clients), sum(1 for c in clients if int(c.get("sub", 0)) > 0)


async def test_a_thousand_streams_cost_no_pooled_connections(
    start_servers: StartServers, admin: redis.Redis[bytes]
) -> None:
    """1,000 open streams on one replica hold one pub/sub connection; players see 0 errors."""
    (server,) = start_servers(1, SCOPA_WATCH_PER_CLIENT=str(2 * STREAMS))
    channels_stubs = [async_stub(server.target) for _ in range(CHANNELS)]
    stubs = [s for _, s in channels_stubs]
    played = [await create_game(stubs[0], seed=i) for i in range(2)]
    quiet = [await create_game(stubs[0], seed=10 + i) for i in range(8)]
    watched = [g.name for g in played] * 50 + [g.name for g in quiet] * 113
    watched = watched[:STREAMS]
    seen: list[list[int]] = [[] for _ in watched]
    tasks = [
        asyncio.create_task(_watch(stubs[i % CHANNELS], name, seen[i]))
        for i, name in enumerate(watched)
    ]
    async with asyncio.timeout(60):
        while sum(1 for s in seen if s) < STREAMS:
            ended = [t.result() for t in tasks if t.done()]
            assert not ended, f"{len(ended)} streams ended early: {set(ended)}"
            await asyncio.sleep(0.1)
    clients, subscribers = _server_clients(admin)
    assert subscribers == 1, "every stream shares one pub/sub connection"
    assert clients <= 20, f"{clients} Redis connections for {STREAMS} streams"

    ledger = Ledger()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    done = await asyncio.gather(
        *(play(stubs[:2], g, ledger, deadline, random.Random(i)) for i, g in enumerate(played))
    )
    assert all(done), "the games did not finish in time"
    assert ledger.failures == [], ledger.failures[:5]
    for game in played:
        assert audit(admin, game, ledger) > 0
    async with asyncio.timeout(30):
        finished = await asyncio.gather(*tasks[:100])
    assert set(finished) == {grpc.StatusCode.OK}, "streams of finished games end cleanly"
    final = {g.name: max(ledger.ok[g.name]) for g in played}
    assert all(seen[i][-1] == final[watched[i]] for i in range(100))
    for task in tasks[100:]:
        task.cancel()
    await asyncio.gather(*tasks[100:], return_exceptions=True)
    for channel, _ in channels_stubs:
        await channel.close()


async def _status_of_stream(stub: object, name: str) -> tuple[grpc.StatusCode, str | None]:
    call = stub.WatchGame(pb.WatchGameRequest(name=name))  # type: ignore[attr-defined]
    try:
        async for _ in call:
            pass
    except grpc.aio.AioRpcError as exc:
        info = error_info(exc)
        return exc.code(), info.reason if info else None
    return grpc.StatusCode.OK, None


async def test_streams_per_client_are_capped(start_servers: StartServers) -> None:
    """A client's stream over SCOPA_WATCH_PER_CLIENT is RESOURCE_EXHAUSTED / TOO_MANY_WATCHES."""
    (server,) = start_servers(1, SCOPA_WATCH_PER_CLIENT="3")
    channel, stub = async_stub(server.target)
    game: Game = await create_game(stub, seed=1)
    held = [stub.WatchGame(pb.WatchGameRequest(name=game.name)) for _ in range(3)]
    for call in held:
        await call.read()
    code, reason = await asyncio.wait_for(_status_of_stream(stub, game.name), 20)
    assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_WATCHES")
    held[0].cancel()
    await asyncio.sleep(0.5)
    again = stub.WatchGame(pb.WatchGameRequest(name=game.name))
    assert (await again.read()).version == 1
    for call in (*held[1:], again):
        call.cancel()
    await channel.close()


async def test_quiet_streams_end_with_watch_idle(start_servers: StartServers) -> None:
    """A stream without a new version for SCOPA_WATCH_IDLE_S ends DEADLINE_EXCEEDED / WATCH_IDLE."""
    (server,) = start_servers(1, SCOPA_WATCH_IDLE_S="1")
    channel, stub = async_stub(server.target)
    game = await create_game(stub, seed=2)
    result = await asyncio.wait_for(_status_of_stream(stub, game.name), 20)
    assert result == (grpc.StatusCode.DEADLINE_EXCEEDED, "WATCH_IDLE")
    await channel.close()


async def test_stream_of_an_expired_game_ends_with_not_found(start_servers: StartServers) -> None:
    """When the watched game expires, the stream ends NOT_FOUND / GAME_NOT_FOUND."""
    (server,) = start_servers(1, SCOPA_GAME_TTL_S="1", SCOPA_WATCH_IDLE_S="3")
    channel, stub = async_stub(server.target)
    game = await create_game(stub, seed=3)
    result = await asyncio.wait_for(_status_of_stream(stub, game.name), 20)
    assert result == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")
    await channel.close()


async def test_behind_a_trusted_proxy_the_cap_counts_forwarded_clients(
    start_servers: StartServers,
) -> None:
    """With SCOPA_TRUSTED_PROXY_HEADER the cap counts each forwarded client, not the proxy."""
    (server,) = start_servers(
        1, SCOPA_WATCH_PER_CLIENT="1", SCOPA_TRUSTED_PROXY_HEADER="x-forwarded-for"
    )
    channel, stub = async_stub(server.target)
    game = await create_game(stub, seed=4)

    def watch(client: str) -> grpc.aio.UnaryStreamCall:
        return stub.WatchGame(
            pb.WatchGameRequest(name=game.name), metadata=(("x-forwarded-for", client),)
        )

    first = watch("203.0.113.1")
    await first.read()
    second = watch("203.0.113.2")
    assert (await second.read()).version == 1
    refused = watch("203.0.113.1")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await refused.read()
    info = error_info(caught.value)
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert info is not None and info.reason == "TOO_MANY_WATCHES"
    for call in (first, second):
        call.cancel()
    await channel.close()
