"""A realtime session: one seat plays a whole game over one open WebSocket connection.

Needs the ``session`` extra (``pip install 'scopa-client[session]'``: the websockets library)::

    async with await open_session("ws://localhost:8080", "games/abc", token) as session:
        print(session.view.hand)
        update = await session.act(pb.Action(play_card=session.view.legal_actions[0].play_card))
        async for update in session.updates():  # the other seats' moves, bots, clocks
            ...

The protocol (frames, subprotocols, close codes) is in docs/api.md, "Realtime sessions".
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from types import TracebackType
from typing import Final

from google.protobuf import json_format
from google.protobuf.message import Message
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from scopa_client._auth import TokenProvider, resolve_token
from scopa_client.v1 import scopa_pb2 as pb

__all__ = [
    "JSON_SUBPROTOCOL",
    "PROTO_SUBPROTOCOL",
    "SESSION_PATH",
    "Session",
    "SessionClosed",
    "SessionFailed",
    "apply_view_patch",
    "open_session",
]

SESSION_PATH: Final = "/v1/session"
PROTO_SUBPROTOCOL: Final = "scopa.v1.proto"
JSON_SUBPROTOCOL: Final = "scopa.v1.json"
_UNREADABLE: Final = 1007
"""The close code this client ends a session with when a frame cannot be read or applied
(WebSocket's "invalid frame payload data")."""


class SessionFailed(Exception):
    """The server refused a frame: its error frame (code, ErrorInfo reason, request id)."""

    def __init__(self, error: pb.SessionError) -> None:
        super().__init__(f"{error.info.reason}: {error.message}")
        self.error = error

    @property
    def reason(self) -> str:
        """The ErrorInfo reason, e.g. NOT_YOUR_TURN."""
        return self.error.info.reason


class SessionClosed(Exception):
    """The connection is closed; ``code`` is its close code (docs/api.md lists them)."""

    def __init__(self, code: int | None, error: pb.SessionError | None = None) -> None:
        reason = f" after {error.info.reason}" if error is not None else ""
        super().__init__(f"the session was closed ({code}){reason}")
        self.code = code
        self.error = error


class Session:
    """An open session: the seat's latest view, its actions, and the updates of the others."""

    def __init__(self, connection: ClientConnection, json: bool) -> None:
        self._connection = connection
        self._json = json
        self._pending: dict[str, asyncio.Future[pb.SessionUpdate]] = {}
        self._pongs: dict[str, asyncio.Future[pb.SessionPong]] = {}
        self._frames: asyncio.Queue[pb.SessionResponse | None] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None
        self._closed: SessionClosed | None = None
        self._last_error: pb.SessionError | None = None
        self.welcome = pb.SessionWelcome()
        self.view = pb.GameView()
        """The seat's latest view, whole (the welcome's, then each update's, its patch applied)."""
        self.version = 0
        """The last version received: resume from it after a reconnect."""

    async def _hello(self, name: str, token: str, last_version: int, view_patches: bool) -> None:
        hello = pb.SessionHello(
            name=name, token=token, last_version=last_version, view_patches=view_patches
        )
        await self.send(pb.SessionRequest(hello=hello))
        frame = await self._receive()
        if frame.HasField("error"):
            raise SessionFailed(frame.error)
        if not frame.HasField("welcome"):
            raise SessionClosed(None)
        self.welcome = frame.welcome
        self.view = frame.welcome.view
        self.version = frame.welcome.version
        self._reader = asyncio.create_task(self._read())

    async def send(self, frame: pb.SessionRequest) -> None:
        """Send one frame as it is (the methods below build them)."""
        if self._json:
            await self._connection.send(json_format.MessageToJson(frame, indent=None))
        else:
            await self._connection.send(frame.SerializeToString())

    async def act(
        self, action: pb.Action, request_id: str | None = None, etag: str = ""
    ) -> pb.SessionUpdate:
        """Take ``action``; the update acknowledging it once committed (SessionFailed when
        refused). Retrying with the same ``request_id`` never applies it twice."""
        rid = request_id or str(uuid.uuid4())
        waiter: asyncio.Future[pb.SessionUpdate] = asyncio.get_running_loop().create_future()
        self._pending[rid] = waiter
        try:
            self._check_open()
            frame = pb.SessionAction(request_id=rid, action=action, etag=etag)
            await self.send(pb.SessionRequest(action=frame))
            return await waiter
        finally:
            self._pending.pop(rid, None)

    async def ping(self, payload: str = "") -> pb.SessionPong:
        """An application-level round trip."""
        key = payload or str(uuid.uuid4())
        waiter: asyncio.Future[pb.SessionPong] = asyncio.get_running_loop().create_future()
        self._pongs[key] = waiter
        try:
            self._check_open()
            await self.send(pb.SessionRequest(ping=pb.SessionPing(payload=key)))
            return await waiter
        finally:
            self._pongs.pop(key, None)

    async def next_frame(self) -> pb.SessionResponse:
        """The next frame that answers none of this session's own calls: another seat's
        update, or an error about no action (SessionClosed once the connection is closed)."""
        frame = await self._frames.get()
        if frame is None:
            self._frames.put_nowait(None)
            raise self._closed or SessionClosed(None)
        return frame

    async def updates(self) -> AsyncIterator[pb.SessionUpdate]:
        """The updates of versions others made, until the game is over."""
        while True:
            frame = await self.next_frame()
            if frame.HasField("update"):
                yield frame.update
                if frame.update.view.status == pb.GAME_STATUS_FINISHED:
                    return

    async def rematch(self) -> str:
        """The name of the game's rematch ("games/..."): waits for the update whose view names
        it (after the game is over, once any seat asked for it with RematchGame). The seat's
        token acts for the same seat of the rematch: open a session on it with the same token."""
        while True:
            frame = await self.next_frame()
            if frame.HasField("update") and frame.update.view.rematch_game:
                return frame.update.view.rematch_game

    async def close(self) -> None:
        """Close the connection."""
        await self._connection.close()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    def _check_open(self) -> None:
        """SessionClosed when the reader has ended: nothing would answer a call then."""
        if self._reader is not None and self._reader.done():
            raise self._closed or SessionClosed(None)

    async def _receive(self) -> pb.SessionResponse:
        try:
            data = await self._connection.recv()
        except ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd is not None else None
            raise SessionClosed(code, self._last_error) from None
        if isinstance(data, str):
            frame = json_format.Parse(data, pb.SessionResponse(), ignore_unknown_fields=True)
        else:
            frame = pb.SessionResponse.FromString(data)
        if frame.HasField("error"):
            self._last_error = frame.error
        return frame

    async def _read(self) -> None:
        try:
            while True:
                self._route(await self._receive())
        except SessionClosed as closed:
            self._closed = closed
        except Exception as exc:  # a frame this client cannot read or apply: end the session
            self._closed = SessionClosed(_UNREADABLE, self._last_error)
            self._closed.__cause__ = exc
            with contextlib.suppress(Exception):
                await self._connection.close(_UNREADABLE, "unreadable frame")
        finally:
            closed_error = self._closed or SessionClosed(None)
            for waiter in [*self._pending.values(), *self._pongs.values()]:
                if not waiter.done():
                    waiter.set_exception(closed_error)
            self._frames.put_nowait(None)

    def _route(self, frame: pb.SessionResponse) -> None:
        kind = frame.WhichOneof("frame")
        if kind == "update":
            update = frame.update
            if update.HasField("view_patch"):
                update.view.CopyFrom(self.view)
                apply_view_patch(update.view, update.view_patch)
            if update.HasField("view"):
                self.view, self.version = update.view, update.version
            waiter = self._pending.get(update.request_id) if update.request_id else None
            if waiter is not None and not waiter.done():
                waiter.set_result(update)
                return
        elif kind == "error" and frame.error.request_id in self._pending:
            waiter = self._pending[frame.error.request_id]
            if not waiter.done():
                waiter.set_exception(SessionFailed(frame.error))
            return
        elif kind == "pong" and frame.pong.payload in self._pongs:
            pong_waiter = self._pongs[frame.pong.payload]
            if not pong_waiter.done():
                pong_waiter.set_result(frame.pong)
            return
        self._frames.put_nowait(frame)


def apply_view_patch(view: pb.GameView, patch: pb.ViewPatch) -> None:
    """Apply ``patch`` to ``view`` in place: each field named in its update mask is replaced
    by the patch's value (cleared when the patch has none); a name this copy of the API does
    not know is skipped."""
    fields = pb.GameView.DESCRIPTOR.fields_by_name
    target: Message = view  # field names as strings
    source: Message = patch.view
    for path in patch.update_mask.paths:
        field = fields.get(path)
        if field is None:
            continue
        target.ClearField(path)
        if field.is_repeated:  # a map too
            getattr(target, path).MergeFrom(getattr(source, path))
        elif field.message_type is not None:
            if source.HasField(path):
                getattr(target, path).CopyFrom(getattr(source, path))
        elif not field.has_presence or source.HasField(path):
            setattr(target, path, getattr(source, path))


async def open_session(
    url: str,
    name: str,
    token: str | TokenProvider = "",
    *,
    last_version: int = 0,
    json: bool = False,
    max_frame_bytes: int = 4 * 1024 * 1024,
    view_patches: bool = True,
) -> Session:
    """Open a session on ``name`` ("games/<id>") at ``url`` (the HTTP port, ``ws://host:8080``
    or ``wss://...``; ``/v1/session`` is added when it has no path): as the seat of ``token``
    (a spectator without one; a token provider, such as ``connect``'s, is called once for
    the hello: a signed-in player's session), resuming after ``last_version`` when set.
    ``json`` uses the JSON subprotocol (for debugging). SessionFailed when the hello is refused.

    ``view_patches`` asks the server for view patches instead of whole views after the
    welcome; either way ``Session.view`` and each update's ``view`` are the whole view (a
    patched update keeps its ``view_patch``: what changed)."""
    if url.startswith("http"):
        url = "ws" + url[4:]
    if url.rstrip("/").count("/") <= 2:
        url = url.rstrip("/") + SESSION_PATH
    subprotocol = JSON_SUBPROTOCOL if json else PROTO_SUBPROTOCOL
    connection = await connect(
        url,
        subprotocols=[Subprotocol(subprotocol)],
        max_size=max_frame_bytes,
        compression=None,
    )
    session = Session(connection, json)
    try:
        bearer = token if isinstance(token, str) else await resolve_token(token)
        await session._hello(name, bearer, last_version, view_patches)
    except BaseException:
        await connection.close()
        raise
    return session
