"""Realtime sessions over gRPC: the bidirectional ``Session`` stream of scopa.v1.GameService.

The same :class:`._session.Session` as the WebSocket's (:mod:`._websocket`), the same frames,
limits and error frames; what differs is the carrier. Frames that cannot be decoded come from
the guard's tolerant deserializer as an object with an ``error`` (MALFORMED_REQUEST,
REQUEST_TOO_LARGE) and get an error frame. The stream ends OK when the client half-closes it,
or with the status of the error that ended the session (the error-mapping interceptor's job):
a refused hello, HELLO_TIMEOUT, SLOW_READER, the drain's SERVER_SHUTTING_DOWN (its guard
cancels the call).

gRPC's flow control holds at most one message in flight for a client that stops reading; the
session's queue bounds the rest. A write in flight is never cancelled (a status sent while one
is pending is refused by grpc, see ``write_whole``): a slow reader's session stops following
the game at once and its status is sent once that message is taken.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
from opentelemetry import trace
from opentelemetry.trace import SpanKind

from scopa._spans import LeafSpans
from scopa._tasks import cancel_all
from scopa.app import GameCore
from scopa.transport._errors import MalformedRequest, register
from scopa_client.v1 import scopa_pb2 as pb

from ._calls import Encoded
from ._interceptors import write_whole
from ._session import Frame, Session, SessionSlots
from ._websocket import ActionWindow, HelloTimeout, SessionLimits

__all__ = ["GrpcSessions", "SlowReader"]


class SlowReader(Exception):
    """The session's outgoing frames piled up: the client reads too slowly."""

    reason = "SLOW_READER"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


register(SlowReader, grpc.StatusCode.RESOURCE_EXHAUSTED)

_ACTION_SPAN = "scopa.session.action"
_EMPTY = pb.SessionResponse()


class GrpcSessions:
    """The ``Session`` method's behaviour: one call is one session."""

    def __init__(
        self, core: GameCore, limits: SessionLimits, slots: SessionSlots | None = None
    ) -> None:
        """``slots``: the replica's count of sessions, shared with the WebSocket carrier."""
        self._core = core
        self._limits = limits
        self._slots = slots or SessionSlots(limits.max_sessions)
        self._tracer = trace.get_tracer("scopa.server")

    async def serve(self, requests: AsyncIterator[Any], context: Any, client: str) -> None:
        """Serve the call until the client half-closes it or the session ends (raises;
        TOO_MANY_SESSIONS at the replica's cap)."""
        self._slots.take()
        try:
            call = _Call(self._core, self._limits, requests, context, client, self._tracer)
            await call.run()
        finally:
            self._slots.give_back()


class _Call:
    def __init__(
        self,
        core: GameCore,
        limits: SessionLimits,
        requests: AsyncIterator[Any],
        context: Any,
        client: str,
        tracer: trace.Tracer,
    ) -> None:
        self._limits = limits
        self._requests = requests
        self._context = context
        self._spans = LeafSpans(tracer)
        self._queue: asyncio.Queue[Frame | None] = asyncio.Queue()
        self._session = Session(core, self._emit, client, limits.max_frame_bytes)
        self._window = ActionWindow(limits.action_burst, limits.action_window_s)
        self._ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._follower: asyncio.Future[None] | None = None

    async def run(self) -> None:
        writer = asyncio.ensure_future(self._write())
        reader = asyncio.ensure_future(self._read())
        error: BaseException | None = None
        try:
            await self._ended
        except asyncio.CancelledError:  # the drain (the guard turns it into its status)
            await self._stop_writer(writer)
            raise
        except Exception as exc:
            error = exc
        finally:
            await cancel_all(reader, *([self._follower] if self._follower else []))
            await self._session.close()
        if isinstance(error, SlowReader):
            await self._stop_writer(writer)
            raise error
        self._queue.put_nowait(None)  # send what is queued (an error frame included), then end
        await writer
        if error is not None:
            raise error

    async def _stop_writer(self, writer: asyncio.Future[None]) -> None:
        """Stop the writer, letting a message in flight finish (see ``write_whole``)."""
        writer.cancel()
        await asyncio.gather(writer, return_exceptions=True)

    def _emit(self, frame: Frame) -> None:
        if self._queue.qsize() >= self._limits.queue_frames:
            if not self._ended.done():
                self._ended.set_exception(
                    SlowReader(
                        f"more than {self._limits.queue_frames} frames waited for the client; "
                        "resume from the last version received"
                    )
                )
            return
        self._queue.put_nowait(frame)

    async def _write(self) -> None:
        while (frame := await self._queue.get()) is not None:
            # Written as the frame's own bytes (the serializer appends a tail to an empty response).
            await write_whole(self._context, Encoded(_EMPTY, frame.wire()))

    async def _read(self) -> None:
        try:
            await self._hello()
            async for item in self._requests:
                await self._serve(item)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if not self._ended.done():
                self._ended.set_exception(exc)
            return
        if not self._ended.done():
            self._ended.set_result(None)  # the client half-closed the stream

    async def _hello(self) -> None:
        """Serve frames until a hello opened the session (a refused hello raises)."""
        loop = asyncio.get_running_loop()
        hello_by = loop.time() + self._limits.hello_timeout_s
        while not self._session.open:
            try:
                item = await asyncio.wait_for(anext(self._requests), hello_by - loop.time())
            except TimeoutError:
                raise HelloTimeout(
                    f"no hello within {self._limits.hello_timeout_s:g} s of the call"
                ) from None
            if isinstance(item, pb.SessionRequest) and item.WhichOneof("frame") == "hello":
                await self._session.hello(item.hello)
                follower = asyncio.ensure_future(self._session.follow())
                follower.add_done_callback(self._followed)
                self._follower = follower
            else:
                await self._serve(item)

    def _followed(self, task: asyncio.Future[None]) -> None:
        if task.cancelled() or self._ended.done():
            return
        error = task.exception()
        if error is not None:
            self._ended.set_exception(error)

    async def _serve(self, item: Any) -> None:
        """One frame after (or before) the hello: refusals become error frames."""
        if not isinstance(item, pb.SessionRequest):
            error = getattr(item, "error", None)
            if not isinstance(error, Exception):
                error = MalformedRequest("the frame is not a SessionRequest")
            self._session.error_of(error)
            return
        kind = item.WhichOneof("frame")
        try:
            if kind is None:
                raise MalformedRequest("the frame sets no kind (hello, action or ping)")
            if kind == "action":
                kind_of = item.action.action.WhichOneof("kind") or ""
                with self._spans.current(
                    _ACTION_SPAN, SpanKind.INTERNAL, {"scopa.action": kind_of}
                ):
                    self._window.take()
                    await self._session.act(item.action)
            elif kind == "hello":
                await self._session.hello(item.hello)  # refused: already open
            else:
                self._session.ping(item.ping)
        except Exception as exc:
            self._session.error_of(exc, item.action.request_id if kind == "action" else "")
