"""Two clients racing for one turn via two replicas: one wins, nothing is lost or doubled."""

from __future__ import annotations

import asyncio
import random

import grpc
import grpc.aio
from support.server_process import ServerProcess

from integration.aio_helpers import aio_stub, seat_view
from integration.helpers import Stub, auth, create, move_request, rid, tokens_of
from scopa_client import ERROR_DOMAIN, error_info
from scopa_client.v1 import scopa_pb2 as pb

ROUNDS = 24
LOSING = {
    (grpc.StatusCode.ABORTED, "CONCURRENT_UPDATE"),
    (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN"),
    (grpc.StatusCode.FAILED_PRECONDITION, "CARD_NOT_IN_HAND"),
}


def _loss(error: grpc.aio.AioRpcError) -> tuple[grpc.StatusCode, str]:
    info = error_info(error)
    assert info is not None and info.domain == ERROR_DOMAIN
    return error.code(), info.reason


async def test_racing_clients_never_both_win(
    replicas: tuple[ServerProcess, ServerProcess], stub: Stub
) -> None:
    """Each round exactly one of two concurrent plays wins and the event log stays contiguous."""
    rng = random.Random(99)
    created = create(stub, "scopa", 2, target=21)
    name, tokens = created.name, tokens_of(created)
    winners: list[pb.PlayCardResponse] = []
    losses: list[tuple[grpc.StatusCode, str]] = []
    async with aio_stub(replicas[0].target) as one, aio_stub(replicas[1].target) as two:
        turn = created.view.turn
        for _ in range(ROUNDS):
            current = await seat_view(one, name, tokens[turn])
            moves = list(current.legal_moves)
            picks = rng.sample(moves, 2) if len(moves) > 1 else moves * 2
            calls = [
                client.PlayCard(
                    move_request(name, move, rid()), metadata=auth(tokens[turn]), timeout=10
                )
                for client, move in zip((one, two), picks, strict=True)
            ]
            results = await asyncio.gather(*calls, return_exceptions=True)
            won = [r for r in results if isinstance(r, pb.PlayCardResponse)]
            lost = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
            assert len(won) == 1 and len(lost) == 1, results
            losses.append(_loss(lost[0]))
            winners.append(won[0])
            assert won[0].view.version == current.version + 1
            if won[0].view.status == pb.GAME_STATUS_FINISHED:
                break
            turn = won[0].view.turn
        watch = one.WatchGame(pb.WatchGameRequest(name=name, from_version=created.view.version))
        log = await asyncio.wait_for(watch.read(), timeout=10)
        watch.cancel()
    assert set(losses) <= LOSING, losses
    assert isinstance(log, pb.WatchGameResponse) and not log.events_truncated
    expected = list(range(created.view.version + 1, created.view.version + len(winners) + 1))
    assert log.version == expected[-1]
    plays = [e for e in log.events if e.HasField("card_played")]
    assert [e.version for e in plays] == expected
    assert sorted({e.version for e in log.events}) == expected
    for event, response in zip(plays, winners, strict=True):
        mine = [e.card_played for e in response.events if e.HasField("card_played")]
        assert mine == [event.card_played]
    final = stub.GetState(pb.GetStateRequest(name=name), timeout=10).view
    assert final.version == expected[-1]
    in_hands = sum(s.hand_size for s in final.seats)
    on_table = len(final.table)
    captured = sum(s.captured_count for s in final.sides)
    if final.hand_number == 1:
        assert in_hands + on_table + captured + final.stock_size == 40
