"""View patches on realtime sessions (SessionHello.view_patches, scopa.transport._view_patch):
a patched session's views, rebuilt from its patches, are the whole views an unpatched session
gets, over a whole game, on both carriers, against a real server process on a real
redis-server."""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import grpc
import pytest
from google.protobuf import json_format
from google.protobuf.message import Message
from support.redis_server import RedisServer
from support.server_process import ServerProcess, start_server, stop_server
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol

from scopa.app import (
    CoreSettings,
    CreateGameCommand,
    GameCore,
    GameSnapshot,
    GameStatus,
    SeatSpec,
    TokenAuthority,
)
from scopa.storage import MemoryStore, Presence, SeatSeen
from scopa.transport._convert import events_to_pb, with_view
from scopa.transport._view_patch import ViewPatches
from scopa_client.session import JSON_SUBPROTOCOL, PROTO_SUBPROTOCOL, open_session
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1 import scopa_pb2_grpc

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest.fixture(scope="module")
def server(redis_server: RedisServer) -> Iterator[ServerProcess]:
    """One replica without an action rate: the games are played as fast as the loop goes."""
    process = start_server(redis_server.url, env={"SCOPA_SESSION_ACTION_RATE": "off"})
    try:
        yield process
    finally:
        stop_server(process)


@asynccontextmanager
async def _stub(server: ServerProcess) -> AsyncIterator[scopa_pb2_grpc.GameServiceStub]:
    channel = grpc.aio.insecure_channel(server.target)
    try:
        yield scopa_pb2_grpc.GameServiceStub(channel)
    finally:
        await channel.close()


async def _create(stub: scopa_pb2_grpc.GameServiceStub) -> tuple[str, dict[int, str]]:
    """A two-seat scopa game to 11 points (several hands, so hand results pile up)."""
    created = await stub.CreateGame(
        pb.CreateGameRequest(
            preset="scopa",
            seats=[pb.SeatSpec(display_name="Ann"), pb.SeatSpec(display_name="Bob")],
            request_id=uuid.uuid4().hex,
        )
    )
    return created.name, {c.seat: c.token for c in created.credentials}


def _apply(view: pb.GameView, patch: pb.ViewPatch) -> pb.GameView:
    """The view after ``patch``, as docs/api.md says to apply it (written here apart from the
    clients' own)."""
    named = set(patch.update_mask.paths)
    assert {f.name for f, _ in patch.view.ListFields()} <= named, "only named fields are set"
    assert named <= set(pb.GameView.DESCRIPTOR.fields_by_name)
    out = pb.GameView()
    out.CopyFrom(view)
    cleared: Message = out  # field names as strings
    for path in named:
        cleared.ClearField(path)
    out.MergeFrom(patch.view)
    return out


def _comparable(view: pb.GameView) -> pb.GameView:
    """``view`` without its connected seats' last_seen_time: the store's clock when each
    session's watch read the presence, which two sessions read apart."""
    out = pb.GameView()
    out.CopyFrom(view)
    for seat in out.seats:
        if seat.connected:
            seat.ClearField("last_seen_time")
    return out


@dataclass
class _Socket:
    """A session over a raw WebSocket: its latest whole view (rebuilt from patches when it
    asked for them), the last view it held at each version, and its update frames' sizes."""

    ws: ClientConnection
    patches: bool
    view: pb.GameView = field(default_factory=pb.GameView)
    at: dict[int, pb.GameView] = field(default_factory=dict)
    sizes: list[int] = field(default_factory=list)
    presence: int = 0
    """Presence frames with a view (or patch) read."""

    @classmethod
    async def open(
        cls,
        server: ServerProcess,
        name: str,
        token: str,
        patches: bool,
        json: bool = False,
        last: int = 0,
    ) -> _Socket:
        protocol = JSON_SUBPROTOCOL if json else PROTO_SUBPROTOCOL
        url = f"ws://127.0.0.1:{server.http_port}/v1/session"
        ws = await connect(url, subprotocols=[Subprotocol(protocol)], compression=None)
        socket = cls(ws, patches)
        hello = pb.SessionHello(name=name, token=token, last_version=last, view_patches=patches)
        request = pb.SessionRequest(hello=hello)
        await ws.send(json_format.MessageToJson(request) if json else request.SerializeToString())
        frame, _ = await socket._frame()
        assert frame.HasField("welcome"), frame
        assert {e.version for e in frame.welcome.events} == set(
            range(last + 1, frame.welcome.version + 1) if last else ()
        )
        socket.view = frame.welcome.view
        socket.at[frame.welcome.version] = socket.view
        return socket

    async def _frame(self) -> tuple[pb.SessionResponse, int]:
        data = await asyncio.wait_for(self.ws.recv(), 10)
        if isinstance(data, str):
            patch = json.loads(data).get("update", {}).get("viewPatch")
            if patch is not None:  # only the named fields, each as a whole view writes it
                assert set(patch["view"]) <= set(patch["updateMask"].split(",")), patch
                assert all("copy" in card for card in patch["view"].get("hand", ())), patch
            return json_format.Parse(data, pb.SessionResponse()), len(data.encode())
        return pb.SessionResponse.FromString(data), len(data)

    async def until(self, version: int) -> None:
        """Read frames until one brings a view of ``version``."""
        while True:
            frame, size = await self._frame()
            assert frame.HasField("update"), frame
            update = frame.update
            if self.patches:
                assert not update.HasField("view"), "a patched session gets no whole view"
                if not update.HasField("view_patch"):
                    continue
                self.view = _apply(self.view, update.view_patch)
            else:
                assert not update.HasField("view_patch"), "patches only when asked for"
                if not update.HasField("view"):
                    continue
                self.view = update.view
            assert self.view.version == update.version
            self.sizes.append(size)
            self.presence += bool(update.presence)
            self.at[update.version] = self.view
            if update.version >= version:
                return


async def test_patched_views_are_the_whole_views_over_a_whole_game(
    server: ServerProcess,
) -> None:
    """Each seat has a patched and an unpatched session (seat 1's over JSON frames); every move
    is made by a call, and at every version each patched session's rebuilt view is the whole
    view its twin got. The patches are much smaller than the views they stand for; a patched
    session resumed later is welcomed with the whole view."""
    async with _stub(server) as stub:
        name, tokens = await _create(stub)
        sockets = {
            (seat, patches): await _Socket.open(server, name, tokens[seat], patches, seat == 1)
            for seat in (0, 1)
            for patches in (True, False)
        }
        try:
            state = (await stub.GetState(pb.GetStateRequest(name=name))).view
            moves = 0
            while state.status != pb.GAME_STATUS_FINISHED:
                seat = state.turn
                action = sockets[seat, False].view.legal_actions[0]
                metadata = (("authorization", f"Bearer {tokens[seat]}"),)
                request = pb.TakeActionRequest(
                    name=name, action=action, request_id=uuid.uuid4().hex
                )
                state = (await stub.TakeAction(request, metadata=metadata)).view
                await asyncio.gather(*(s.until(state.version) for s in sockets.values()))
                moves += 1
            assert moves >= 40, "more than one hand"
            # seat 1 connecting: a presence frame, the patch of its seats
            assert sockets[0, True].presence == sockets[0, False].presence >= 1
            for seat in (0, 1):
                patched, whole = sockets[seat, True], sockets[seat, False]
                assert patched.at.keys() == whole.at.keys()
                assert max(whole.at) == state.version
                for version, view in whole.at.items():
                    assert _comparable(patched.at[version]) == _comparable(view), version
                ratio = sum(patched.sizes) / sum(whole.sizes)
                print(
                    f"seat {seat} ({'json' if seat else 'proto'}): {len(whole.sizes)} updates,"
                    f" {sum(whole.sizes) / len(whole.sizes):.0f} B whole,"
                    f" {sum(patched.sizes) / len(patched.sizes):.0f} B patched ({ratio:.2f})"
                )
                assert ratio < (0.45 if seat else 0.3), ratio
            assert sockets[0, True].view.hand_results and sockets[0, True].view.winners

            resumed = await _Socket.open(server, name, tokens[0], True, last=state.version - 2)
            await resumed.ws.close()
            ann = (("authorization", f"Bearer {tokens[0]}"),)
            got = (await stub.GetState(pb.GetStateRequest(name=name), metadata=ann)).view
            assert resumed.view.version == state.version and resumed.view.options
            assert _comparable(resumed.view) == _comparable(got)
        finally:
            for socket in sockets.values():
                await socket.ws.close()


async def test_a_patched_grpc_session_ends_with_the_games_state(server: ServerProcess) -> None:
    """Over the gRPC stream, seat 0 plays on a patched session (its acknowledgements bring the
    patches) while seat 1 moves by calls; the rebuilt view is GetState's."""
    async with _stub(server) as stub:
        name, tokens = await _create(stub)
        call = stub.Session()
        hello = pb.SessionHello(name=name, token=tokens[0], view_patches=True)
        await call.write(pb.SessionRequest(hello=hello))
        welcome = (await asyncio.wait_for(call.read(), 10)).welcome
        view = welcome.view
        assert view.options and view.version == welcome.version
        patched = 0
        bob = (("authorization", f"Bearer {tokens[1]}"),)
        for move in range(12):
            if view.turn == 0:
                action = pb.SessionAction(request_id=f"m{move}", action=view.legal_actions[0])
                await call.write(pb.SessionRequest(action=action))
            else:
                other = (await stub.GetState(pb.GetStateRequest(name=name), metadata=bob)).view
                request = pb.TakeActionRequest(
                    name=name, action=other.legal_actions[0], request_id=f"c{move}"
                )
                await stub.TakeAction(request, metadata=bob)
            target = view.version + 1
            while view.version < target:
                update = (await asyncio.wait_for(call.read(), 10)).update
                assert not update.HasField("view"), update
                if update.HasField("view_patch"):
                    view = _apply(view, update.view_patch)
                    assert view.version == update.version
                    patched += 1
        assert patched >= 12
        ann = (("authorization", f"Bearer {tokens[0]}"),)
        got = (await stub.GetState(pb.GetStateRequest(name=name), metadata=ann)).view
        assert _comparable(view) == _comparable(got)
        await call.done_writing()


async def test_the_python_client_plays_a_game_through_patches(server: ServerProcess) -> None:
    """Two seats play a whole game over the Python client (seat 1 over JSON frames), which asks
    for patches: every update it hands out holds the whole view and the patch it came as, and
    each seat's view at the end is GetState's. A client that asks for none gets whole views."""
    async with _stub(server) as stub:
        name, tokens = await _create(stub)
        seats = {
            seat: await open_session(server.http_url, name, tokens[seat], json=seat == 1)
            for seat in (0, 1)
        }
        whole = await open_session(server.http_url, name, tokens[0], view_patches=False)
        try:
            while seats[0].view.status != pb.GAME_STATUS_FINISHED:
                actor = seats[seats[0].view.turn]
                update = await actor.act(actor.view.legal_actions[0])
                assert (
                    update.HasField("view_patch")
                    and "version" in update.view_patch.update_mask.paths
                )
                assert update.view.version == update.version and update.view.options
                assert actor.view is update.view
                for session in seats.values():  # the other seat's news of the same version
                    while session.version < update.version:
                        await asyncio.wait_for(session.next_frame(), 10)
            async for news in whole.updates():
                assert news.HasField("view") and not news.HasField("view_patch")
            for seat, session in seats.items():
                token = (("authorization", f"Bearer {tokens[seat]}"),)
                got = (await stub.GetState(pb.GetStateRequest(name=name), metadata=token)).view
                assert _comparable(session.view) == _comparable(got), seat
            assert _comparable(whole.view) == _comparable(seats[0].view)
        finally:
            for session in [*seats.values(), whole]:
                await session.close()


async def test_patches_rebuild_every_view_of_a_clocked_game_with_presence_in_process() -> None:
    """In process, over a whole game with a turn clock (its deadline moves, then goes when the
    game ends), presence shown on some versions, and last events given both as messages and
    as wire bytes: applying each patch to the view before gives the whole view."""

    async def versions() -> list[GameSnapshot]:
        core = GameCore(MemoryStore(), TokenAuthority(b"k" * 32), CoreSettings(), random.Random(3))
        seats = [SeatSpec("ann"), SeatSpec("bob")]
        command = CreateGameCommand("scopa", {"target_score": 1}, seats, turn_timeout_s=30)
        created = await core.create_game(command)
        tokens, rng = dict(created.tokens), random.Random(4)
        shown = [await core.get_state(created.game_id, tokens[0])]
        while shown[-1].status is GameStatus.ACTIVE:
            turn = shown[-1].view.turn
            actions = (await core.get_state(created.game_id, tokens[turn])).view.legal_actions
            await core.take_action(created.game_id, tokens[turn], rng.choice(actions))
            shown.append(await core.get_state(created.game_id, tokens[0]))
        return shown

    snapshots = await versions()
    seen = Presence(1_700_000_000_000, {0: SeatSeen(True, 1_700_000_000_000)}, spectators=1)
    patches = ViewPatches()
    first = snapshots[0]
    bare = with_view(pb.SessionWelcome, first, options=False, results=False).view
    patches.sent_whole(bare, first)
    view = with_view(pb.SessionWelcome, first).view
    for i, version in enumerate(snapshots[1:]):
        snapshot = version.with_presence(seen) if i % 3 == 1 else version
        encoded = None
        if i % 2:
            encoded = [e.SerializeToString() for e in events_to_pb(snapshot.last_events)]
        update = pb.SessionUpdate.FromString(patches.patch(snapshot, encoded))
        view = _apply(view, update.view_patch)
        assert view == with_view(pb.SessionWelcome, snapshot).view, snapshot.version
    assert len(snapshots) > 30 and not view.HasField("turn_deadline") and view.hand_results
