"""Fault tests: 50 clients racing for one turn, and for one invite, across two replicas."""

from __future__ import annotations

import asyncio
import random
import uuid

import grpc
import grpc.aio
import pytest
import redis

from faults.conftest import StartServers
from faults.ledger import Ledger, async_stub, audit, card_of, create_game, logged_plays
from scopa.app import SeatJoined
from scopa_client import bearer_metadata
from scopa_client.v1 import scopa_pb2 as pb

pytestmark = pytest.mark.asyncio(loop_scope="session")

RACERS = 50


async def test_fifty_clients_race_for_one_turn(
    start_servers: StartServers, admin: redis.Redis[bytes]
) -> None:
    """Exactly one of 50 concurrent PlayCards wins; the others get a clean error."""
    servers = start_servers(2)
    channels = [async_stub(s.target) for s in servers]
    stubs = [stub for _, stub in channels]
    game = await create_game(stubs[0], seed=7)
    view: pb.GameView = (
        await stubs[0].GetState(
            pb.GetStateRequest(name=game.name), metadata=bearer_metadata(game.tokens[0])
        )
    ).view
    rng = random.Random(1)
    ledger = Ledger()

    async def racer(i: int) -> None:
        move = rng.choice(list(view.legal_moves))
        rid = uuid.uuid4().hex
        try:
            response: pb.PlayCardResponse = await stubs[i % 2].PlayCard(
                pb.PlayCardRequest(
                    name=game.name,
                    card=move.card,
                    capture=pb.CaptureChoice(cards=list(move.capture)),
                    request_id=rid,
                ),
                metadata=bearer_metadata(game.tokens[0]),
                timeout=30,
            )
        except grpc.aio.AioRpcError as exc:
            ledger.fail("PlayCard", exc)
            return
        played = response.events[0]
        ledger.record_ok(game.name, played.version, 0, card_of(played.card_played.card), rid)

    await asyncio.gather(*(racer(i) for i in range(RACERS)))
    for channel, _ in channels:
        await channel.close()
    ledger.check_errors()
    assert ledger.moves == 1 and len(ledger.failures) == RACERS - 1
    assert {(f.code, f.reason) for f in ledger.failures} <= {
        (grpc.StatusCode.ABORTED, "CONCURRENT_UPDATE"),
        (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN"),
        (grpc.StatusCode.FAILED_PRECONDITION, "CARD_NOT_IN_HAND"),
    }
    assert audit(admin, game, ledger) == 1


async def test_fifty_clients_race_for_one_invite(
    start_servers: StartServers, admin: redis.Redis[bytes]
) -> None:
    """Exactly one of 50 concurrent JoinGames with one invite gets the seat."""
    servers = start_servers(2)
    channels = [async_stub(s.target) for s in servers]
    stubs = [stub for _, stub in channels]
    created: pb.CreateGameResponse = await stubs[0].CreateGame(
        pb.CreateGameRequest(
            preset="scopa",
            seats=[pb.SeatSpec(display_name="host"), pb.SeatSpec(open=True)],
        )
    )
    code = created.invites[0].invite_code
    ledger = Ledger()
    seats: list[int] = []

    async def racer(i: int) -> None:
        try:
            joined: pb.JoinGameResponse = await stubs[i % 2].JoinGame(
                pb.JoinGameRequest(
                    name=created.name,
                    invite_code=code,
                    display_name=f"guest{i}",
                    request_id=uuid.uuid4().hex,
                ),
                timeout=30,
            )
        except grpc.aio.AioRpcError as exc:
            ledger.fail("JoinGame", exc)
            return
        seats.append(joined.seat)

    await asyncio.gather(*(racer(i) for i in range(RACERS)))
    for channel, _ in channels:
        await channel.close()
    ledger.check_errors()
    assert seats == [1]
    assert {(f.code, f.reason) for f in ledger.failures} <= {
        (grpc.StatusCode.ABORTED, "CONCURRENT_UPDATE"),
        (grpc.StatusCode.FAILED_PRECONDITION, "SEAT_TAKEN"),
    }
    joins = [e for _, e in logged_plays(admin, created.name) if isinstance(e, SeatJoined)]
    assert len(joins) == 1 and joins[0].seat == 1
