"""Replicas behind a real L7 balancer (nginx grpc_pass, proxy_pass): one SIGKILLed, one SIGTERMed.

Players and watchers reach three replicas on one redis-server only through nginx (gRPC), and a
REST reader polls a game through nginx's HTTP port (the replicas' SCOPA_HTTP_PORT). While they
play, one replica is killed (SIGKILL: calls in flight are cut, their outcome unknown) and another
is drained (SIGTERM). Players retry every call that did not get an answer from the service with
the SAME request_id; watchers reconnect with the last version they saw. Then every OK'd move is
in the log exactly once, nothing else is, and every watcher saw every version exactly once.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import grpc
import grpc.aio
import httpx
import pytest
import redis
from support.nginx import Nginx, running_nginx
from support.tools import system_tool

from faults.conftest import StartServers
from faults.ledger import (
    CALL_TIMEOUT_S,
    Game,
    Ledger,
    async_stub,
    audit,
    card_of,
    create_game,
)
from scopa_client import ERROR_DOMAIN, bearer_metadata, error_info
from scopa_client.v1 import scopa_pb2 as pb

if TYPE_CHECKING:
    from faults.ledger import AsyncStub

pytestmark = pytest.mark.asyncio(loop_scope="session")

GAMES = 6
PAUSE_S = 0.02
DEADLINE_S = 40.0
RETRY_S = 0.05


@dataclass
class Retries:
    """Calls that got no answer from the service (cut, or refused by the proxy) and were retried."""

    proxy: int = 0
    """Failures without a scopa.dev ErrorInfo: nginx's own (502, reset stream)."""
    service: dict[str, int] = field(default_factory=dict)
    """Failures the service reported (reason -> count): drain, outcome unknown."""

    def count(self, error: grpc.aio.AioRpcError) -> None:
        """Record one failure."""
        info = error_info(error)
        if info is None or info.domain != ERROR_DOMAIN:
            self.proxy += 1
        else:
            self.service[info.reason] = self.service.get(info.reason, 0) + 1


_RETRIED_REASONS = frozenset({"SERVER_SHUTTING_DOWN", "OUTCOME_UNKNOWN", "STORAGE_UNAVAILABLE"})


def _retry(error: grpc.aio.AioRpcError) -> bool:
    """Whether the call may be sent again with the same request_id (it had no real answer)."""
    info = error_info(error)
    if info is None or info.domain != ERROR_DOMAIN:
        return True  # the balancer's own failure: the replica's answer, if any, never came
    return info.reason in _RETRIED_REASONS


async def _call(
    call: object, retries: Retries, deadline: float, *args: object, **kwargs: object
) -> object:
    """``call(*args, **kwargs)``, sent again while the service gave no answer."""
    loop = asyncio.get_running_loop()
    while True:
        try:
            return await call(*args, timeout=CALL_TIMEOUT_S, **kwargs)  # type: ignore[operator]
        except grpc.aio.AioRpcError as exc:
            if not _retry(exc) or loop.time() > deadline:
                raise
            retries.count(exc)
            await asyncio.sleep(RETRY_S)


async def _player(
    stub: AsyncStub, game: Game, ledger: Ledger, retries: Retries, deadline: float, seed: int
) -> None:
    """Play random legal moves to the end; each PlayCard keeps its request_id across retries."""
    rng = random.Random(seed)
    while True:
        view = await _view(stub, game, retries, deadline)
        if view.status == pb.GAME_STATUS_FINISHED:
            return
        move = rng.choice(list(view.legal_moves))
        rid = uuid.uuid4().hex
        request = pb.PlayCardRequest(
            name=game.name,
            card=move.card,
            capture=pb.CaptureChoice(cards=list(move.capture)),
            request_id=rid,
        )
        response = await _call(
            stub.PlayCard,
            retries,
            deadline,
            request,
            metadata=bearer_metadata(game.tokens[view.turn]),
        )
        assert isinstance(response, pb.PlayCardResponse)
        played = response.events[0]
        card = card_of(played.card_played.card)
        ledger.record_ok(game.name, played.version, view.turn, card, rid)
        await asyncio.sleep(PAUSE_S)


async def _view(stub: AsyncStub, game: Game, retries: Retries, deadline: float) -> pb.GameView:
    response = await _call(
        stub.GetState,
        retries,
        deadline,
        pb.GetStateRequest(name=game.name),
        metadata=bearer_metadata(game.tokens[0]),
    )
    assert isinstance(response, pb.GetStateResponse)
    view = response.view
    if view.status == pb.GAME_STATUS_FINISHED or view.turn == 0:
        return view
    response = await _call(
        stub.GetState,
        retries,
        deadline,
        pb.GetStateRequest(name=game.name),
        metadata=bearer_metadata(game.tokens[view.turn]),
    )
    assert isinstance(response, pb.GetStateResponse)
    return response.view


@dataclass
class RestReads:
    """What the REST reader saw through nginx's HTTP port."""

    versions: list[int] = field(default_factory=list)
    """The game's version in every 200 answer, in order."""
    refused: int = 0
    """Answers that were not 200 (the balancer's 502, the drain's 503), retried."""


async def _rest_reader(
    base_url: str, game: Game, seen: RestReads, done: asyncio.Event, deadline: float
) -> None:
    """GET /v1/games/{id} every few ms until the players are done, then once more."""
    loop = asyncio.get_running_loop()
    headers = {"authorization": f"Bearer {game.tokens[0]}"}
    async with httpx.AsyncClient(base_url=base_url, timeout=CALL_TIMEOUT_S) as http:
        while loop.time() < deadline:
            last_round = done.is_set()
            try:
                answer = await http.get(f"/v1/{game.name}", headers=headers)
            except httpx.TransportError:
                answer = None
            if answer is not None and answer.status_code == 200:
                seen.versions.append(int(answer.json()["view"]["version"]))
                if last_round:
                    return
            else:
                seen.refused += 1
            await asyncio.sleep(RETRY_S)


@dataclass
class Watched:
    """What one watcher saw: the version of every event, in order, and its reconnects."""

    versions: list[int] = field(default_factory=list)
    reconnects: int = 0
    truncated: bool = False


async def _watcher(stub: AsyncStub, name: str, seen: Watched, deadline: float) -> None:
    """Follow the game to its end, reconnecting from the last version seen after any break."""
    loop = asyncio.get_running_loop()
    last = 1  # the version CreateGame made: every later event is expected
    while True:
        call = stub.WatchGame(pb.WatchGameRequest(name=name, from_version=last))
        try:
            async for update in call:
                seen.truncated |= update.events_truncated
                # Several events may share a version; a version must not come twice.
                seen.versions.extend(sorted({event.version for event in update.events}))
                last = update.version
                if update.view.status == pb.GAME_STATUS_FINISHED:
                    return
            return
        except grpc.aio.AioRpcError:
            if loop.time() > deadline:
                raise
            seen.reconnects += 1
            await asyncio.sleep(RETRY_S)


async def _when(ledger: Ledger, moves: int, deadline: float) -> None:
    """Wait until the players have had ``moves`` moves OK'd."""
    loop = asyncio.get_running_loop()
    while ledger.moves < moves:
        assert loop.time() < deadline, f"only {ledger.moves} moves before the deadline"
        await asyncio.sleep(0.02)


async def _play_through_faults(
    nginx: Nginx, replicas: Sequence[object], games: int, rest: RestReads
) -> tuple[list[Game], Ledger, Retries, list[Watched]]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DEADLINE_S
    channel, stub = async_stub(nginx.grpc_target)
    try:
        created = [await create_game(stub, seed=100 + i) for i in range(games)]
        ledger, retries = Ledger(), Retries()
        watched = [Watched() for _ in created]
        watchers = [
            asyncio.create_task(_watcher(stub, g.name, w, deadline))
            for g, w in zip(created, watched, strict=True)
        ]
        players = [
            asyncio.create_task(_player(stub, g, ledger, retries, deadline, seed=i))
            for i, g in enumerate(created)
        ]
        done = asyncio.Event()
        reader = asyncio.create_task(
            _rest_reader(f"http://127.0.0.1:{nginx.http_port}", created[0], rest, done, deadline)
        )
        killed, drained = replicas[0], replicas[1]
        await _when(ledger, 20, deadline)
        os.kill(killed.process.pid, signal.SIGKILL)  # type: ignore[attr-defined]
        await _when(ledger, 60, deadline)
        os.kill(drained.process.pid, signal.SIGTERM)  # type: ignore[attr-defined]
        async with asyncio.timeout(DEADLINE_S):
            await asyncio.gather(*players)
            done.set()
            await asyncio.gather(*watchers, reader)
        return created, ledger, retries, watched
    finally:
        await channel.close()


async def test_no_move_is_lost_or_doubled_when_replicas_die_behind_nginx(
    start_servers: StartServers, admin: redis.Redis[bytes]
) -> None:
    """SIGKILL one and SIGTERM another of 3 replicas behind nginx: 0 moves lost or doubled."""
    system_tool("nginx")  # skipped (failed under SCOPA_REQUIRE_ALL) before any server starts
    replicas = start_servers(3)
    rest = RestReads()
    with running_nginx([r.port for r in replicas], [r.http_port for r in replicas]) as nginx:
        games, ledger, retries, watched = await _play_through_faults(nginx, replicas, GAMES, rest)
        proxy_log = nginx.error_log()
    assert replicas[0].process.wait(timeout=10) == -signal.SIGKILL
    assert replicas[1].process.wait(timeout=10) == 0, replicas[1].log_text()[-2000:]
    assert not ledger.doubled, ledger.doubled[:5]
    logged = 0
    for game in games:
        logged += audit(admin, game, ledger)  # every OK'd move once, nothing else
    assert logged == ledger.moves
    assert not ledger.unknown
    for game, seen in zip(games, watched, strict=True):
        final = max(ledger.ok[game.name])
        assert not seen.truncated, game.name
        assert seen.versions == sorted(set(seen.versions)), f"{game.name}: repeated versions"
        assert set(range(2, final + 1)) <= set(seen.versions), f"{game.name}: a gap"
    # REST through proxy_pass: reads never went back in time, and the last one saw the end.
    assert rest.versions == sorted(rest.versions), rest.versions
    assert rest.versions[-1] == max(ledger.ok[games[0].name])
    # The faults were real: calls were cut or refused and streams broke and reconnected.
    assert retries.proxy + sum(retries.service.values()) > 0, proxy_log[-2000:]
    assert sum(w.reconnects for w in watched) > 0
    print(
        f"moves={ledger.moves} retried_proxy={retries.proxy} retried_service={retries.service} "
        f"watch_reconnects={sum(w.reconnects for w in watched)} "
        f"rest_reads={len(rest.versions)} rest_refused={rest.refused}"
    )
