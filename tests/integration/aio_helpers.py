"""Asyncio helpers of the integration suite (aio stubs, one random legal move)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import grpc
import grpc.aio

from integration.helpers import auth, move_request, rid
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc

if TYPE_CHECKING:  # the async stub type exists only in the .pyi
    from scopa_client.v1.scopa_pb2_grpc import GameServiceAsyncStub as AioStub


@asynccontextmanager
async def aio_stub(target: str) -> AsyncIterator[AioStub]:
    """An async stub on its own channel, closed at the end of the block."""
    async with grpc.aio.insecure_channel(target) as channel:
        stub: AioStub = scopa_pb2_grpc.GameServiceStub(channel)  # type: ignore[assignment]
        yield stub


async def seat_view(stub: AioStub, name: str, token: str) -> pb.GameView:
    """GetState as the seat holding `token`."""
    reply: pb.GetStateResponse = await stub.GetState(
        pb.GetStateRequest(name=name), metadata=auth(token), timeout=10
    )
    return reply.view


async def play_random(
    stub: AioStub, name: str, tokens: dict[int, str], turn: int, rng: random.Random
) -> pb.PlayCardResponse:
    """Play one random legal move for `turn`, chosen from that seat's own view."""
    current = await seat_view(stub, name, tokens[turn])
    move = rng.choice(list(current.legal_moves))
    response: pb.PlayCardResponse = await stub.PlayCard(
        move_request(name, move, rid()), metadata=auth(tokens[turn]), timeout=10
    )
    return response
