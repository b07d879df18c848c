"""Realtime sessions over a WebSocket (scopa.transport._websocket, _session and the Python
client's scopa_client.session), against a real server process on a real redis-server."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from google.protobuf import json_format
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from support.redis_server import RedisServer
from support.server_process import ServerProcess, start_server, stop_server
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Subprotocol

from scopa.app import GameCore, TokenAuthority
from scopa.storage import MemoryStore
from scopa.transport import GameCalls, HttpServer, SessionLimits, build_http_app
from scopa_client.session import (
    JSON_SUBPROTOCOL,
    PROTO_SUBPROTOCOL,
    Session,
    SessionClosed,
    SessionFailed,
    open_session,
)
from scopa_client.v1 import scopa_pb2 as pb

pytestmark = pytest.mark.asyncio(loop_scope="session")

MAX_FRAME = 8192
QUEUE = 8


async def _next_update(session: Session) -> pb.SessionResponse:
    """The session's next frame that is no presence frame (the other seat connecting)."""
    while True:
        frame = await asyncio.wait_for(session.next_frame(), 10)
        if not (frame.HasField("update") and frame.update.presence):
            return frame


@pytest.fixture(scope="module")
def server(redis_server: RedisServer) -> Iterator[ServerProcess]:
    """One replica with a small frame limit and outgoing queue, to reach both quickly, and no
    action rate: the games are played as fast as the loop goes."""
    process = start_server(
        redis_server.url,
        env={
            "SCOPA_MAX_REQUEST_BYTES": str(MAX_FRAME),
            "SCOPA_SESSION_QUEUE": str(QUEUE),
            "SCOPA_SESSION_ACTION_RATE": "off",
        },
    )
    try:
        yield process
    finally:
        stop_server(process)


def _ws_url(server: ServerProcess) -> str:
    return f"ws://127.0.0.1:{server.http_port}/v1/session"


async def _create(server: ServerProcess, target: int = 1) -> tuple[str, str, str]:
    """A two-seat scopa game over REST: its name and the two seats' tokens."""
    body = {
        "preset": "scopa",
        "seats": [{"displayName": "Ann"}, {"displayName": "Bob"}],
        "options": {"target_score": {"intValue": target}},
        "requestId": uuid.uuid4().hex,
    }
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        created = (await http.post("/v1/games", json=body)).json()
    tokens = {c["seat"]: c["token"] for c in created["credentials"]}
    return created["name"], tokens[0], tokens[1]


async def _rest_state(server: ServerProcess, name: str, token: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        reply = await http.get(f"/v1/{name}", headers={"authorization": f"Bearer {token}"})
    view: dict[str, Any] = reply.json()["view"]
    return view


async def _raw(server: ServerProcess, subprotocol: str = PROTO_SUBPROTOCOL) -> ClientConnection:
    return await connect(_ws_url(server), subprotocols=[Subprotocol(subprotocol)], compression=None)


async def _frame(ws: ClientConnection) -> pb.SessionResponse:
    data = await asyncio.wait_for(ws.recv(), 10)
    if isinstance(data, str):
        return json_format.Parse(data, pb.SessionResponse())
    return pb.SessionResponse.FromString(data)


async def _hello(ws: ClientConnection, name: str, token: str) -> pb.SessionWelcome:
    await ws.send(
        pb.SessionRequest(hello=pb.SessionHello(name=name, token=token)).SerializeToString()
    )
    frame = await _frame(ws)
    assert frame.HasField("welcome"), frame
    return frame.welcome


def _first_legal(view: pb.GameView) -> pb.Action:
    assert view.legal_actions, "the seat to play has legal actions"
    return view.legal_actions[0]


async def test_a_whole_game_over_two_sessions(server: ServerProcess) -> None:
    """Two seats play a game to its end, each on its own session: each acts when its view
    says it is its turn, and every version reaches both, in order, once."""
    name, ann_token, bob_token = await _create(server)
    ann = await open_session(server.http_url, name, ann_token)
    bob = await open_session(server.http_url, name, bob_token, json=True)
    seats = {0: ann, 1: bob}
    seen: dict[int, list[int]] = {0: [], 1: []}  # versions as each seat received them
    try:
        assert ann.view.seat == 0 and bob.view.seat == 1
        assert len(ann.view.hand) == 3 and not bob.view.legal_actions
        moves = 0
        while ann.view.status != pb.GAME_STATUS_FINISHED:
            turn = ann.view.turn
            actor, other = seats[turn], seats[1 - turn]
            update = await actor.act(_first_legal(actor.view))
            moves += 1
            assert update.events and update.view.version == update.version
            seen[turn].append(update.version)
            # The other seat gets the same version over its session (the watch's fan-out),
            # once, after every earlier one.
            frame = await _next_update(other)
            assert frame.HasField("update") and not frame.update.request_id
            assert frame.update.version == update.version
            assert [e.version for e in frame.update.events] == [e.version for e in update.events]
            seen[1 - turn].append(frame.update.version)
            # Hidden information: the seat's own hand only.
            assert frame.update.view.seat == 1 - turn
            assert len(frame.update.view.hand) == len(other.view.hand)
        assert moves >= 10
        assert bob.view.status == pb.GAME_STATUS_FINISHED and bob.view.winners
        # Each seat got every version once, in order (its own as acknowledgements).
        assert seen[0] == seen[1] == list(range(seen[0][0], seen[0][-1] + 1))
    finally:
        await ann.close()
        await bob.close()


async def test_a_refused_action_gets_an_error_frame_and_the_session_stays_open(
    server: ServerProcess,
) -> None:
    """Out of turn: an error frame with the request id, code and reason NOT_YOUR_TURN;
    nothing changes, and the same session then plays on."""
    name, ann_token, bob_token = await _create(server, target=11)
    ann = await open_session(server.http_url, name, ann_token)
    bob = await open_session(server.http_url, name, bob_token)
    try:
        move = pb.Action(play_card=pb.PlayCardAction(card=bob.view.hand[0]))
        with pytest.raises(SessionFailed) as refused:
            await bob.act(move, request_id="bob-early")
        error = refused.value.error
        assert error.request_id == "bob-early" and error.info.reason == "NOT_YOUR_TURN"
        assert error.code == 9 and error.info.domain == "scopa.dev"  # FAILED_PRECONDITION
        assert (await _rest_state(server, name, ann_token))["version"] == ann.version
        pong = await bob.ping("still-there")
        assert pong.payload == "still-there"
        played = await ann.act(_first_legal(ann.view))
        assert played.version == ann.version
        again = await bob.act(_first_legal(await _caught_up(bob, played.version)))
        assert again.version > played.version
    finally:
        await ann.close()
        await bob.close()


async def _caught_up(session: Session, version: int) -> pb.GameView:
    while session.version < version:
        await _next_update(session)
    return session.view


async def test_a_retried_request_id_is_applied_once(server: ServerProcess) -> None:
    """The same request id again (on the same session, then on a new one) acknowledges the
    first commit: the version does not move and no event is sent twice."""
    name, ann_token, _ = await _create(server, target=11)
    ann = await open_session(server.http_url, name, ann_token)
    action = _first_legal(ann.view)
    try:
        first = await ann.act(action, request_id="retry-1")
        again = await ann.act(action, request_id="retry-1")
        assert again.version == first.version and not again.events and not again.HasField("view")
    finally:
        await ann.close()
    resumed = await open_session(server.http_url, name, ann_token, last_version=first.version)
    try:
        third = await resumed.act(action, request_id="retry-1")
        assert third.version == first.version and not third.events
        assert (await _rest_state(server, name, ann_token))["version"] == first.version
    finally:
        await resumed.close()


async def test_a_move_made_over_rest_reaches_the_open_session(server: ServerProcess) -> None:
    """Seat 0 plays over REST; seat 1's open session gets the version with its events."""
    name, ann_token, bob_token = await _create(server, target=11)
    bob = await open_session(server.http_url, name, bob_token)
    try:
        view = await _rest_state(server, name, ann_token)
        action = view["legalActions"][0]
        async with httpx.AsyncClient(base_url=server.http_url) as http:
            reply = await http.post(
                f"/v1/{name}:takeAction",
                json={"action": action, "requestId": uuid.uuid4().hex},
                headers={"authorization": f"Bearer {ann_token}"},
            )
        assert reply.status_code == 200, reply.text
        version = reply.json()["view"]["version"]
        frame = await _next_update(bob)
        assert frame.update.version == version and not frame.update.request_id
        assert frame.update.events[0].WhichOneof("kind") == "card_played"
        assert frame.update.view.seat == 1 and frame.update.view.legal_actions
    finally:
        await bob.close()


async def test_an_open_session_learns_of_the_rematch_and_its_token_opens_it(
    server: ServerProcess,
) -> None:
    """Ann resigns and asks for the rematch over REST; Bob's open session gets the update
    naming it (Session.rematch), and his token opens a session on the rematch as seat 1."""
    name, ann_token, bob_token = await _create(server, target=11)
    bob = await open_session(server.http_url, name, bob_token)
    try:
        async with httpx.AsyncClient(base_url=server.http_url) as http:
            auth = {"authorization": f"Bearer {ann_token}"}
            resigned = await http.post(f"/v1/{name}:resign", json={}, headers=auth)
            assert resigned.status_code == 200, resigned.text
            reply = await http.post(f"/v1/{name}:rematch", json={}, headers=auth)
        assert reply.status_code == 200, reply.text
        rematch = await asyncio.wait_for(bob.rematch(), 10)
        assert rematch == reply.json()["game"] != name
    finally:
        await bob.close()
    again = await open_session(server.http_url, rematch, bob_token)
    try:
        assert again.view.seat == 1 and len(again.view.hand) == 3
        assert again.view.previous_game == name
    finally:
        await again.close()


async def test_garbage_and_oversized_frames_get_an_error_and_change_nothing(
    server: ServerProcess,
) -> None:
    """Bytes that are not a SessionRequest, a frame with no kind, text on the binary
    subprotocol and a frame over the limit each get an error frame; the session stays open
    and the game unchanged. A frame over four times the limit closes it with 1009."""
    name, ann_token, _ = await _create(server, target=11)
    ws = await _raw(server)
    try:
        welcome = await _hello(ws, name, ann_token)
        bad: list[bytes | str] = [b"\xff\xff\xff\xff", b"", "text on the binary subprotocol"]
        bad.append(
            pb.SessionRequest(ping=pb.SessionPing(payload="x" * MAX_FRAME)).SerializeToString()
        )
        reasons = []
        for data in bad:
            await ws.send(data)
            frame = await _frame(ws)
            assert frame.HasField("error"), frame
            reasons.append(frame.error.info.reason)
        assert reasons == ["MALFORMED_REQUEST"] * 3 + ["REQUEST_TOO_LARGE"]
        assert frame.error.info.metadata["limit_bytes"] == str(MAX_FRAME)
        await ws.send(pb.SessionRequest(ping=pb.SessionPing(payload="ok")).SerializeToString())
        assert (await _frame(ws)).pong.payload == "ok"
        assert (await _rest_state(server, name, ann_token))["version"] == welcome.version
        await ws.send(b"\x00" * (4 * MAX_FRAME + 1))
        with pytest.raises(ConnectionClosed) as closed:
            await _frame(ws)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    finally:
        await ws.close()


async def test_json_frames_and_a_garbage_json_frame(server: ServerProcess) -> None:
    """The JSON subprotocol: text frames in proto3 JSON; one that is not JSON, or not a
    SessionRequest, gets an error frame."""
    name, ann_token, _ = await _create(server, target=11)
    ws = await _raw(server, JSON_SUBPROTOCOL)
    try:
        await ws.send(json.dumps({"hello": {"name": name, "token": ann_token}}))
        welcome = json.loads(await asyncio.wait_for(ws.recv(), 10))["welcome"]
        assert welcome["view"]["seat"] == 0 and welcome["maxFrameBytes"] == MAX_FRAME
        for data in ["{not json", json.dumps({"jump": {}}), json.dumps([1])]:
            await ws.send(data)
            error = json.loads(await asyncio.wait_for(ws.recv(), 10))["error"]
            assert error["info"]["reason"] == "MALFORMED_REQUEST", error
            assert error["code"] == "INVALID_ARGUMENT"
    finally:
        await ws.close()


async def test_a_refused_hello_ends_the_session_with_its_close_code(
    server: ServerProcess,
) -> None:
    """A forged token: an error frame (UNAUTHENTICATED), then close code 4401; an unknown
    game: GAME_NOT_FOUND, 4404."""
    name, _, _ = await _create(server, target=11)
    for game, token, reason, code in [
        (name, "forged", "UNAUTHENTICATED", 4401),
        ("games/nosuchgame", "", "GAME_NOT_FOUND", 4404),
    ]:
        ws = await _raw(server)
        try:
            await ws.send(
                pb.SessionRequest(hello=pb.SessionHello(name=game, token=token)).SerializeToString()
            )
            frame = await _frame(ws)
            assert frame.error.info.reason == reason
            with pytest.raises(ConnectionClosed) as closed:
                await _frame(ws)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == code
        finally:
            await ws.close()


async def test_a_spectator_session_sees_no_hand_and_cannot_act(server: ServerProcess) -> None:
    """Without a token: the spectator view (no seat, no hand); an action is UNAUTHENTICATED
    and the session stays open."""
    name, _, _ = await _create(server, target=11)
    watcher = await open_session(server.http_url, name)
    try:
        assert not watcher.view.HasField("seat") and not watcher.view.hand
        with pytest.raises(SessionFailed) as refused:
            await watcher.act(
                pb.Action(play_card=pb.PlayCardAction(card=pb.Card(suit=pb.SUIT_COPPE, rank=1)))
            )
        assert refused.value.reason == "UNAUTHENTICATED"
        assert (await watcher.ping("p")).payload == "p"
    finally:
        await watcher.close()


async def test_without_a_known_subprotocol_the_handshake_is_refused(
    server: ServerProcess,
) -> None:
    """No scopa subprotocol offered: HTTP 400 with the Google JSON error body; another path:
    404 NOT_FOUND."""
    with pytest.raises(InvalidStatus) as refused:
        await connect(_ws_url(server), subprotocols=[Subprotocol("chat")])
    assert refused.value.response.status_code == 400
    body = json.loads(refused.value.response.body or b"{}")
    assert body["error"]["details"][0]["reason"] == "MALFORMED_REQUEST"
    elsewhere = f"ws://127.0.0.1:{server.http_port}/v1/games"
    with pytest.raises(InvalidStatus) as missing:
        await connect(elsewhere, subprotocols=[Subprotocol(PROTO_SUBPROTOCOL)])
    assert missing.value.response.status_code == 404
    body = json.loads(missing.value.response.body or b"{}")
    assert body["error"]["details"][0]["reason"] == "NOT_FOUND"


async def test_a_slow_reader_is_closed_and_the_replica_stays_responsive(
    server: ServerProcess,
) -> None:
    """A session that stops reading while pings flood it is closed with 4008 once its
    outgoing queue is full (the close frame when it can still be written, else the connection
    dropped; the server's access line says 4008 either way), not buffered for; the replica
    keeps answering others meanwhile."""
    name, ann_token, _ = await _create(server, target=11)
    reader = await connect(
        _ws_url(server),
        subprotocols=[Subprotocol(PROTO_SUBPROTOCOL)],
        compression=None,
        max_queue=1,
    )
    try:
        await _hello(reader, name, ann_token)
        payload = "p" * (MAX_FRAME - 64)
        ping = pb.SessionRequest(ping=pb.SessionPing(payload=payload)).SerializeToString()
        reader.transport.pause_reading()  # stop reading: the kernel's buffers fill up
        sent = 0

        async def flood() -> None:
            nonlocal sent
            for _ in range(2000):
                await reader.send(ping)
                sent += 1
                if reader.transport.is_closing():
                    return

        with contextlib.suppress(TimeoutError, ConnectionClosed):
            await asyncio.wait_for(flood(), 20)  # the server may stop reading: sends block
        # The replica still serves another client promptly.
        async with httpx.AsyncClient(base_url=server.http_url, timeout=5) as http:
            assert (await http.get("/v1/rulesets")).status_code == 200
        reader.transport.resume_reading()
        pongs = 0
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                await asyncio.wait_for(reader.recv(), 10)
                pongs += 1
        received = closed.value.rcvd
        assert received is None or received.code == 4008
        assert pongs < sent  # cut off, not buffered for
        for _ in range(100):
            lines = [
                r
                for r in server.log_records()
                if r.get("protocol") == "websocket" and r.get("close_code") == 4008
            ]
            if lines:
                break
            await asyncio.sleep(0.05)
        assert lines and lines[-1]["outcome"] == "RESOURCE_EXHAUSTED"
    finally:
        await reader.close()


async def test_a_resumed_session_gets_the_versions_it_missed(server: ServerProcess) -> None:
    """A session opened with last_version gets, in its welcome, the events after it (made
    meanwhile over REST) and the current view."""
    name, ann_token, bob_token = await _create(server, target=11)
    bob = await open_session(server.http_url, name, bob_token)
    left_at = bob.version
    await bob.close()
    view = await _rest_state(server, name, ann_token)
    async with httpx.AsyncClient(base_url=server.http_url) as http:
        await http.post(
            f"/v1/{name}:takeAction",
            json={"action": view["legalActions"][0], "requestId": uuid.uuid4().hex},
            headers={"authorization": f"Bearer {ann_token}"},
        )
    resumed = await open_session(server.http_url, name, bob_token, last_version=left_at)
    try:
        welcome = resumed.welcome
        assert welcome.version == left_at + 1 and welcome.view.version == welcome.version
        assert {e.version for e in welcome.events} == {left_at + 1}
        assert welcome.view.legal_actions  # bob's turn now
    finally:
        await resumed.close()


async def test_a_draining_replica_ends_its_sessions_with_4503(redis_server: RedisServer) -> None:
    """SIGTERM: each open session gets an error frame SERVER_SHUTTING_DOWN and close code
    4503 (resume on another replica) while the process drains."""
    replica = start_server(redis_server.url)
    try:
        name, ann_token, _ = await _create(replica, target=11)
        ann = await open_session(replica.http_url, name, ann_token)
        replica.process.send_signal(signal.SIGTERM)
        frame = await _next_update(ann)
        assert frame.error.info.reason == "SERVER_SHUTTING_DOWN"
        with pytest.raises(SessionClosed) as closed:
            await _next_update(ann)
        assert closed.value.code == 4503
    finally:
        stop_server(replica)


class _Probes:
    def live(self) -> bool:
        return True

    def ready(self) -> bool:
        return True


@asynccontextmanager
async def _in_process(
    limits: SessionLimits | None = None, provider: TracerProvider | None = None
) -> AsyncIterator[tuple[str, pb.CreateGameResponse]]:
    """An HTTP port in this process over a core on the memory store: its URL and a new
    two-seat game."""
    core = GameCore(MemoryStore(), TokenAuthority(b"k" * 32), tracer_provider=provider)
    calls = GameCalls(core)
    app = build_http_app(calls, _Probes(), tracer_provider=provider, session_limits=limits)
    http = HttpServer(app, "127.0.0.1", 0)
    port = await http.start()
    try:
        seats = [pb.SeatSpec(display_name="a"), pb.SeatSpec(display_name="b")]
        created = await calls.create_game(pb.CreateGameRequest(preset="scopa", seats=seats), None)
        yield f"ws://127.0.0.1:{port}", created
    finally:
        await http.stop()


async def test_a_session_and_each_action_have_a_span() -> None:
    """In process: one SERVER span per session (its close code and action count), one span
    per action under it, with the core's spans inside the action's."""
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    async with _in_process(provider=provider) as (url, created):
        token = created.credentials[0].token
        session = await open_session(url, created.name, token)
        action = _first_legal(session.view)
        await session.act(action)
        with pytest.raises(SessionFailed):
            await session.act(action)  # a new request id, and not its turn any more
        await session.close()
        for _ in range(100):
            if any(s.name == "scopa.v1.GameService/Session" for s in spans.get_finished_spans()):
                break
            await asyncio.sleep(0.02)
    finished = spans.get_finished_spans()
    [outer] = [s for s in finished if s.name == "scopa.v1.GameService/Session"]
    actions = [s for s in finished if s.name == "scopa.session.action"]
    assert outer.attributes is not None and outer.attributes["scopa.session.actions"] == 2
    assert outer.attributes["scopa.session.subprotocol"] == PROTO_SUBPROTOCOL
    assert len(actions) == 2 and all(
        a.parent and a.parent.span_id == outer.context.span_id for a in actions
    )
    assert actions[1].attributes and actions[1].attributes["scopa.reason"] == "NOT_YOUR_TURN"
    inner = {
        s.name for s in finished if s.parent and s.parent.span_id == actions[0].context.span_id
    }
    assert inner, "the core's spans nest under the action's"


async def test_a_replica_killed_mid_game_the_seat_resumes_on_another(
    redis_server: RedisServer,
) -> None:
    """Ann plays on replica A, Bob on B. A is killed (SIGKILL) right after Ann sent a move;
    Ann resumes on B from her last version and sends the move again with the same request id:
    it is applied exactly once, and both seats see the same versions, none missing."""
    env = {"SCOPA_SESSION_ACTION_RATE": "off"}
    first = start_server(redis_server.url, env=env)
    second = start_server(redis_server.url, env=env)
    try:
        name, ann_token, bob_token = await _create(second, target=11)
        ann = await open_session(first.http_url, name, ann_token)
        bob = await open_session(second.http_url, name, bob_token)
        played = await ann.act(_first_legal(ann.view))
        assert (await _next_update(bob)).update.version == played.version
        answered = await bob.act(_first_legal(bob.view))
        assert (await _next_update(ann)).update.version == answered.version
        before = ann.version
        move = pb.SessionAction(request_id="across-replicas", action=_first_legal(ann.view))
        await ann.send(pb.SessionRequest(action=move))
        first.process.kill()
        first.process.wait()
        resumed = await open_session(second.http_url, name, ann_token, last_version=before)
        try:
            assert resumed.welcome.version in (before, before + 1)
            ack = await resumed.act(move.action, request_id="across-replicas")
            assert ack.version == before + 1
            seen = {e.version for e in resumed.welcome.events} | {e.version for e in ack.events}
            assert seen == {before + 1}  # the move's events, once, whichever path brought them
            assert (await _rest_state(second, name, ann_token))["version"] == before + 1
            update = (await _next_update(bob)).update
            assert update.version == before + 1 and {e.version for e in update.events} == {
                before + 1
            }
        finally:
            await resumed.close()
            await bob.close()
            await ann.close()
    finally:
        stop_server(first)
        stop_server(second)


async def test_actions_over_the_sessions_rate_are_refused_and_it_stays_open() -> None:
    """Past its action rate, a session's action gets RATE_LIMITED with a retry delay and
    changes nothing; pings still work."""
    limits = SessionLimits(action_burst=2, action_window_s=60)
    async with _in_process(limits) as (url, created):
        tokens = {c.seat: c.token for c in created.credentials}
        ann = await open_session(url, created.name, tokens[0])
        bob = await open_session(url, created.name, tokens[1])
        try:
            await ann.act(_first_legal(ann.view))
            await _caught_up(bob, ann.version)
            await bob.act(_first_legal(bob.view))
            await _caught_up(ann, bob.version)
            version = ann.version
            action = _first_legal(ann.view)
            await ann.act(action)  # the second in the window
            with pytest.raises(SessionFailed) as over:
                await ann.act(action)  # the third: refused before the rules see it
            refused = over.value.error
            assert refused.info.reason == "RATE_LIMITED" and refused.code == 8
            assert refused.retry.retry_delay.seconds > 0
            assert (await ann.ping("after")).payload == "after"
            assert ann.version == version + 1
        finally:
            await ann.close()
            await bob.close()


async def test_a_replica_at_its_session_cap_refuses_the_handshake() -> None:
    """With SCOPA_SESSIONS_MAX sessions open, the next handshake is HTTP 429
    TOO_MANY_SESSIONS; once one closes, a new one opens."""
    async with _in_process(SessionLimits(max_sessions=1)) as (url, created):
        token = created.credentials[0].token
        first = await open_session(url, created.name, token)
        with pytest.raises(InvalidStatus) as refused:
            await open_session(url, created.name, token)
        assert refused.value.response.status_code == 429
        body = json.loads(refused.value.response.body or b"{}")
        assert body["error"]["details"][0]["reason"] == "TOO_MANY_SESSIONS"
        await first.close()
        for _ in range(50):
            try:
                second = await open_session(url, created.name, token)
                break
            except InvalidStatus:
                await asyncio.sleep(0.02)
        else:
            pytest.fail("no session opened after the first one closed")
        await second.close()


async def test_a_connection_without_a_hello_is_closed_with_hello_timeout() -> None:
    """No hello within the hello timeout: an error frame HELLO_TIMEOUT, then close 4504; a
    ping before the hello is answered, and does not extend it."""
    async with _in_process(SessionLimits(hello_timeout_s=0.5)) as (url, _):
        ws = await connect(
            f"{url}/v1/session", subprotocols=[Subprotocol(PROTO_SUBPROTOCOL)], compression=None
        )
        try:
            await ws.send(
                pb.SessionRequest(ping=pb.SessionPing(payload="early")).SerializeToString()
            )
            assert (await _frame(ws)).pong.payload == "early"
            frame = await _frame(ws)
            assert frame.error.info.reason == "HELLO_TIMEOUT" and frame.error.code == 4
            with pytest.raises(ConnectionClosed) as closed:
                await _frame(ws)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4504
        finally:
            await ws.close()
