"""Tests of scopa.transport._session: a session's frames over an in-process core, in the orders
a network rarely shows (another version committed between the session's last frame and its
own action, the watch's news of the session's own action)."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from scopa._tasks import cancel_all
from scopa.app import CoreSettings, GameCore, InvalidArgument, TokenAuthority
from scopa.storage import MemoryStore
from scopa.transport._calls import GameCalls
from scopa.transport._rest_json import dumps
from scopa.transport._session import Frame, Session, SessionNotOpen
from scopa_client.v1 import scopa_pb2 as pb

pytestmark = pytest.mark.asyncio(loop_scope="session")


class _Frames:
    """What a session emitted, in order, and a way to wait for the next one."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[pb.SessionResponse] = asyncio.Queue()

    def emit(self, frame: Frame) -> None:
        self.queue.put_nowait(frame.response())

    async def next(self) -> pb.SessionResponse:
        return await asyncio.wait_for(self.queue.get(), 5)


async def _game() -> tuple[GameCore, GameCalls, str, dict[int, str]]:
    core = GameCore(MemoryStore(), TokenAuthority(b"k" * 32), CoreSettings(), rng=random.Random(3))
    calls = GameCalls(core)
    seats = [pb.SeatSpec(display_name="a"), pb.SeatSpec(display_name="b")]
    created = await calls.create_game(pb.CreateGameRequest(preset="scopa", seats=seats), None)
    return core, calls, created.name, {c.seat: c.token for c in created.credentials}


async def _play_first(calls: GameCalls, name: str, token: str) -> pb.TakeActionResponse:
    view = (await calls.get_state(pb.GetStateRequest(name=name), token)).view
    request = pb.TakeActionRequest(
        name=name, action=view.legal_actions[0], request_id=f"r{view.version}"
    )
    return await calls.take_action(request, token)


async def test_an_action_after_versions_not_yet_delivered_is_only_acknowledged() -> None:
    """Two versions land between the welcome and the session's own action: the action gets an
    acknowledgement only, and the watch's update then brings all three versions' events, in
    order, with the view: nothing missed, nothing twice."""
    core, calls, name, tokens = await _game()
    frames = _Frames()
    session = Session(core, frames.emit, "", 65_536)
    await session.hello(pb.SessionHello(name=name, token=tokens[0]))
    start = (await frames.next()).welcome.version
    await _play_first(calls, name, tokens[0])
    await _play_first(calls, name, tokens[1])
    view = (await calls.get_state(pb.GetStateRequest(name=name), tokens[0])).view
    await session.act(pb.SessionAction(request_id="mine", action=view.legal_actions[0]))
    ack = (await frames.next()).update
    assert ack.request_id == "mine" and ack.version == start + 3
    assert not ack.events and not ack.HasField("view")
    follower = asyncio.ensure_future(session.follow())
    try:
        update = (await frames.next()).update
        assert update.request_id == "" and update.version == start + 3
        assert [e.version for e in update.events] == [start + 1, start + 2, start + 3]
        assert update.view.version == start + 3 and session.delivered == start + 3
    finally:
        await cancel_all(follower)
        await session.close()


async def test_the_watch_does_not_repeat_the_sessions_own_version() -> None:
    """The session's action is sent with its events; the watch's news of that version is
    dropped, so the next frame is the opponent's version."""
    core, calls, name, tokens = await _game()
    frames = _Frames()
    session = Session(core, frames.emit, "", 65_536)
    await session.hello(pb.SessionHello(name=name, token=tokens[0]))
    welcome = (await frames.next()).welcome
    follower = asyncio.ensure_future(session.follow())
    try:
        action = welcome.view.legal_actions[0]
        await session.act(pb.SessionAction(request_id="one", action=action))
        mine = (await frames.next()).update
        assert mine.request_id == "one" and mine.events and mine.version == welcome.version + 1
        await asyncio.sleep(0.05)  # the watch reads the game at that version
        theirs = await _play_first(calls, name, tokens[1])
        update = (await frames.next()).update
        assert update.version == theirs.view.version == mine.version + 1
        assert {e.version for e in update.events} == {update.version}
    finally:
        await cancel_all(follower)
        await session.close()


async def test_frames_before_the_hello_and_actions_without_a_request_id_are_refused() -> None:
    """An action before the hello, a second hello and an action without a request_id raise
    (the carrier turns them into error frames); a last_version past the game names
    last_version."""
    core, _, name, tokens = await _game()
    session = Session(core, _Frames().emit, "", 65_536)
    action = pb.SessionAction(request_id="x", action=pb.Action())
    with pytest.raises(SessionNotOpen):
        await session.act(action)
    with pytest.raises(InvalidArgument) as past:
        await session.hello(pb.SessionHello(name=name, token=tokens[0], last_version=99))
    assert past.value.field == "last_version" and "last_version" in past.value.message
    await session.hello(pb.SessionHello(name=name, token=tokens[0]))
    try:
        with pytest.raises(SessionNotOpen):
            await session.hello(pb.SessionHello(name=name, token=tokens[0]))
        with pytest.raises(InvalidArgument) as missing:
            await session.act(pb.SessionAction(action=pb.Action()))
        assert missing.value.field == "request_id"
    finally:
        await session.close()


async def test_a_frame_is_written_as_the_response_it_stands_for() -> None:
    """A frame's bytes and JSON are the SessionResponse's with its member set (and the view's
    options, left to the tail, merged back in), for a view's options map too."""
    core, calls, name, tokens = await _game()
    frames: list[Frame] = []
    session = Session(core, frames.append, "", 65_536)
    await session.hello(pb.SessionHello(name=name, token=tokens[0]))
    session.ping(pb.SessionPing(payload="p" * 200))
    try:
        state = (await calls.get_state(pb.GetStateRequest(name=name), tokens[0])).view
        for frame in frames:
            whole = frame.response()
            assert whole.WhichOneof("frame") == frame.kind
            # The tail's view fields come after the rest: the same message, not the same bytes.
            assert pb.SessionResponse.FromString(whole.SerializeToString()) == whole
            assert json.loads(frame.json()) == json.loads(dumps(whole))
        welcome = frames[0].response().welcome
        assert dict(welcome.view.options) == dict(state.options) and len(welcome.view.options) > 50
        assert welcome.view.deck_size == 40 and welcome.view.hand == state.hand
        assert frames[1].response().pong.payload == "p" * 200  # a length over one varint byte
    finally:
        await session.close()


async def test_a_session_on_a_finished_game_gets_its_rematch_then_stops_following() -> None:
    """The game ends (a resignation): the session keeps following, and the version linking
    the rematch reaches it as an update whose view names the rematch; then it follows no more."""
    core, calls, name, tokens = await _game()
    frames = _Frames()
    session = Session(core, frames.emit, "", 65_536)
    await session.hello(pb.SessionHello(name=name, token=tokens[1]))
    await frames.next()  # the welcome
    follower = asyncio.ensure_future(session.follow())
    try:
        await calls.resign_game(pb.ResignGameRequest(name=name), tokens[0])
        finished = (await frames.next()).update
        assert finished.view.status == pb.GAME_STATUS_FINISHED and not finished.view.rematch_game
        await asyncio.sleep(0.05)
        assert not follower.done()
        asked = await calls.rematch_game(pb.RematchGameRequest(name=name), tokens[0])
        linked = (await frames.next()).update
        assert linked.version == finished.version + 1 and not linked.events
        assert linked.view.rematch_game == asked.game and linked.view.seat == 1
        await asyncio.wait_for(follower, 5)
    finally:
        await cancel_all(follower)


async def test_an_updates_events_are_its_views_last_events_in_bytes_and_json() -> None:
    """An update's events (and its view's last events, the same ones) are appended to its
    message as wire bytes: the response, its bytes and its JSON hold them once each, equal to
    what GetState shows at that version."""
    core, calls, name, tokens = await _game()
    frames: list[Frame] = []
    session = Session(core, frames.append, "", 65_536)
    await session.hello(pb.SessionHello(name=name, token=tokens[0]))
    try:
        welcome = frames[0].response().welcome
        seat = welcome.view.turn
        if seat != 0:
            await _play_first(calls, name, tokens[seat])
            frames.clear()
            session.delivered = welcome.version + 1  # as if the watch had delivered it
        view = (await calls.get_state(pb.GetStateRequest(name=name), tokens[0])).view
        await session.act(pb.SessionAction(request_id="one", action=view.legal_actions[0]))
        frame = frames[-1]
        update = frame.response().update
        state = (await calls.get_state(pb.GetStateRequest(name=name), tokens[0])).view
        assert update.request_id == "one" and update.version == state.version
        assert update.events and list(update.events) == list(state.last_events)
        assert list(update.view.last_events) == list(state.last_events)
        assert update.view.hand == state.hand and dict(update.view.options) == dict(state.options)
        whole = frame.response()
        assert json.loads(frame.json()) == json.loads(dumps(whole))
        assert len(json.loads(frame.json())["update"]["events"]) == len(update.events)
    finally:
        await session.close()
