"""Tests of scopa.transport._rest_sse: events, keep-alives and the end of an event stream."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, MutableMapping
from typing import Any

import pytest
from google.protobuf.message import Message
from support.tasks import ends_within

from scopa.transport._rest_sse import format_event, stream_events
from scopa_client.v1 import scopa_pb2 as pb

pytestmark = pytest.mark.asyncio(loop_scope="session")


def _update(version: int) -> Message:
    return pb.WatchGameResponse(version=version)


class _Client:
    """The ASGI side of one event stream: what was sent, and a disconnect when told."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.gone = asyncio.Event()

    async def receive(self) -> MutableMapping[str, Any]:
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: MutableMapping[str, Any]) -> None:
        self.sent.append(message.get("body", b""))


async def test_an_event_carries_the_version_as_its_id() -> None:
    """One event: ``id:`` the message's version, ``data:`` its JSON on one line."""
    head, data, end = format_event(_update(7)).decode().split("\n", 2)
    assert head == "id: 7" and end == "\n"
    assert data.startswith("data: ") and json.loads(data[6:])["version"] == 7


async def test_every_message_is_an_event_until_they_end() -> None:
    """The first message and each later one are sent as events, in order, then the pump ends."""

    async def updates() -> AsyncIterator[Message]:
        for version in (2, 3):
            yield _update(version)

    client = _Client()
    await asyncio.wait_for(
        stream_events(updates(), _update(1), client.receive, client.send, keepalive_s=5), 5
    )
    assert [chunk.split(b"\n")[0] for chunk in client.sent] == [b"id: 1", b"id: 2", b"id: 3"]


async def _client_leaves(
    updates: AsyncIterator[Message], keepalive_s: float, after_s: float
) -> tuple[_Client, bool]:
    """Stream ``updates`` to a client that leaves after ``after_s``; the client, and whether the
    stream then ended within 5 s."""
    client = _Client()
    streaming = asyncio.ensure_future(
        stream_events(updates, None, client.receive, client.send, keepalive_s=keepalive_s)
    )
    await asyncio.sleep(after_s)
    client.gone.set()
    return client, await ends_within(streaming)


async def test_an_idle_stream_sends_keep_alive_comments() -> None:
    """With no update for ``keepalive_s``, a comment line keeps proxies from closing it."""

    async def idle() -> AsyncIterator[Message]:
        await asyncio.sleep(3600)
        yield _update(1)

    client, ended = await _client_leaves(idle(), keepalive_s=0.02, after_s=0.1)
    assert ended
    assert client.sent and set(client.sent) == {b": keep-alive\n\n"}


async def test_a_client_gone_ends_the_stream_though_the_update_swallows_a_cancellation() -> None:
    """The client leaves while the next update swallows the first cancellation (a timed store
    read can): the stream still ends (cancelled once, it waited on for the next update)."""

    async def stubborn() -> AsyncIterator[Message]:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(3600)
        await asyncio.sleep(3600)
        yield _update(1)

    _client, ended = await _client_leaves(stubborn(), keepalive_s=5, after_s=0.05)
    assert ended, "the stream waited on for an update after its client left"
