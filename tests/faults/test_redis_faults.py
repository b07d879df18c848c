"""Fault tests: Redis paused, restarted, full and flushed of its scripts, under a player load.

Each runs two replicas on a redis-server of its own, plays stacked games through both, injects
the fault mid-game and checks: no INTERNAL/UNKNOWN, an ErrorInfo on every error, and the audit
of every game's log (OK'd moves exactly once, nothing applied that was reported unchanged,
replay = stored state).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import grpc
import pytest
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc
from support.redis_server import RedisServer, restart_redis_server
from support.server_process import ServerProcess

from faults.conftest import StartServers
from faults.ledger import (
    CALL_TIMEOUT_S,
    Game,
    Ledger,
    async_stub,
    audit,
    create_game,
    play,
)
from scopa_client import bearer_metadata, error_info
from scopa_client.v1 import scopa_pb2 as pb

pytestmark = pytest.mark.asyncio(loop_scope="session")

GAMES = 6
LOAD_S = 30.0


async def _load_with_fault(
    servers: list[ServerProcess],
    fault: Callable[[Ledger], Awaitable[None]],
    admin: redis.Redis[bytes],
    *,
    games: int = GAMES,
    target: int = 1,
    preset: str = "scopa",
) -> Ledger:
    """Play ``games`` games through both replicas while ``fault`` runs; audit every game."""
    channels = [async_stub(s.target) for s in servers]
    stubs = [stub for _, stub in channels]
    created: list[Game] = [
        await create_game(stubs[i % 2], seed=i, target=target, preset=preset) for i in range(games)
    ]
    ledger = Ledger()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + LOAD_S
    players = asyncio.gather(
        *(play(stubs, g, ledger, deadline, random.Random(i), 0.01) for i, g in enumerate(created))
    )
    await asyncio.sleep(0.5)
    await fault(ledger)
    finished = await players
    for channel, _ in channels:
        await channel.close()
    ledger.check_errors()
    assert all(finished), f"{finished.count(False)} games did not finish"
    logged = sum(audit(admin, g, ledger) for g in created)
    assert logged >= ledger.moves > 0
    return ledger


def _reasons(ledger: Ledger) -> set[str | None]:
    return {f.reason for f in ledger.failures}


@pytest.mark.parametrize("preset", ["scopa", "fidasse", "fattoria"])
async def test_redis_paused_under_load(
    start_servers: StartServers,
    own_redis: list[RedisServer],
    admin: redis.Redis[bytes],
    preset: str,
) -> None:
    """Writes held past SCOPA_REDIS_TIMEOUT_S=1 are OUTCOME_UNKNOWN; then SIGSTOP for 1.5 s.

    CLIENT PAUSE WRITE lets reads through and holds every EVALSHA for 2 s, so writes are surely
    sent and answered late (then applied), as under the SIGSTOP that follows. Fidasse and
    fattoria games claim, answer, build and raise over TakeAction (faults.ledger).
    """
    servers = start_servers(2)
    pid = own_redis[0].process.pid

    async def pause(ledger: Ledger) -> None:
        admin.execute_command("CLIENT", "PAUSE", "2000", "WRITE")
        await asyncio.sleep(2.5)
        os.kill(pid, signal.SIGSTOP)
        await asyncio.sleep(1.5)
        os.kill(pid, signal.SIGCONT)

    ledger = await _load_with_fault(servers, pause, admin, preset=preset)
    assert "OUTCOME_UNKNOWN" in _reasons(ledger), "the pause hit no write"
    played = {"scopa": set(), "fidasse": {"claim_sweep", "answer_claim"}, "fattoria": {"build"}}
    assert played[preset] <= ledger.kinds.keys(), ledger.kinds


async def test_redis_restarted_under_load(
    start_servers: StartServers, own_redis: list[RedisServer], admin: redis.Redis[bytes]
) -> None:
    """A restart (data kept) costs at most the calls in flight; later calls all succeed.

    The servers wait the default 5 s for Redis (not the suite's 1 s): a stale pooled connection
    fails at once, while a reply slowed past 1 s by a loaded machine is OUTCOME_UNKNOWN by
    design (the stall tests' subject) and failed this test in full runs on 2 cores.
    """
    servers = start_servers(2, SCOPA_REDIS_TIMEOUT_S="5")

    async def restart(ledger: Ledger) -> None:
        own_redis[0] = await asyncio.to_thread(restart_redis_server, own_redis[0])

    ledger = await _load_with_fault(servers, restart, admin)
    restarted = time.time()
    assert _reasons(ledger) <= {"STORAGE_UNAVAILABLE", "OUTCOME_UNKNOWN"}
    # Minutes later in the issue; here: every pooled connection of both replicas is reused.
    second = Ledger()
    channels = [async_stub(s.target) for s in servers]
    games = [await create_game(channels[i % 2][1], seed=50 + i) for i in range(GAMES)]
    deadline = asyncio.get_running_loop().time() + LOAD_S
    await asyncio.gather(
        *(
            play([s for _, s in channels], g, second, deadline, random.Random(i))
            for i, g in enumerate(games)
        )
    )
    for channel, _ in channels:
        await channel.close()
    # On failure, the servers' access lines of the failed calls: their duration tells a reply
    # that timed out (>= 5 s) from a connection found dead.
    failed = [
        {k: r.get(k) for k in ("timestamp", "rpc_method", "reason", "duration_ms")}
        for s in servers
        for r in s.log_records()
        if r.get("event") == "rpc" and r.get("reason") and r["timestamp"] >= _iso(restarted)
    ]
    assert second.failures == [], f"errors after the restart at {restarted}: {failed}"


def _iso(epoch: float) -> str:
    """``epoch`` as the servers' log timestamps write it (UTC ISO 8601), for comparing."""
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _readiness(server: ServerProcess) -> int:
    with grpc.insecure_channel(server.target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = stub.Check(health_pb2.HealthCheckRequest(service="readiness"), timeout=5)
        return int(reply.status)


async def _until_readiness(server: ServerProcess, status: int) -> None:
    async with asyncio.timeout(20):
        while await asyncio.to_thread(_readiness, server) != status:
            await asyncio.sleep(0.2)


async def test_redis_at_maxmemory_under_load(
    start_servers: StartServers, admin: redis.Redis[bytes]
) -> None:
    """At maxmemory writes are RESOURCE_EXHAUSTED / STORAGE_FULL, readiness drops, no traceback."""
    servers = start_servers(2)

    async def fill(ledger: Ledger) -> None:
        admin.config_set("maxmemory", "1")
        await _until_readiness(servers[0], health_pb2.HealthCheckResponse.NOT_SERVING)
        await asyncio.sleep(1.0)
        admin.config_set("maxmemory", "0")
        await _until_readiness(servers[0], health_pb2.HealthCheckResponse.SERVING)

    ledger = await _load_with_fault(servers, fill, admin)
    full = [f for f in ledger.failures if f.reason == "STORAGE_FULL"]
    assert full and all(f.code == grpc.StatusCode.RESOURCE_EXHAUSTED for f in full)
    for server in servers:
        records = server.log_records()
        assert not [r for r in records if "exception" in r or r.get("level") == "error"], [
            json.dumps(r)[:300] for r in records if "exception" in r
        ][:3]


async def test_script_flush_under_load(
    start_servers: StartServers, admin: redis.Redis[bytes]
) -> None:
    """SCRIPT FLUSH every 100 ms costs no error and no move."""
    servers = start_servers(2)

    async def flush(ledger: Ledger) -> None:
        for _ in range(20):
            admin.script_flush()
            await asyncio.sleep(0.1)

    ledger = await _load_with_fault(servers, flush, admin)
    assert ledger.failures == []


async def test_a_read_held_by_a_stopped_redis_is_unavailable_not_an_unknown_write(
    start_servers: StartServers, own_redis: list[RedisServer]
) -> None:
    """GetState reads the game and its presence in one script call; held past the store's
    timeout by a stopped Redis it answers UNAVAILABLE with STORAGE_UNAVAILABLE (retry), not
    the OUTCOME_UNKNOWN of a write that may have been applied. Once Redis goes on, so do reads."""
    (server,) = start_servers(1)
    channel, stub = async_stub(server.target)
    game = await create_game(stub, seed=3)
    request = pb.GetStateRequest(name=game.name)
    seat = bearer_metadata(game.tokens[0])
    await stub.GetState(request, metadata=seat, timeout=CALL_TIMEOUT_S)
    pid = own_redis[0].process.pid
    os.kill(pid, signal.SIGSTOP)
    try:
        with pytest.raises(grpc.aio.AioRpcError) as held:
            await stub.GetState(request, metadata=seat, timeout=CALL_TIMEOUT_S)
    finally:
        os.kill(pid, signal.SIGCONT)
    info = error_info(held.value)
    assert held.value.code() == grpc.StatusCode.UNAVAILABLE
    assert info is not None and info.reason == "STORAGE_UNAVAILABLE", held.value.details()
    again = await stub.GetState(request, metadata=seat, timeout=CALL_TIMEOUT_S)
    assert again.view.name == game.name
    await channel.close()


async def test_reads_go_on_while_redis_holds_writes(
    start_servers: StartServers, own_redis: list[RedisServer], admin: redis.Redis[bytes]
) -> None:
    """Under CLIENT PAUSE WRITE (as in a coordinated failover) Redis holds every EVALSHA and
    whatever follows it on the same connection. GetState and the lobby's page read with
    EVALSHA_RO on the store's reads connection, so they are answered while a move waits for
    the pause to end."""
    (server,) = start_servers(1)
    channel, stub = async_stub(server.target)
    open_seats = [pb.SeatSpec(display_name="host"), pb.SeatSpec(open=True)]
    listed = await stub.CreateGame(
        pb.CreateGameRequest(preset="scopa", seats=open_seats, public=True),
        timeout=CALL_TIMEOUT_S,
    )
    game = await create_game(stub, seed=5)
    request = pb.GetStateRequest(name=game.name)
    seat = bearer_metadata(game.tokens[0])
    view = (await stub.GetState(request, metadata=seat, timeout=CALL_TIMEOUT_S)).view
    move = view.legal_moves[0]
    play = pb.PlayCardRequest(
        name=game.name,
        card=move.card,
        capture=pb.CaptureChoice(cards=list(move.capture)),
        request_id="held-move",
    )
    admin.execute_command("CLIENT", "PAUSE", "3000", "WRITE")
    try:
        held = asyncio.ensure_future(
            stub.PlayCard(play, metadata=bearer_metadata(game.tokens[view.turn]), timeout=10)
        )
        await asyncio.sleep(0.2)
        for _ in range(3):
            again = await stub.GetState(request, metadata=seat, timeout=0.9)
            assert again.view.name == game.name
        lobby = await stub.ListGames(pb.ListGamesRequest(preset="scopa"), timeout=0.9)
        assert [g.name for g in lobby.games] == [listed.name]
        assert not held.done()
        with pytest.raises(grpc.aio.AioRpcError) as unknown:
            await held
        info = error_info(unknown.value)
        assert info is not None and info.reason == "OUTCOME_UNKNOWN", unknown.value.details()
    finally:
        admin.execute_command("CLIENT", "UNPAUSE")
    await channel.close()
