"""WatchGame: live updates, resuming after a disconnect without gaps or duplicates, the end."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import grpc
import grpc.aio
from support.server_process import ServerProcess

from integration.aio_helpers import aio_stub, play_random
from integration.helpers import Stub, create, expect_error, tokens_of
from scopa_client.v1 import scopa_pb2 as pb

Stream = Any  # grpc.aio.UnaryStreamCall (grpc ships no type hints)


async def _next(stream: Stream) -> pb.WatchGameResponse:
    message = await asyncio.wait_for(stream.read(), timeout=10)
    assert message is not grpc.aio.EOF, "the stream ended early"
    assert isinstance(message, pb.WatchGameResponse)
    return message


async def _read_until(stream: Stream, version: int) -> list[pb.WatchGameResponse]:
    got = [await _next(stream)]
    while got[-1].version < version:
        got.append(await _next(stream))
    return got


def _event_versions(messages: list[pb.WatchGameResponse]) -> list[int]:
    return sorted({e.version for m in messages for e in m.events})


def _check_messages(messages: list[pb.WatchGameResponse], after: int) -> None:
    """Each message's events are newer than the previous message and no newer than itself."""
    last = after
    for message in messages:
        assert message.version == message.view.version > last
        assert not message.events_truncated
        assert all(last < e.version <= message.version for e in message.events)
        versions = sorted({e.version for e in message.events})
        assert versions == list(range(last + 1, message.version + 1))
        last = message.version


async def test_watch_resumes_without_gaps_and_ends_with_the_game(
    replicas: tuple[ServerProcess, ServerProcess], stub: Stub
) -> None:
    """A watcher sees every move, resumes from its last version exactly, and the stream ends."""
    rng = random.Random(7)
    created = create(stub, "scopa", 2, target=1)
    name, tokens = created.name, tokens_of(created)
    start = created.view.version
    played: dict[int, pb.PlayCardResponse] = {}
    async with aio_stub(replicas[0].target) as player, aio_stub(replicas[1].target) as watcher:

        async def play(count: int, turn: int) -> int:
            for _ in range(count):
                response = await play_random(player, name, tokens, turn, rng)
                played[response.view.version] = response
                if response.view.status == pb.GAME_STATUS_FINISHED:
                    return -1
                turn = response.view.turn
            return turn

        call = watcher.WatchGame(pb.WatchGameRequest(name=name, from_version=0), timeout=60)
        first = await _next(call)
        assert first.version == start and not first.events
        assert not first.view.hand and not first.view.HasField("seat")
        turn = await play(4, created.view.turn)
        seen = [first, *await _read_until(call, start + 4)]
        _check_messages(seen[1:], start)
        call.cancel()
        last = seen[-1].version

        turn = await play(3, turn)
        resumed = watcher.WatchGame(pb.WatchGameRequest(name=name, from_version=last), timeout=60)
        catch_up = await _next(resumed)
        assert catch_up.version == last + 3
        _check_messages([catch_up], last)
        later: list[pb.WatchGameResponse] = []

        async def drain(stream: Stream) -> None:
            while (message := await stream.read()) is not grpc.aio.EOF:
                later.append(message)

        reader = asyncio.create_task(drain(resumed))
        while turn >= 0:
            turn = await play(1, turn)
        await asyncio.wait_for(reader, timeout=20)
    messages = seen[1:] + [catch_up, *later]
    _check_messages(messages, start)
    final = messages[-1]
    assert final.view.status == pb.GAME_STATUS_FINISHED
    assert _event_versions(messages) == sorted(played)
    for version, response in played.items():
        watched = [
            e.card_played
            for m in messages
            for e in m.events
            if e.version == version and e.HasField("card_played")
        ]
        mine = [e.card_played for e in response.events if e.HasField("card_played")]
        assert watched == mine


async def test_watch_of_finished_game_sends_state_then_ends(
    replicas: tuple[ServerProcess, ServerProcess], stub: Stub
) -> None:
    """from_version 0 on a finished game sends the current state once and closes the stream."""
    created = create(stub, "scopa", 2)
    stub.ResignGame(
        pb.ResignGameRequest(name=created.name),
        metadata=(("authorization", f"Bearer {tokens_of(created)[0]}"),),
        timeout=10,
    )
    async with aio_stub(replicas[1].target) as watcher:
        call = watcher.WatchGame(pb.WatchGameRequest(name=created.name), timeout=10)
        messages = [m async for m in call]
    assert len(messages) == 1
    assert messages[0].view.status == pb.GAME_STATUS_FINISHED
    assert messages[0].version == created.view.version + 1


def test_watch_from_a_future_or_negative_version_is_invalid(stub: Stub) -> None:
    """from_version newer than the game, or negative, is INVALID_ARGUMENT naming from_version."""
    created = create(stub, "scopa", 2)
    for since in (created.view.version + 5, -1):
        request = pb.WatchGameRequest(name=created.name, from_version=since)
        expect_error(
            lambda r=request: list(stub.WatchGame(r, timeout=10)),  # type: ignore[misc]
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_ARGUMENT",
            field="from_version",
        )


async def test_cancelled_watches_do_not_harm_the_server(
    replicas: tuple[ServerProcess, ServerProcess], stub: Stub
) -> None:
    """Many clients cancelling their watch leave the replica alive and its log free of errors."""
    created = create(stub, "scopa", 2)
    replica = replicas[1]
    for _ in range(100):
        async with aio_stub(replica.target) as watcher:
            call = watcher.WatchGame(pb.WatchGameRequest(name=created.name), timeout=10)
            assert (await _next(call)).version == created.view.version
            call.cancel()
    assert replica.process.poll() is None, replica.log_text()[-2000:]
    reply = stub.GetState(pb.GetStateRequest(name=created.name), timeout=10)
    assert reply.view.version == created.view.version
    assert "Traceback" not in replica.log_text()
    assert not [r for r in replica.log_records() if r.get("level") == "error"]
