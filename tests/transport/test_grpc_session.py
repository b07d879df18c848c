"""Realtime sessions over gRPC (scopa.transport._grpc_session): the bidirectional Session stream
of a real server process on a real redis-server, with the WebSocket's frames."""

from __future__ import annotations

import asyncio
import signal
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import grpc
import pytest
from support.redis_server import RedisServer
from support.server_process import ServerProcess, start_server, stop_server

from scopa_client import error_info
from scopa_client.session import open_session
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc

pytestmark = pytest.mark.asyncio(loop_scope="session")

MAX_FRAME = 8192
SESSION = "/scopa.v1.GameService/Session"


@pytest.fixture(scope="module")
def server(redis_server: RedisServer) -> Iterator[ServerProcess]:
    """One replica with a small request limit, and no action rate: the games are played as
    fast as the loop goes."""
    env = {"SCOPA_MAX_REQUEST_BYTES": str(MAX_FRAME), "SCOPA_SESSION_ACTION_RATE": "off"}
    process = start_server(redis_server.url, env=env)
    try:
        yield process
    finally:
        stop_server(process)


@asynccontextmanager
async def _channel(server: ServerProcess) -> AsyncIterator[grpc.aio.Channel]:
    channel = grpc.aio.insecure_channel(server.target)
    try:
        yield channel
    finally:
        await channel.close()


async def _create(channel: grpc.aio.Channel) -> tuple[str, str, str]:
    stub = scopa_pb2_grpc.GameServiceStub(channel)
    created = await stub.CreateGame(
        pb.CreateGameRequest(
            preset="scopa",
            seats=[pb.SeatSpec(display_name="Ann"), pb.SeatSpec(display_name="Bob")],
            options={"target_score": pb.OptionValue(int_value=1)},
            request_id=uuid.uuid4().hex,
        )
    )
    tokens = {c.seat: c.token for c in created.credentials}
    return created.name, tokens[0], tokens[1]


class _Seat:
    """One seat's Session stream and the frames it has read."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self.call = scopa_pb2_grpc.GameServiceStub(channel).Session()
        self.view = pb.GameView()
        self.version = 0

    async def open(self, name: str, token: str) -> pb.SessionWelcome:
        await self.call.write(pb.SessionRequest(hello=pb.SessionHello(name=name, token=token)))
        frame = await self.read()
        assert frame.HasField("welcome"), frame
        self.view, self.version = frame.welcome.view, frame.welcome.version
        return frame.welcome

    async def read(self) -> pb.SessionResponse:
        """The next frame that is not a presence frame (the other seat's session opening)."""
        frame = await asyncio.wait_for(self.call.read(), 10)
        assert isinstance(frame, pb.SessionResponse), frame
        while frame.HasField("update") and frame.update.presence:
            frame = await asyncio.wait_for(self.call.read(), 10)
            assert isinstance(frame, pb.SessionResponse), frame
        if frame.HasField("update") and frame.update.HasField("view"):
            self.view, self.version = frame.update.view, frame.update.version
        return frame

    async def act(self, action: pb.Action, request_id: str = "") -> pb.SessionResponse:
        rid = request_id or uuid.uuid4().hex
        await self.call.write(
            pb.SessionRequest(action=pb.SessionAction(request_id=rid, action=action))
        )
        return await self.read()


async def _rest_of(call: object) -> AsyncIterator[pb.SessionResponse]:
    """The frames a stream still sends after the client half-closed it, to its end."""
    while True:
        frame = await asyncio.wait_for(call.read(), 10)  # type: ignore[attr-defined]
        if frame is grpc.aio.EOF:
            return
        yield frame


async def test_a_whole_game_over_two_grpc_sessions(server: ServerProcess) -> None:
    """Two seats play a game to its end over Session streams: each action acknowledged with its
    events and view, the other seat told of each version, once, in order."""
    async with _channel(server) as channel:
        name, ann_token, bob_token = await _create(channel)
        seats = {0: _Seat(channel), 1: _Seat(channel)}
        await seats[0].open(name, ann_token)
        await seats[1].open(name, bob_token)
        moves = 0
        while seats[0].view.status != pb.GAME_STATUS_FINISHED:
            turn = seats[0].view.turn
            actor, other = seats[turn], seats[1 - turn]
            frame = await actor.act(actor.view.legal_actions[0])
            assert frame.update.events and frame.update.request_id, frame
            told = await other.read()
            assert told.update.version == frame.update.version and not told.update.request_id
            assert told.update.view.seat == 1 - turn
            moves += 1
        assert moves >= 10 and seats[1].view.status == pb.GAME_STATUS_FINISHED
        for seat in seats.values():
            await seat.call.done_writing()
            left = [frame async for frame in _rest_of(seat.call)]  # presence frames, if any
            assert all(f.update.presence for f in left), left
            assert await seat.call.code() == grpc.StatusCode.OK


async def test_refusals_are_error_frames_and_the_stream_goes_on(server: ServerProcess) -> None:
    """Out of turn, undecodable bytes and a frame over the limit each get an error frame (the
    reason, the request id of an action); a ping is then answered."""
    async with _channel(server) as channel:
        name, _, bob_token = await _create(channel)
        raw = channel.stream_stream(
            SESSION,
            request_serializer=lambda data: data,
            response_deserializer=pb.SessionResponse.FromString,
        )
        call = raw()
        hello = pb.SessionRequest(hello=pb.SessionHello(name=name, token=bob_token))
        await call.write(hello.SerializeToString())
        welcome = (await call.read()).welcome
        move = pb.Action(play_card=pb.PlayCardAction(card=welcome.view.hand[0]))
        sent = [
            pb.SessionRequest(
                action=pb.SessionAction(request_id="early", action=move)
            ).SerializeToString(),
            b"\xff\xff\xff",
            pb.SessionRequest(ping=pb.SessionPing(payload="x" * MAX_FRAME)).SerializeToString(),
        ]
        reasons = []
        for data in sent:
            await call.write(data)
            error = (await asyncio.wait_for(call.read(), 10)).error
            reasons.append((error.info.reason, error.request_id))
        assert reasons == [
            ("NOT_YOUR_TURN", "early"),
            ("MALFORMED_REQUEST", ""),
            ("REQUEST_TOO_LARGE", ""),
        ]
        await call.write(pb.SessionRequest(ping=pb.SessionPing(payload="ok")).SerializeToString())
        assert (await asyncio.wait_for(call.read(), 10)).pong.payload == "ok"
        await call.done_writing()
        assert await call.code() == grpc.StatusCode.OK


async def test_a_refused_hello_ends_the_stream_with_its_status(server: ServerProcess) -> None:
    """A forged token: the stream ends UNAUTHENTICATED with its ErrorInfo (the status is the
    error; no error frame comes before it)."""
    async with _channel(server) as channel:
        name, _, _ = await _create(channel)
        call = scopa_pb2_grpc.GameServiceStub(channel).Session()
        await call.write(pb.SessionRequest(hello=pb.SessionHello(name=name, token="forged")))
        with pytest.raises(grpc.aio.AioRpcError) as failed:
            await asyncio.wait_for(call.read(), 10)
        assert failed.value.code() == grpc.StatusCode.UNAUTHENTICATED
        info = error_info(failed.value)
        assert info is not None and info.reason == "UNAUTHENTICATED"


async def test_the_session_cap_counts_both_ports(redis_server: RedisServer) -> None:
    """With SCOPA_SESSIONS_MAX=1 and a WebSocket session open, a gRPC Session call ends with
    RESOURCE_EXHAUSTED / TOO_MANY_SESSIONS; once it closes, the call is served."""
    replica = start_server(redis_server.url, env={"SCOPA_SESSIONS_MAX": "1"})
    try:
        async with _channel(replica) as channel:
            name, ann_token, bob_token = await _create(channel)
            ann = await open_session(replica.http_url, name, ann_token)
            # Refused as the call starts: nothing is written, since a write racing the refusal
            # fails on the client's side and can mask the server's status (INTERNAL).
            refused = _Seat(channel)
            with pytest.raises(grpc.aio.AioRpcError) as failed:
                await asyncio.wait_for(refused.call.read(), 10)
            assert failed.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            info = error_info(failed.value)
            assert info is not None and info.reason == "TOO_MANY_SESSIONS"
            await ann.close()
            for _ in range(50):
                bob = _Seat(channel)
                try:
                    welcome = await bob.open(name, bob_token)
                    break
                except grpc.aio.AioRpcError:
                    await asyncio.sleep(0.05)
            else:
                pytest.fail("no gRPC session after the WebSocket one closed")
            assert welcome.view.seat == 1
            await bob.call.done_writing()
    finally:
        stop_server(replica)


async def test_a_draining_replica_ends_its_grpc_sessions(redis_server: RedisServer) -> None:
    """SIGTERM: an open Session stream ends UNAVAILABLE / SERVER_SHUTTING_DOWN (resume on
    another replica)."""
    replica = start_server(redis_server.url)
    try:
        async with _channel(replica) as channel:
            name, ann_token, _ = await _create(channel)
            ann = _Seat(channel)
            await ann.open(name, ann_token)
            replica.process.send_signal(signal.SIGTERM)
            with pytest.raises(grpc.aio.AioRpcError) as ended:
                await asyncio.wait_for(ann.call.read(), 10)
            assert ended.value.code() == grpc.StatusCode.UNAVAILABLE
            info = error_info(ended.value)
            assert info is not None and info.reason == "SERVER_SHUTTING_DOWN"
    finally:
        stop_server(replica)
