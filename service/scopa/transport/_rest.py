"""REST/JSON: the routes the proto's ``google.api.http`` annotations declare, served over GameCalls.

Routes come from the service descriptor at start-up (:mod:`._rest_rules`), never from a list
here. Responses are the proto3 JSON mapping with every field present; errors are Google's JSON
error shape from the shared table. Resources carrying an ``etag`` get an ``ETag`` header;
``If-Match`` fills a request's ``etag`` field (stale: 412 STALE_ETAG), is checked against the
result of a GET, and is refused elsewhere; ``If-None-Match`` on a GET can answer 304.
Server-streaming methods answer with Server-Sent Events (:mod:`._rest_sse`).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any
from urllib.parse import parse_qsl

from google.protobuf.message import Message

from scopa.app import InvalidArgument, StaleEtag
from scopa.transport._errors import RequestTooLarge, http_error_headers, to_http_error

from ._calls import Encoded, GameCalls, JsonOnly
from ._convert import token_from_metadata
from ._http_errors import MethodNotAllowed, RouteNotFound
from ._http_guard import HttpGuard
from ._http_telemetry import Receive, Scope, Send, current_exchange, map_error
from ._rest_json import dumps, to_json_dict
from ._rest_rules import Route, bind_request, is_repeated
from ._rest_sse import end_stream, first_event, resume_from, send_stream_start, stream_events

__all__ = ["RestApp", "StreamCall", "read_body", "send_json", "send_payload", "to_json"]

_MATCHED = "scopa.rest_route"
"""Scope key of the request's matched route (see :meth:`RestApp.route_of`)."""

StreamCall = Callable[[Any, str | None, str], AsyncIterator[Message]]
"""One server-streaming method: (request, token, client) -> messages ("" = client not counted)."""
RestCall = Callable[[Any, str | None], Awaitable[Message | JsonOnly]]
"""One unary method: (request message, bearer token or None) -> response, or its JSON already
(``GameCalls.json_unary``)."""


def to_json(message: Message) -> dict[str, Any]:
    """The proto3 JSON mapping of ``message``, with fields at their default values too."""
    mapped: dict[str, Any] = to_json_dict(message)  # GameService's messages: never a WKT
    return mapped


async def send_json(
    send: Send, status: int, body: Any, headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    """Send a complete JSON response."""
    await send_payload(send, status, json.dumps(body, separators=(",", ":")).encode(), headers)


async def send_payload(
    send: Send, status: int, payload: bytes, headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    """Send a complete response of JSON text already encoded."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


def header(scope: Scope, name: bytes) -> str | None:
    """The first value of a request header, or None."""
    for key, value in scope["headers"]:
        if key == name:
            text: str = value.decode("latin-1")
            return text
    return None


def bearer_token(scope: Scope) -> str | None:
    """The bearer token of the Authorization header (malformed: UNAUTHENTICATED)."""
    values = [v.decode("latin-1") for k, v in scope["headers"] if k == b"authorization"]
    return token_from_metadata([("authorization", v) for v in values])


def _too_large(limit: int) -> RequestTooLarge:
    return RequestTooLarge(
        f"the request body is over the limit of {limit} bytes",
        metadata={"limit_bytes": str(limit)},
    )


async def read_body(scope: Scope, receive: Receive, limit: int) -> bytes:
    """The whole request body; RequestTooLarge beyond ``limit`` bytes."""
    declared = header(scope, b"content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk: bytes = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _etags(value: str | None) -> list[str] | None:
    if value is None:
        return None
    tags = [t.strip().removeprefix("W/").strip('"') for t in value.split(",") if t.strip()]
    return tags or None


def etag_of(message: Message) -> str | None:
    """The ``etag`` of a message or of one of its direct message fields (a game resource)."""
    if "etag" in message.DESCRIPTOR.fields_by_name:
        own: str = getattr(message, "etag")  # noqa: B009
        return own or None
    for field in message.DESCRIPTOR.fields:
        if field.message_type is None or is_repeated(field):
            continue
        if "etag" in field.message_type.fields_by_name and message.HasField(field.name):
            tag: str = getattr(message, field.name).etag
            return tag or None
    return None


def _etag_headers(etag: str | None) -> list[tuple[bytes, bytes]]:
    """The ``ETag`` header of a response whose game has ``etag`` (none without one)."""
    return [(b"etag", f'"{etag}"'.encode())] if etag else []


def _apply_if_match(route: Route, request: Message, tags: list[str] | None) -> None:
    if tags is None or tags == ["*"]:
        return
    if "etag" in request.DESCRIPTOR.fields_by_name:
        if len(tags) != 1:
            raise InvalidArgument("If-Match must name exactly one etag", field="If-Match")
        current: str = getattr(request, "etag")  # noqa: B009
        if current and current != tags[0]:
            raise InvalidArgument("If-Match and the body's etag differ", field="If-Match")
        setattr(request, "etag", tags[0])  # noqa: B010
    elif route.http_method != "GET":
        raise InvalidArgument("this method does not take If-Match", field="If-Match")


class RestApp:
    """The ASGI application of the REST surface."""

    def __init__(
        self,
        routes: Sequence[Route],
        unary: Mapping[str, RestCall],
        streams: Mapping[str, StreamCall],
        *,
        max_body_bytes: int,
        keepalive_s: float,
        guard: HttpGuard | None = None,
    ) -> None:
        # Routes with a verb first: "/v1/games/x:watch" is WatchGame, not GetState of "x:watch".
        self._routes = sorted(routes, key=lambda r: ":" not in r.template.text.rsplit("/", 1)[-1])
        self._unary = unary
        self._streams = streams
        self._max_body_bytes = max_body_bytes
        self._keepalive_s = keepalive_s
        self._guard = guard

    def route_of(self, scope: Scope) -> tuple[Route, dict[str, str]]:
        """The route serving the request and its path variables, matched once per request.

        The telemetry's classification and the request's handling both ask: the first match
        is kept in the scope (an HttpError is raised again on each call).
        """
        found: tuple[Route, dict[str, str]] | None = scope.get(_MATCHED)
        if found is None:
            path = (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
            found = self.find(scope["method"], path.split("?", 1)[0])
            scope[_MATCHED] = found
        return found

    def find(self, http_method: str, path: str) -> tuple[Route, dict[str, str]]:
        """The route serving ``http_method path`` and its path variables."""
        allowed = []
        for route in self._routes:
            values = route.match(path)
            if values is None:
                continue
            if route.http_method == http_method or (
                http_method == "HEAD" and route.http_method == "GET"
            ):
                return route, values
            allowed.append(route.http_method)
        if allowed:
            allow = sorted(set(allowed))
            raise MethodNotAllowed(f"{path} allows {', '.join(allow)}", allow=allow)
        raise RouteNotFound(f"no route for {path}")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one REST request."""
        try:
            await self._serve(scope, receive, send)
        except Exception as exc:
            mapped = map_error(exc)
            status, body = to_http_error(mapped)
            allow = getattr(exc, "allow", ())
            headers = [(b"allow", ", ".join(allow).encode())] if allow else []
            await send_json(send, status, body, headers + http_error_headers(mapped))

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        route, values = self.route_of(scope)
        rpc_method = route.rpc_method
        exchange = current_exchange()
        exchange.route = route.template.text
        exchange.rpc_method = rpc_method
        token = bearer_token(scope)
        body = await read_body(scope, receive, self._max_body_bytes)
        try:
            query = parse_qsl(
                scope["query_string"].decode(), keep_blank_values=True, errors="strict"
            )
        except UnicodeDecodeError:
            raise InvalidArgument("the query string is not UTF-8", field="query") from None
        request = bind_request(route, values, query, body)
        if_match = _etags(header(scope, b"if-match"))
        _apply_if_match(route, request, if_match)
        if route.method.server_streaming:
            resume_from(request, header(scope, b"last-event-id"))
            await self._stream(route, request, token, scope, receive, send)
            return
        handler = self._unary[route.method.name]
        if self._guard is None:
            response = await handler(request, token)
        else:
            response = await self._guard.unary(scope, rpc_method, handler, request, token)
        if isinstance(response, JsonOnly):  # a POST: no If-Match check on the result, no 304
            await send_payload(send, 200, response.body, _etag_headers(response.etag))
            return
        await self._respond(route, scope, send, GameCalls.encoded(response), if_match)

    def _guarded_stream(self, scope: Scope, rpc_method: str) -> AbstractAsyncContextManager[None]:
        if self._guard is None:
            return contextlib.nullcontext()
        return self._guard.stream(scope, rpc_method)

    async def _stream(
        self,
        route: Route,
        request: Message,
        token: str | None,
        scope: Scope,
        receive: Receive,
        send: Send,
    ) -> None:
        client = self._guard.client_of(scope) if self._guard is not None else ""
        messages = GameCalls.encoded_stream(
            self._streams[route.method.name](request, token, client)
        )
        started = False
        try:
            async with self._guarded_stream(scope, current_exchange().rpc_method):
                first = await first_event(messages)
                await send_stream_start(send)
                started = True
                await stream_events(messages, first, receive, send, keepalive_s=self._keepalive_s)
        except Exception as exc:
            if not started:
                raise
            await end_stream(send, exc)
            return
        finally:
            aclose = getattr(messages, "aclose", None)
            if aclose is not None:
                await aclose()
        await end_stream(send)

    async def _respond(
        self,
        route: Route,
        scope: Scope,
        send: Send,
        response: Message | Encoded,
        if_match: list[str] | None,
    ) -> None:
        message, tail = (
            (response.message, response.tail) if isinstance(response, Encoded) else (response, b"")
        )
        etag = etag_of(message)
        headers = _etag_headers(etag)
        if route.http_method == "GET" and etag is not None:
            if if_match is not None and if_match != ["*"] and etag not in if_match:
                raise StaleEtag(", ".join(if_match), etag, field="If-Match")
            if_none = _etags(header(scope, b"if-none-match"))
            if if_none is not None and (etag in if_none or if_none == ["*"]):
                await send({"type": "http.response.start", "status": 304, "headers": headers})
                await send({"type": "http.response.body", "body": b""})
                return
        if scope["method"] == "HEAD":
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        if route.response_body:
            field = route.method.output_type.fields_by_name[route.response_body]
            whole = type(message).FromString(message.SerializeToString() + tail)
            await send_json(send, 200, to_json(whole).get(field.json_name), headers)
            return
        body = response.form("json", dumps) if isinstance(response, Encoded) else dumps(message)
        await send_payload(send, 200, body, headers)
