"""A replica SIGKILLed with streams open: its seat and spectator entries lapse, so the other
replica shows the seat disconnected within SCOPA_PRESENCE_TTL_S, and the seat's "left" message
reaches a stream on the surviving replica within the TTL plus a third of it (docs/api.md,
"Presence")."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import grpc
import pytest

from faults.conftest import StartServers
from faults.ledger import async_stub
from scopa_client import bearer_metadata
from scopa_client.v1 import scopa_pb2 as pb

pytestmark = pytest.mark.asyncio(loop_scope="session")

TTL_S = 1.5
SLACK_S = 1.5
"""Process scheduling and polling on a shared machine."""


async def test_a_killed_replica_leaves_no_seat_connected(start_servers: StartServers) -> None:
    doomed, survivor = start_servers(2, SCOPA_PRESENCE_TTL_S=str(TTL_S))
    doomed_channel, on_doomed = async_stub(doomed.target)
    channel, on_survivor = async_stub(survivor.target)
    try:
        created: pb.CreateGameResponse = await on_survivor.CreateGame(
            pb.CreateGameRequest(
                preset="scopa", seats=[pb.SeatSpec(display_name=f"P{i}") for i in range(2)]
            ),
            timeout=10,
        )
        name, tokens = created.name, {c.seat: c.token for c in created.credentials}
        ann = on_doomed.WatchGame(
            pb.WatchGameRequest(name=name), metadata=bearer_metadata(tokens[0])
        )
        spectator = on_doomed.WatchGame(pb.WatchGameRequest(name=name))
        await asyncio.wait_for(ann.read(), 10)
        await asyncio.wait_for(spectator.read(), 10)
        bob = on_survivor.WatchGame(
            pb.WatchGameRequest(name=name), metadata=bearer_metadata(tokens[1])
        )
        first = await asyncio.wait_for(bob.read(), 10)
        assert first.view.seats[0].connected and first.view.spectator_count == 1
        os.kill(doomed.process.pid, signal.SIGKILL)
        assert doomed.process.wait(timeout=10) == -signal.SIGKILL
        killed = time.monotonic()
        left = await asyncio.wait_for(bob.read(), TTL_S + TTL_S / 3 + SLACK_S)
        noticed = time.monotonic() - killed
        assert [(p.seat, p.connected) for p in left.presence] == [(0, False)], left
        assert left.version == first.version and not left.events
        assert noticed <= TTL_S + TTL_S / 3 + SLACK_S
        reply: pb.GetStateResponse = await on_survivor.GetState(
            pb.GetStateRequest(name=name), timeout=10
        )
        view = reply.view
        assert not view.seats[0].connected and view.seats[1].connected
        assert view.spectator_count == 0
        seen_ms = view.seats[0].last_seen_time.ToMilliseconds()
        assert time.time() * 1000 - seen_ms <= (TTL_S + noticed + SLACK_S) * 1000
        bob.cancel()
    finally:
        await channel.close()
        await doomed_channel.close(grace=None)
    with pytest.raises(grpc.aio.AioRpcError):
        await ann.read()
