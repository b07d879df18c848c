"""Realtime sessions over a WebSocket: the ``/v1/session`` endpoint of the HTTP port.

A thin carrier for :class:`._session.Session`: it negotiates the subprotocol, reads frames
(bounded in size; one that is not a SessionRequest gets an error frame and changes nothing),
writes frames through a bounded queue (a reader that falls that far behind is closed, not
buffered for), and ends the connection with a documented close code. uvicorn's WebSocket
protocol (the ``websockets`` library) does the framing and the pings.

Subprotocols: ``scopa.v1.proto`` (one binary message per frame, the protobuf wire format) and
``scopa.v1.json`` (one text message per frame, proto3 JSON). Close codes: 1000 when the client
closes; 4000 + the HTTP status of the error that ended the session, sent just before in an
error frame (4401 UNAUTHENTICATED, 4404 GAME_NOT_FOUND, 4503 SERVER_SHUTTING_DOWN, 4504
HELLO_TIMEOUT, ...); :data:`CLOSE_SLOW_READER`; and the library's own: 1009 for a message over
four times the frame limit, 1011 for a ping unanswered.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from typing import Any, Final

import grpc
from google.protobuf import json_format
from google.protobuf.message import DecodeError
from opentelemetry import propagate, trace
from opentelemetry.trace import SpanKind, Status, StatusCode, TracerProvider

from scopa._spans import LeafSpans
from scopa._tasks import cancel_all
from scopa.app import GameCore, RateLimited
from scopa.telemetry import get_logger
from scopa.telemetry._semconv import RPC_METHOD, RPC_SYSTEM_NAME
from scopa.transport._errors import (
    MalformedRequest,
    RequestTooLarge,
    ServerShuttingDown,
    http_status,
    register,
    to_http_error,
    to_session_error,
)
from scopa_client.v1 import scopa_pb2 as pb

from ._http_errors import RouteNotFound
from ._http_guard import HttpGuard
from ._http_server import ABORT_EXTENSION, SEND_NOW_EXTENSION
from ._http_telemetry import (
    Receive,
    Scope,
    Send,
    map_error,
    peer_attributes,
    peer_name,
    trace_carrier,
)
from ._json_parse import DECODER, from_json_dict
from ._session import SESSION_METHOD, Frame, Session, SessionSlots, TooManySessions

__all__ = [
    "CLOSE_SLOW_READER",
    "JSON_SUBPROTOCOL",
    "PROTO_SUBPROTOCOL",
    "SESSION_PATH",
    "ActionWindow",
    "HelloTimeout",
    "SessionLimits",
    "WebSocketSessions",
    "close_code",
]

SESSION_PATH: Final = "/v1/session"
PROTO_SUBPROTOCOL: Final = "scopa.v1.proto"
JSON_SUBPROTOCOL: Final = "scopa.v1.json"
SUBPROTOCOLS: Final = (PROTO_SUBPROTOCOL, JSON_SUBPROTOCOL)

CLOSE_NORMAL: Final = 1000
CLOSE_SLOW_READER: Final = 4008
"""The session's outgoing queue was full: the client reads more slowly than the game moves.
Reconnect and resume with the last version received."""
_CLOSE_ERROR_BASE: Final = 4000
_HELLO_SPAN: Final = "scopa.session.hello"
_ACTION_SPAN: Final = "scopa.session.action"
_SLOW_CLOSE_S: Final = 1.0
"""How long a slow reader's close may wait to be written before the connection is dropped."""


class HelloTimeout(Exception):
    """No hello within the session's hello timeout."""

    reason = "HELLO_TIMEOUT"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


register(HelloTimeout, grpc.StatusCode.DEADLINE_EXCEEDED)


def close_code(exc: BaseException) -> int:
    """The close code of a session ended by ``exc``: 4000 + its HTTP status."""
    return _CLOSE_ERROR_BASE + http_status(map_error(exc))


@dataclass(frozen=True)
class SessionLimits:
    """Bounds of one session."""

    max_frame_bytes: int = 65_536
    """Frames read; REQUEST_TOO_LARGE above (the server's WebSocket limit is 4x, then 1009)."""
    queue_frames: int = 64
    """Frames waiting to be written; one more closes the session (CLOSE_SLOW_READER)."""
    hello_timeout_s: float = 10.0
    """The hello must come this soon after the connection opens."""
    max_sessions: int = 10_000
    """Open sessions on this replica; a handshake beyond is refused (TOO_MANY_SESSIONS)."""
    action_burst: int = 20
    """Actions one session may take per ``action_window_s`` (0: no limit); more are refused
    with RATE_LIMITED and the session stays open."""
    action_window_s: float = 1.0


class ActionWindow:
    """A moving window of one session's recent actions."""

    def __init__(self, burst: int, window_s: float) -> None:
        self._burst = burst
        self._window_s = window_s
        self._times: deque[float] = deque(maxlen=max(1, burst))

    def take(self) -> None:
        """Count one action, or raise RateLimited when the window is full."""
        if self._burst <= 0:
            return
        now = time.monotonic()
        if len(self._times) == self._burst and now - self._times[0] < self._window_s:
            wait = self._window_s - (now - self._times[0])
            raise RateLimited(
                f"at most {self._burst} actions per {self._window_s:g} s on a session",
                retry_after_s=round(wait, 3),
            )
        self._times.append(now)


class _SlowReader(Exception):
    """The outgoing queue is full."""


class _Frames:
    """A subprotocol's encoding of frames."""

    def __init__(self, subprotocol: str) -> None:
        self.binary = subprotocol == PROTO_SUBPROTOCOL

    def encode(self, frame: Frame) -> dict[str, Any]:
        """The ASGI send message of one frame."""
        if self.binary:
            return {"type": "websocket.send", "bytes": frame.wire()}
        return {"type": "websocket.send", "text": frame.json()}

    def data(self, frame: Frame) -> bytes | str:
        """One frame's message: bytes (binary) or str (text)."""
        return frame.wire() if self.binary else frame.json()

    def decode(self, message: MutableMapping[str, Any], limit: int) -> pb.SessionRequest:
        """One received message as a SessionRequest (MalformedRequest, RequestTooLarge)."""
        data: bytes | str | None = message.get("bytes") if self.binary else message.get("text")
        if data is None:
            kind = "binary" if self.binary else "text"
            raise MalformedRequest(f"this subprotocol's frames are {kind} messages")
        size = len(data) if isinstance(data, bytes) else len(data.encode())
        if size > limit:
            raise RequestTooLarge(
                f"the frame is over the limit of {limit} bytes",
                metadata={"limit_bytes": str(limit)},
            )
        try:
            if isinstance(data, bytes):
                request = pb.SessionRequest.FromString(data)
            else:
                request = from_json_dict(DECODER.decode(data), pb.SessionRequest)
        except (DecodeError, json_format.ParseError, json.JSONDecodeError, RecursionError) as exc:
            raise MalformedRequest(f"the frame is not a SessionRequest: {exc}") from None
        except (TypeError, ValueError, AttributeError):
            raise MalformedRequest("the frame is not a SessionRequest") from None
        if request.WhichOneof("frame") is None:
            raise MalformedRequest("the frame sets no kind (hello, action or ping)")
        return request


class WebSocketSessions:
    """The ASGI application of ``/v1/session`` (WebSocket scopes only)."""

    def __init__(
        self,
        core: GameCore,
        limits: SessionLimits,
        guard: HttpGuard | None = None,
        tracer_provider: TracerProvider | None = None,
        slots: SessionSlots | None = None,
    ) -> None:
        """``slots``: the replica's count of sessions, shared with the gRPC carrier (by
        default this carrier's own, capped at ``limits.max_sessions``)."""
        self._core = core
        self._limits = limits
        self._guard = guard
        self._slots = slots or SessionSlots(limits.max_sessions)
        self._tracer = trace.get_tracer("scopa.server", tracer_provider=tracer_provider)
        self._log = get_logger("scopa.access")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one WebSocket connection, from the handshake to the close."""
        if (await receive())["type"] != "websocket.connect":
            return
        offered = scope.get("subprotocols") or []
        chosen = next((p for p in offered if p in SUBPROTOCOLS), None)
        if scope["path"] != SESSION_PATH:
            await _refuse(send, RouteNotFound(f"no WebSocket endpoint at {scope['path']}"))
            return
        if chosen is None:
            wanted = f"offer the subprotocol {PROTO_SUBPROTOCOL} or {JSON_SUBPROTOCOL}"
            await _refuse(send, MalformedRequest(wanted))
            return
        try:
            self._slots.take()
        except TooManySessions as exc:
            await _refuse(send, exc)
            return
        client = self._guard.client_of(scope) if self._guard is not None else ""
        connection = _Connection(
            self._core, self._limits, scope, receive, send, chosen, client, self._tracer
        )
        attributes: dict[str, str | int] = {
            RPC_SYSTEM_NAME: "scopa.session",
            RPC_METHOD: SESSION_METHOD.lstrip("/"),
            "scopa.session.subprotocol": chosen,
            **peer_attributes(scope),
        }
        start = time.perf_counter()
        with self._tracer.start_as_current_span(
            SESSION_METHOD.lstrip("/"),
            context=propagate.extract(trace_carrier(scope)),
            kind=SpanKind.SERVER,
            attributes=attributes,
        ) as span:
            try:
                await self._serve(connection, scope)
            finally:
                self._slots.give_back()
                span.set_attribute("scopa.session.close_code", connection.close_code)
                span.set_attribute("scopa.session.actions", connection.actions)
                if connection.fault:
                    span.set_status(Status(StatusCode.ERROR))
                self._log.info(
                    "rpc",
                    rpc_method=SESSION_METHOD,
                    outcome=connection.outcome,
                    duration_ms=round((time.perf_counter() - start) * 1000, 3),
                    peer=peer_name(scope),
                    protocol="websocket",
                    close_code=connection.close_code,
                    actions=connection.actions,
                )

    async def _serve(self, connection: _Connection, scope: Scope) -> None:
        if self._guard is None:
            await connection.run()
            return
        try:
            async with self._guard.stream(scope, SESSION_METHOD):
                await connection.run()
        except ServerShuttingDown as exc:
            await connection.end_with(exc)


async def _refuse(send: Send, exc: Exception) -> None:
    """Answer the handshake with an HTTP error (Google's JSON error shape)."""
    status, body = to_http_error(map_error(exc))
    payload = json.dumps(body, separators=(",", ":")).encode()
    await send(
        {
            "type": "websocket.http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "websocket.http.response.body", "body": payload})


class _Connection:
    """One open WebSocket: a reader, a writer and the task that follows the game."""

    def __init__(
        self,
        core: GameCore,
        limits: SessionLimits,
        scope: Scope,
        receive: Receive,
        send: Send,
        subprotocol: str,
        client: str,
        tracer: trace.Tracer,
    ) -> None:
        self._tracer = tracer
        self._spans = LeafSpans(tracer)
        self.close_code = 0
        """The close code sent (0: none, the client left first or the connection dropped)."""
        self.outcome = "OK"
        """How the session ended, as a gRPC code name (the access log's ``outcome``)."""
        self.fault = False
        self.actions = 0
        self._window = ActionWindow(limits.action_burst, limits.action_window_s)
        self._limits = limits
        self._scope = scope
        self._receive = receive
        self._send = send
        self._subprotocol = subprotocol
        self._frames = _Frames(subprotocol)
        self._queue: asyncio.Queue[Frame | None] = asyncio.Queue()
        self._send_now: Callable[[bytes | str], bool] | None = scope.get("extensions", {}).get(
            SEND_NOW_EXTENSION
        )
        self._writing = False
        """The writer holds a frame it has not finished sending."""
        self._session = Session(core, self._emit, client, limits.max_frame_bytes)
        self._ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        """Done when the session is over: a result when the client left, an exception when an
        error (or a slow reader) ends it."""
        self._follower: asyncio.Future[None] | None = None
        self._accepted = False
        self._closed = False

    async def run(self) -> None:
        """Accept, serve until the client leaves or the session ends, then close."""
        await self._send({"type": "websocket.accept", "subprotocol": self._subprotocol})
        self._accepted = True
        writer = asyncio.ensure_future(self._write())
        reader = asyncio.ensure_future(self._read())
        error: Exception | None = None
        try:
            await self._ended
        except asyncio.CancelledError:  # the drain: the guard ends the session (end_with)
            await cancel_all(writer)
            raise
        except Exception as exc:
            error = exc
        finally:
            await cancel_all(reader, *([self._follower] if self._follower else []))
            await self._session.close()
        if isinstance(error, _SlowReader):
            self.outcome = "RESOURCE_EXHAUSTED"
            await cancel_all(writer)
            await self._close_slow()
            return
        await self._finish(writer, error)

    def _follow(self) -> None:
        """Start following the game (the session just opened)."""
        follower = asyncio.ensure_future(self._session.follow())
        follower.add_done_callback(self._followed)
        self._follower = follower

    def _followed(self, task: asyncio.Future[None]) -> None:
        if task.cancelled() or self._ended.done():
            return
        error = task.exception()
        if error is not None:
            self._ended.set_exception(error)
        # else: the game is over; the session stays open until the client closes

    def _emit(self, frame: Frame) -> None:
        """Write ``frame`` at once where nothing is queued before it and the server can
        (``scopa.send_now``); else queue it for the writer."""
        send_now = self._send_now
        idle = send_now is not None and not self._writing and self._queue.empty()
        if idle and send_now is not None and send_now(self._frames.data(frame)):
            return
        if self._queue.qsize() >= self._limits.queue_frames:
            if not self._ended.done():
                self._ended.set_exception(_SlowReader())
            return
        self._queue.put_nowait(frame)

    async def _write(self) -> None:
        try:
            while (frame := await self._queue.get()) is not None:
                self._writing = True
                await self._send(self._frames.encode(frame))
                self._writing = False
        except asyncio.CancelledError:
            raise
        except Exception:  # the client is gone (uvicorn's ClientDisconnected)
            if not self._ended.done():
                self._ended.set_result(None)

    async def _read(self) -> None:
        """Read frames and serve each in order until the client disconnects."""
        try:
            await self._read_frames()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a refused hello, a hello timeout: the session ends
            if not self._ended.done():
                self._ended.set_exception(exc)
            return
        if not self._ended.done():
            self._ended.set_result(None)

    async def _read_frames(self) -> None:
        loop = asyncio.get_running_loop()
        hello_by = loop.time() + self._limits.hello_timeout_s
        while True:
            if self._session.open:
                message = await self._receive()
            else:
                try:
                    message = await asyncio.wait_for(self._receive(), hello_by - loop.time())
                except TimeoutError:
                    raise HelloTimeout(
                        f"no hello within {self._limits.hello_timeout_s:g} s of connecting"
                    ) from None
            if message["type"] == "websocket.disconnect":
                return
            await self._serve(message)

    async def _serve(self, message: MutableMapping[str, Any]) -> None:
        """Serve one received message. A frame that cannot be read, or is refused, gets an
        error frame; a refused hello ends the session (it raises)."""
        try:
            frame = self._frames.decode(message, self._limits.max_frame_bytes)
        except MalformedRequest as exc:
            self._session.error(map_error(exc))
            return
        kind = frame.WhichOneof("frame")
        if kind == "hello" and not self._session.open:
            with self._tracer.start_as_current_span(_HELLO_SPAN, kind=SpanKind.INTERNAL):
                await self._session.hello(frame.hello)
            self._follow()
            return
        if kind == "action":
            await self._act(frame.action)
            return
        try:
            if kind == "hello":
                await self._session.hello(frame.hello)  # refused: already open
            else:
                self._session.ping(frame.ping)
        except Exception as exc:
            self._session.error(map_error(exc))

    async def _act(self, action: pb.SessionAction) -> None:
        """One action, in a span of its own (the core's and the store's spans inside it)."""
        self.actions += 1
        kind = action.action.WhichOneof("kind") or ""
        with self._spans.current(_ACTION_SPAN, SpanKind.INTERNAL, {"scopa.action": kind}) as span:
            try:
                self._window.take()
                await self._session.act(action)
            except Exception as exc:
                mapped = map_error(exc)
                span.set_attribute("scopa.reason", mapped.reason)
                if mapped.server_fault:
                    span.set_status(Status(StatusCode.ERROR))
                self._session.error(mapped, action.request_id)

    async def end_with(self, exc: Exception) -> None:
        """End the session with an error frame and its close code (the drain's path)."""
        self._ended_by(exc)
        if not self._accepted:
            await _refuse(self._send, exc)
            return
        if self._closed:
            return
        try:
            frame = self._frames.encode(Frame("error", _error_frame(exc)))
            await asyncio.wait_for(self._send(frame), _SLOW_CLOSE_S)
        except Exception:
            self._abort()
            self._closed = True
            return
        await self._close(close_code(exc))

    async def _finish(self, writer: asyncio.Future[None], exc: Exception | None) -> None:
        """Send what is queued (and the error frame), then close."""
        if exc is not None:
            self._ended_by(exc)
            self._queue.put_nowait(Frame("error", _error_frame(exc)))
        self._queue.put_nowait(None)
        try:
            await asyncio.wait_for(asyncio.shield(writer), _SLOW_CLOSE_S)
        except TimeoutError:
            await cancel_all(writer)
            self._abort()
            self._closed = True
            return
        await self._close(CLOSE_NORMAL if exc is None else close_code(exc))

    async def _close(self, code: int) -> None:
        if self._closed:
            return
        self._closed = True
        self.close_code = code
        try:
            await asyncio.wait_for(self._send({"type": "websocket.close", "code": code}), 1.0)
        except Exception:
            self._abort()

    def _ended_by(self, exc: Exception) -> None:
        mapped = map_error(exc)
        self.outcome = mapped.code.name
        self.fault = mapped.server_fault

    async def _close_slow(self) -> None:
        """Close a slow reader: the close frame if it can still be written, then drop the
        connection so that its buffers go with it."""
        await self._close(CLOSE_SLOW_READER)
        asyncio.get_running_loop().call_later(_SLOW_CLOSE_S, self._abort)

    def _abort(self) -> None:
        abort: Callable[[], None] | None = self._scope.get("extensions", {}).get(ABORT_EXTENSION)
        if abort is not None:
            abort()


def _error_frame(exc: BaseException) -> pb.SessionError:
    return to_session_error(map_error(exc))
