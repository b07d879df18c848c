"""Presence and spectators against two real replicas on one real redis-server: a seat's
stream on one replica shows it connected on the other, its close is a "left" message; SSE and
WebSocket sessions count too; invite-only spectators; the spectator count; ListGames ACTIVE."""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Iterator
from typing import Any

import grpc
import grpc.aio
import httpx
import pytest
from support.redis_server import RedisServer
from support.server_process import ServerProcess, running_replicas

from integration.aio_helpers import aio_stub
from integration.helpers import Stub, auth, create, expect_error, stub_pair, tokens_of
from scopa_client.session import SessionFailed, open_session
from scopa_client.v1 import scopa_pb2 as pb

pytestmark = pytest.mark.asyncio(loop_scope="session")

TTL_S = 1.5
Stream = Any  # grpc.aio.UnaryStreamCall


@pytest.fixture(scope="module")
def pair(redis_server: RedisServer) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """Two replicas with a short presence TTL."""
    with running_replicas(redis_server.url, env={"SCOPA_PRESENCE_TTL_S": str(TTL_S)}) as two:
        yield two


@pytest.fixture(scope="module")
def stubs(pair: tuple[ServerProcess, ServerProcess]) -> Iterator[tuple[Stub, Stub]]:
    """A blocking stub per replica."""
    with stub_pair([r.target for r in pair]) as two:
        yield two


async def _next(stream: Stream) -> pb.WatchGameResponse:
    message = await asyncio.wait_for(stream.read(), timeout=10)
    assert message is not grpc.aio.EOF, "the stream ended early"
    assert isinstance(message, pb.WatchGameResponse)
    return message


def _state(stub: Stub, name: str, token: str | None = None) -> pb.GameView:
    metadata = auth(token) if token else ()
    reply: pb.GetStateResponse = stub.GetState(
        pb.GetStateRequest(name=name), metadata=metadata, timeout=10
    )
    return reply.view


def _until(check: Any, timeout_s: float = 10.0) -> pb.GameView:
    """Poll ``check`` (returning a view or None) until it returns a view."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = check()
        if found is not None:
            return found  # type: ignore[no-any-return]
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.1)


async def test_a_seat_watching_on_one_replica_is_connected_on_the_other(
    pair: tuple[ServerProcess, ServerProcess], stubs: tuple[Stub, Stub]
) -> None:
    """Seat 0 watches on replica A: replica B shows it connected (seat 1 never seen); seat 1
    connecting on B is a presence message on seat 0's stream (same version, no events); its
    close is a "left" one, and then it shows disconnected with its last-seen time."""
    created = create(stubs[0], "scopa", 2, target=11)
    name, tokens = created.name, tokens_of(created)
    before = _state(stubs[1], name)
    assert not before.seats[0].connected and before.seats[0].HasField("connected")
    assert not before.seats[0].HasField("last_seen_time")
    async with aio_stub(pair[0].target) as a, aio_stub(pair[1].target) as b:
        ann = a.WatchGame(pb.WatchGameRequest(name=name), metadata=auth(tokens[0]))
        first = await _next(ann)
        assert first.view.seats[0].connected and not first.presence
        seen = _state(stubs[1], name)
        assert seen.seats[0].connected and not seen.seats[1].connected
        assert abs(seen.seats[0].last_seen_time.ToMilliseconds() - time.time() * 1000) < 5000
        assert seen.version == created.view.version  # presence writes no version
        bob = b.WatchGame(pb.WatchGameRequest(name=name), metadata=auth(tokens[1]))
        await _next(bob)
        joined = await _next(ann)
        assert joined.version == first.version and not joined.events
        assert [(p.seat, p.connected) for p in joined.presence] == [(1, True)]
        assert joined.view.seats[1].connected
        bob.cancel()
        left = await _next(ann)
        assert [(p.seat, p.connected) for p in left.presence] == [(1, False)]
        assert left.presence[0].last_seen_time.ToMilliseconds() > 0
        ann.cancel()
    gone = _until(lambda: ((v := _state(stubs[0], name)).seats[0].connected is False and v) or None)
    assert not gone.seats[1].connected
    assert gone.seats[1].last_seen_time.ToMilliseconds() > 0


async def test_spectators_are_counted_from_open_streams(
    pair: tuple[ServerProcess, ServerProcess], stubs: tuple[Stub, Stub]
) -> None:
    """Each open spectator stream counts once, on any replica; a closed one no longer."""
    created = create(stubs[0], "scopa", 2, target=11)
    name = created.name
    assert _state(stubs[0], name).spectator_count == 0
    async with aio_stub(pair[0].target) as a, aio_stub(pair[1].target) as b:
        watchers = [a.WatchGame(pb.WatchGameRequest(name=name)) for _ in range(2)]
        watchers.append(b.WatchGame(pb.WatchGameRequest(name=name)))
        for watcher in watchers:
            await _next(watcher)
        assert _state(stubs[1], name).spectator_count == 3
        assert not any(s.connected for s in _state(stubs[1], name).seats)
        watchers[0].cancel()
        _until(lambda: ((v := _state(stubs[0], name)).spectator_count == 2 and v) or None)
        for watcher in watchers[1:]:
            watcher.cancel()
    _until(lambda: ((v := _state(stubs[1], name)).spectator_count == 0 and v) or None)


def _sse_open(server: ServerProcess, name: str, token: str) -> httpx.Response:
    client = httpx.Client(base_url=server.http_url, timeout=10)
    request = client.build_request(
        "GET", f"/v1/{name}:watch", headers={"Authorization": f"Bearer {token}"}
    )
    return client.send(request, stream=True)


async def test_sse_and_session_streams_count_too(
    pair: tuple[ServerProcess, ServerProcess], stubs: tuple[Stub, Stub]
) -> None:
    """A seat watching over SSE, and one on a WebSocket session, show connected on the other
    replica; the session gets the SSE seat's "left" as a presence frame."""
    created = create(stubs[0], "scopa", 2, target=11)
    name, tokens = created.name, tokens_of(created)
    sse = await asyncio.to_thread(_sse_open, pair[0], name, tokens[0])
    try:
        assert sse.status_code == 200
        _until(lambda: ((v := _state(stubs[1], name)).seats[0].connected and v) or None)
        session = await open_session(pair[1].http_url, name, tokens[1])
        try:
            assert session.view.seats[0].connected and session.view.seats[1].connected
            await asyncio.to_thread(sse.close)
            frame = await asyncio.wait_for(session.next_frame(), timeout=10)
            update = frame.update
            assert [(p.seat, p.connected) for p in update.presence] == [(0, False)]
            assert update.version == session.version and not update.events
            assert not update.view.seats[0].connected
        finally:
            await session.close()
    finally:
        await asyncio.to_thread(sse.close)
    _until(lambda: ((v := _state(stubs[0], name)).seats[1].connected is False and v) or None)


def _private(stub: Stub) -> pb.CreateGameResponse:
    request = pb.CreateGameRequest(
        preset="scopa",
        seats=[pb.SeatSpec(display_name="P0"), pb.SeatSpec(display_name="P1")],
        spectators=pb.SPECTATOR_ACCESS_INVITE_ONLY,
    )
    response: pb.CreateGameResponse = stub.CreateGame(request, timeout=10)
    return response


async def test_invite_only_spectators_need_the_spectator_token(
    pair: tuple[ServerProcess, ServerProcess], stubs: tuple[Stub, Stub]
) -> None:
    """Without the token: GetState, WatchGame and a session hello are refused with
    SPECTATOR_INVITE_REQUIRED; with it (from CreateGame, or a seat's view) they see the
    spectator view; the token acts for no seat; public games stay open to all."""
    created = _private(stubs[0])
    name, spectator = created.name, created.spectator_token
    assert spectator and created.view.spectators == pb.SPECTATOR_ACCESS_INVITE_ONLY
    assert _state(stubs[1], name, tokens_of(created)[1]).spectator_token == spectator
    for stub in stubs:
        request = pb.GetStateRequest(name=name)
        expect_error(
            functools.partial(stub.GetState, request, timeout=10),
            grpc.StatusCode.PERMISSION_DENIED,
            "SPECTATOR_INVITE_REQUIRED",
        )
    async with aio_stub(pair[1].target) as b:
        refused = b.WatchGame(pb.WatchGameRequest(name=name))
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await refused.read()
        assert error.value.code() == grpc.StatusCode.PERMISSION_DENIED
        invited = b.WatchGame(pb.WatchGameRequest(name=name), metadata=auth(spectator))
        first = await _next(invited)
        assert not first.view.HasField("seat") and not first.view.hand
        assert not first.view.spectator_token and first.view.spectator_count == 1
        invited.cancel()
    with pytest.raises(SessionFailed) as hello:
        await open_session(pair[0].http_url, name)
    assert hello.value.error.info.reason == "SPECTATOR_INVITE_REQUIRED"
    session = await open_session(pair[0].http_url, name, spectator)
    assert not session.view.HasField("seat")
    await session.close()
    seen = _state(stubs[0], name, spectator)
    assert not seen.HasField("seat") and not seen.spectator_token
    play = pb.PlayCardRequest(name=name, card=seen.table[0], request_id="r1")
    expect_error(
        lambda: stubs[0].PlayCard(play, metadata=auth(spectator), timeout=10),
        grpc.StatusCode.UNAUTHENTICATED,
        "UNAUTHENTICATED",
    )
    other = create(stubs[0], "scopa", 2)
    expect_error(
        lambda: stubs[0].GetState(
            pb.GetStateRequest(name=other.name), metadata=auth(spectator), timeout=10
        ),
        grpc.StatusCode.PERMISSION_DENIED,
        "PERMISSION_DENIED",
    )
    assert _state(stubs[0], other.name).spectators == pb.SPECTATOR_ACCESS_PUBLIC


def _public(stub: Stub, *, private: bool = False, open_seat: bool = False) -> str:
    request = pb.CreateGameRequest(
        preset="scopa",
        seats=[pb.SeatSpec(display_name="P0"), pb.SeatSpec(display_name="P1", open=open_seat)],
        public=True,
        spectators=pb.SPECTATOR_ACCESS_INVITE_ONLY if private else pb.SPECTATOR_ACCESS_PUBLIC,
    )
    created: pb.CreateGameResponse = stub.CreateGame(request, timeout=10)
    return created.name


def _active(stub: Stub, page_size: int = 100, page_token: str = "") -> pb.ListGamesResponse:
    request = pb.ListGamesRequest(
        status=pb.GAME_STATUS_ACTIVE, page_size=page_size, page_token=page_token
    )
    response: pb.ListGamesResponse = stub.ListGames(request, timeout=10)
    return response


async def test_list_games_lists_active_public_games_with_their_spectators(
    pair: tuple[ServerProcess, ServerProcess], stubs: tuple[Stub, Stub]
) -> None:
    """Public games being played (not those with invite-only spectators, nor those waiting)
    are listed with status ACTIVE, newest first, paged, each with its spectator count; a
    game that fills its last seat joins the list."""
    older, newer = _public(stubs[0]), _public(stubs[0])
    private, waiting = _public(stubs[0], private=True), _public(stubs[0], open_seat=True)
    async with aio_stub(pair[1].target) as b:
        watcher = b.WatchGame(pb.WatchGameRequest(name=older))
        await _next(watcher)
        listed = {g.name: g for g in _active(stubs[1]).games}
        watcher.cancel()
    assert {older, newer} <= set(listed) and not {private, waiting} & set(listed)
    assert listed[older].status == pb.GAME_STATUS_ACTIVE
    assert listed[older].spectator_count == 1 and listed[newer].spectator_count == 0
    names = [g.name for g in _active(stubs[1]).games]
    assert names.index(newer) < names.index(older)
    first = _active(stubs[0], page_size=1)
    second = _active(stubs[0], page_size=1, page_token=first.next_page_token)
    assert [g.name for g in [*first.games, *second.games]] == names[:2]
    stubs[0].JoinGame(pb.JoinGameRequest(name=waiting, display_name="Late"), timeout=10)
    assert waiting in {g.name for g in _active(stubs[1]).games}
    lobby = pb.ListGamesRequest(page_token=first.next_page_token)
    expect_error(
        lambda: stubs[0].ListGames(lobby, timeout=10),
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_ARGUMENT",
    )
