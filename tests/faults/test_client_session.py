"""The Python client's session (scopa_client.session) facing a server that sends a frame it
cannot read: the session ends, closing the connection with 1007, and a call made afterwards
fails at once instead of waiting for an answer no one will route."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.typing import Subprotocol

from scopa_client.session import SessionClosed, open_session
from scopa_client.v1 import scopa_pb2 as pb

pytestmark = pytest.mark.asyncio(loop_scope="session")


class _Garbler:
    """A session endpoint that welcomes, then sends bytes that are no SessionResponse."""

    def __init__(self) -> None:
        self.close_code: int | None = None
        self.garbled = asyncio.Event()

    async def handle(self, connection: ServerConnection) -> None:
        await connection.recv()  # the hello
        welcome = pb.SessionWelcome(version=3, view=pb.GameView(name="games/g", version=3))
        await connection.send(pb.SessionResponse(welcome=welcome).SerializeToString())
        await connection.send(b"\xff\xff\xff\xff\xff")  # a tag whose varint never ends
        self.garbled.set()
        try:
            async for _ in connection:
                pass
        finally:
            self.close_code = connection.close_code


@asynccontextmanager
async def _garbler() -> AsyncIterator[tuple[_Garbler, str]]:
    endpoint = _Garbler()
    server: Server = await serve(
        endpoint.handle, "127.0.0.1", 0, subprotocols=[Subprotocol("scopa.v1.proto")]
    )
    port = next(iter(server.sockets)).getsockname()[1]
    async with server:
        yield endpoint, f"ws://127.0.0.1:{port}"


async def test_an_unreadable_frame_ends_the_session_and_a_later_call_fails_at_once() -> None:
    async with _garbler() as (endpoint, url):
        await _check(endpoint, url)


async def _check(endpoint: _Garbler, url: str) -> None:
    session = await open_session(url, "games/g", "t")
    assert session.version == 3
    await asyncio.wait_for(endpoint.garbled.wait(), 5)
    with pytest.raises(SessionClosed) as closed:
        await asyncio.wait_for(session.next_frame(), 5)
    assert closed.value.code == 1007
    play = pb.Action(play_card=pb.PlayCardAction())
    with pytest.raises(SessionClosed):
        await asyncio.wait_for(session.act(play), 5)
    with pytest.raises(SessionClosed):
        await asyncio.wait_for(session.ping(), 5)
    await session.close()
    for _ in range(50):
        if endpoint.close_code is not None:
            break
        await asyncio.sleep(0.05)
    assert endpoint.close_code == 1007
