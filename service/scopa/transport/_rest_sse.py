"""Server-Sent Events for server-streaming methods on the REST surface.

One event per message: ``id:`` is the message's ``version`` and ``data:`` its proto3 JSON, so a
client that reconnects with ``Last-Event-ID`` (which sets the request's ``from_version``) resumes
with nothing missing or repeated. A comment line is sent when nothing else was for
``keepalive_s`` seconds, so idle proxies keep the connection open. Errors before the first event
are plain JSON error responses; a later one is a final ``event: error`` with the same JSON body.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from google.protobuf.message import Message

from scopa._tasks import cancel_all
from scopa.app import InvalidArgument
from scopa.transport._errors import to_http_error

from ._calls import Encoded
from ._http_telemetry import Receive, Send, current_exchange, map_error
from ._rest_json import dumps

__all__ = [
    "ID_FIELD",
    "RESUME_FIELD",
    "end_stream",
    "first_event",
    "format_event",
    "resume_from",
    "send_stream_start",
    "stream_events",
]

ID_FIELD = "version"
"""The field of a streamed message that is its event id."""

RESUME_FIELD = "from_version"
"""The request field ``Last-Event-ID`` sets."""

_KEEPALIVE = b": keep-alive\n\n"


def format_event(response: Message | Encoded) -> bytes:
    """One SSE event: ``id:`` from the message's id field, ``data:`` its JSON on one line (of
    the complete message, for an :class:`Encoded` one)."""
    message, tail = (
        (response.message, response.tail) if isinstance(response, Encoded) else (response, b"")
    )
    data = dumps(message, tail).decode()
    event_id = getattr(message, ID_FIELD, None)
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}data: {data}\n\n".encode()


def _error_event(exc: Exception) -> bytes:
    _, body = to_http_error(map_error(exc))
    return f"event: error\ndata: {json.dumps(body, separators=(',', ':'))}\n\n".encode()


def resume_from(request: Message, last_id: str | None) -> None:
    """Set the request's resume field from a ``Last-Event-ID`` header."""
    if last_id is None or RESUME_FIELD not in request.DESCRIPTOR.fields_by_name:
        return
    if not last_id.strip().isdigit():
        raise InvalidArgument("Last-Event-ID must be a version number", field="Last-Event-ID")
    try:
        setattr(request, RESUME_FIELD, int(last_id))
    except ValueError:  # out of the field's range
        raise InvalidArgument("Last-Event-ID is out of range", field="Last-Event-ID") from None


async def _wait_disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _pump(
    messages: AsyncIterator[Message | Encoded],
    first: Message | Encoded | None,
    send: Send,
    keepalive_s: float,
) -> None:
    async def body(chunk: bytes) -> None:
        await send({"type": "http.response.body", "body": chunk, "more_body": True})

    if first is not None:
        await body(format_event(first))
    pending: asyncio.Future[Message | Encoded] | None = None
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(anext(messages))
            done, _ = await asyncio.wait({pending}, timeout=keepalive_s)
            if not done:
                await body(_KEEPALIVE)
                continue
            try:
                message = pending.result()
            except StopAsyncIteration:
                return
            pending = None
            await body(format_event(message))
    finally:
        if pending is not None:
            # Until it has ended: the stream's next update may be a timed store read, which can
            # swallow one cancellation and wait on for the next update.
            await cancel_all(pending)


async def first_event(messages: AsyncIterator[Message | Encoded]) -> Message | Encoded | None:
    """The stream's first message (None when it ends at once); errors propagate."""
    try:
        return await anext(messages)
    except StopAsyncIteration:
        return None


async def send_stream_start(send: Send) -> None:
    """The 200 response head of an event stream."""
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"text/event-stream"),
                (b"cache-control", b"no-cache"),
                (b"x-accel-buffering", b"no"),
            ],
        }
    )


async def stream_events(
    messages: AsyncIterator[Message | Encoded],
    first: Message | Encoded | None,
    receive: Receive,
    send: Send,
    *,
    keepalive_s: float,
) -> None:
    """Send ``first`` and every later message as events until they end or the client goes.

    An error of the messages propagates (the caller ends the stream with an error event).
    """
    pump = asyncio.ensure_future(_pump(messages, first, send, keepalive_s))
    gone = asyncio.ensure_future(_wait_disconnect(receive))
    try:
        done, _ = await asyncio.wait({pump, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        await cancel_all(pump, gone)
    if pump in done:
        pump.result()
    else:
        current_exchange().outcome = "CANCELLED"


async def end_stream(send: Send, error: Exception | None = None) -> None:
    """End an event stream, after a final ``event: error`` when ``error`` is set."""
    if error is not None:
        await send({"type": "http.response.body", "body": _error_event(error), "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})
