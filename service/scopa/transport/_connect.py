"""Connect (JSON and binary) and gRPC-Web: the generated connectrpc application over GameCalls.

The ASGI application and its routing come from ``scopa_client.v1.scopa_connect`` (generated from
the proto by ``make generate``); this module only takes the bearer token from the headers, calls
:class:`GameCalls` and turns exceptions into Connect errors through the shared error table.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeVar, cast

from connectrpc.codec import Codec
from connectrpc.compat import google_protobuf_binary_codec
from connectrpc.compression.gzip import GzipCompression
from connectrpc.errors import ConnectError
from connectrpc.request import RequestContext
from isal import igzip

from scopa.transport._errors import MalformedRequest, RequestTooLarge, to_connect_error
from scopa_client.v1 import scopa_pb2 as pb
from scopa_client.v1.scopa_connect import GameServiceASGIApplication

from ._calls import Encoded, GameCalls, JsonCall, JsonOnly, WireCall, WireOnly
from ._convert import token_from_metadata
from ._http_errors import MethodNotAllowed
from ._http_guard import HttpGuard
from ._http_telemetry import ASGIApp, Message, Receive, Scope, Send, current_exchange, map_error
from ._rest import header
from ._rest_json import FastJsonCodec, dumps

__all__ = ["ConnectGameService", "FastGzip", "connect_app"]

_SERVICE = "/scopa.v1.GameService/"

_DECODED_BY: contextvars.ContextVar[str] = contextvars.ContextVar("_DECODED_BY", default="")
"""The codec that decoded this request (set in the request's task before its method runs): its
response is encoded by the same one."""

Req = TypeVar("Req")
Res = TypeVar("Res")


class FastGzip(GzipCompression):
    """gzip as connectrpc's, its answers written by ISA-L (python-isal) at its level 1:
    ``bench/callgrind.py --proto connect`` counts 2.11M instructions a PlayCard against 2.34M
    with zlib's level 1. Requests are read by zlib, as before (any gzip reader reads either)."""

    def compress(self, data: bytes | bytearray | memoryview) -> bytes:
        return igzip.compress(data, compresslevel=1)


def _token(ctx: RequestContext[Any, Any]) -> str | None:
    values = ctx.request_headers.getall("authorization")
    return token_from_metadata([("authorization", v) for v in values])


def _start(name: str) -> None:
    current_exchange().rpc_method = _SERVICE + name


def _client(guard: HttpGuard | None) -> str:
    exchange = current_exchange()
    if guard is None or exchange.scope is None:
        return ""
    return guard.client_of(exchange.scope)


def _guarded_stream(guard: HttpGuard | None, name: str) -> AbstractAsyncContextManager[None]:
    exchange = current_exchange()
    if guard is None or exchange.scope is None:
        return contextlib.nullcontext()
    return guard.stream(exchange.scope, _SERVICE + name)


class ConnectGameService:
    """scopa.v1.GameService for connectrpc, on top of :class:`GameCalls`."""

    def __init__(self, calls: GameCalls, guard: HttpGuard | None = None) -> None:
        self._calls = calls
        self._guard = guard

    async def _unary(
        self,
        name: str,
        call: Callable[[Req, str | None], Awaitable[Res]],
        request: Req,
        ctx: RequestContext[Any, Any],
    ) -> Res:
        _start(name)
        scope = current_exchange().scope
        try:
            if self._guard is None or scope is None:
                response = await call(request, _token(ctx))
            else:
                response = await self._guard.unary(
                    scope, _SERVICE + name, call, request, _token(ctx)
                )
            # The codec completes a view whose options were left to a tail (_LimitedCodec).
            return cast(Res, self._calls.encoded(cast(Any, response)))
        except ConnectError:
            raise
        except Exception as exc:
            raise to_connect_error(map_error(exc)) from None

    async def create_game(
        self, request: pb.CreateGameRequest, ctx: RequestContext[Any, Any]
    ) -> pb.CreateGameResponse:
        """Create a game."""
        return await self._unary("CreateGame", self._calls.create_game, request, ctx)

    async def get_state(
        self, request: pb.GetStateRequest, ctx: RequestContext[Any, Any]
    ) -> pb.GetStateResponse:
        """The caller's view of a game."""
        return await self._unary("GetState", self._calls.get_state, request, ctx)

    async def get_game_record(
        self, request: pb.GetGameRecordRequest, ctx: RequestContext[Any, Any]
    ) -> pb.GetGameRecordResponse:
        """A finished game's record."""
        return await self._unary("GetGameRecord", self._calls.get_game_record, request, ctx)

    def _json_or(self, name: str, call: Callable[[Any, str | None], Awaitable[Any]]) -> Any:
        """``call``, or the method whose response is written already in the request's codec
        (:attr:`GameCalls.json_unary`, :attr:`GameCalls.wire_unary`: no message built; the
        codec sends its bytes)."""
        written: JsonCall | WireCall | None = None
        if _DECODED_BY.get() == "json":
            written = self._calls.json_unary.get(name)
        elif _DECODED_BY.get() == "proto":
            written = self._calls.wire_unary.get(name)
        return call if written is None else written

    async def play_card(
        self, request: pb.PlayCardRequest, ctx: RequestContext[Any, Any]
    ) -> pb.PlayCardResponse:
        """Play a card."""
        call = self._json_or("PlayCard", self._calls.play_card)
        return await self._unary("PlayCard", call, request, ctx)

    async def take_action(
        self, request: pb.TakeActionRequest, ctx: RequestContext[Any, Any]
    ) -> pb.TakeActionResponse:
        """Take a non-card action (a declaration, a special play)."""
        call = self._json_or("TakeAction", self._calls.take_action)
        return await self._unary("TakeAction", call, request, ctx)

    async def join_game(
        self, request: pb.JoinGameRequest, ctx: RequestContext[Any, Any]
    ) -> pb.JoinGameResponse:
        """Claim an open seat."""
        return await self._unary("JoinGame", self._calls.join_game, request, ctx)

    async def resign_game(
        self, request: pb.ResignGameRequest, ctx: RequestContext[Any, Any]
    ) -> pb.ResignGameResponse:
        """Resign the caller's seat."""
        return await self._unary("ResignGame", self._calls.resign_game, request, ctx)

    async def rematch_game(
        self, request: pb.RematchGameRequest, ctx: RequestContext[Any, Any]
    ) -> pb.RematchGameResponse:
        """A finished game's rematch."""
        return await self._unary("RematchGame", self._calls.rematch_game, request, ctx)

    async def list_games(
        self, request: pb.ListGamesRequest, ctx: RequestContext[Any, Any]
    ) -> pb.ListGamesResponse:
        """The lobby: public games waiting for players."""
        return await self._unary("ListGames", self._calls.list_games, request, ctx)

    async def list_my_games(
        self, request: pb.ListMyGamesRequest, ctx: RequestContext[Any, Any]
    ) -> pb.ListMyGamesResponse:
        """The signed-in caller's games."""
        return await self._unary("ListMyGames", self._calls.list_my_games, request, ctx)

    async def list_rulesets(
        self, request: pb.ListRulesetsRequest, ctx: RequestContext[Any, Any]
    ) -> pb.ListRulesetsResponse:
        """Every preset and option."""
        return await self._unary("ListRulesets", self._calls.list_rulesets, request, ctx)

    async def watch_game(
        self, request: pb.WatchGameRequest, ctx: RequestContext[Any, Any]
    ) -> AsyncIterator[pb.WatchGameResponse]:
        """Stream updates from ``from_version`` (over HTTP/1.1 too)."""
        _start("WatchGame")
        try:
            async with _guarded_stream(self._guard, "WatchGame"):
                updates = self._calls.watch_game(request, _token(ctx), _client(self._guard))
                try:
                    async for message in updates:
                        yield cast(pb.WatchGameResponse, self._calls.encoded(message))
                finally:
                    await updates.aclose()
        except ConnectError:
            raise
        except Exception as exc:
            raise to_connect_error(map_error(exc)) from None

    async def session(
        self, request: AsyncIterator[pb.SessionRequest], ctx: RequestContext[Any, Any]
    ) -> AsyncIterator[pb.SessionResponse]:
        """Not served over Connect or gRPC-Web (UNIMPLEMENTED / METHOD_NOT_ALLOWED): realtime
        sessions run over gRPC and the WebSocket ``/v1/session``."""
        _start("Session")
        raise to_connect_error(
            map_error(
                MethodNotAllowed(
                    "Session is served over gRPC and the WebSocket /v1/session, not Connect"
                )
            )
        )
        yield  # an async generator, as connectrpc's bidi streams are


_ENVELOPE = 5
"""Bytes before each message of an enveloped body (streams, gRPC-Web): a flag and a length."""

_LIBRARY_LIMIT_FACTOR = 4
"""connectrpc's own limit, a multiple of ours: it only stops a compressed body that inflates far
past the limit (its error has no ErrorInfo); anything over ours is refused first, with one."""


def _too_large(limit: int) -> ConnectError:
    """INVALID_ARGUMENT / REQUEST_TOO_LARGE with its ErrorInfo, as REST and gRPC answer."""
    return to_connect_error(
        map_error(
            RequestTooLarge(
                f"the request is over the limit of {limit} bytes",
                metadata={"limit_bytes": str(limit)},
            )
        )
    )


class _LimitedCodec(Codec[Any, Any]):
    """A codec that refuses a (decompressed) message over the limit before decoding it, and
    encodes :class:`Encoded` responses (a view's options left to a tail) with ``tailed``."""

    def __init__(
        self, codec: Codec[Any, Any], limit: int, tailed: Callable[[Encoded], bytes]
    ) -> None:
        self._codec = codec
        self._limit = limit
        self._tailed = tailed

    def name(self) -> str:
        """The wrapped codec's name."""
        return self._codec.name()

    def encode(self, message: Any) -> bytes:
        """Encode with the wrapped codec (an :class:`Encoded` response with ``tailed``; a
        :class:`JsonOnly` one, for a JSON request, is its bytes)."""
        if isinstance(message, Encoded):
            return self._tailed(message)
        if isinstance(message, JsonOnly):
            assert self._codec.name() == "json", "a JSON-only response for a JSON request only"
            return message.body
        if isinstance(message, WireOnly):
            assert self._codec.name() == "proto", "a wire-only response for a binary request only"
            return message.body
        return self._codec.encode(message)

    def decode(self, data: bytes | bytearray, message_class: type[Any]) -> Any:
        """Decode with the wrapped codec; REQUEST_TOO_LARGE over the limit, MALFORMED_REQUEST
        (with its ErrorInfo, as gRPC answers) for bytes that are not the method's message."""
        if len(data) > self._limit:
            raise _too_large(self._limit)
        _DECODED_BY.set(self._codec.name())
        try:
            return self._codec.decode(data, message_class)
        except Exception as exc:  # client bytes only: never INTERNAL (connectrpc would say
            # invalid_argument without an ErrorInfo)
            raise _malformed(self._codec.name(), exc) from None


def _json_tailed(response: Encoded) -> bytes:
    """The proto3 JSON of a response and its tail, as of the complete response (REST's: the
    same ``json`` form of :class:`Encoded`)."""
    return response.form("json", dumps)


def _malformed(codec: str, exc: Exception) -> ConnectError:
    """INVALID_ARGUMENT / MALFORMED_REQUEST: the body is not the method's message (binary: the
    gRPC guard's words; JSON: json_format's, which name the field, cut like every message)."""
    if codec == "proto":
        message = "the request is not a valid protobuf message"
    else:
        message = f"the request is not the method's message in {codec}: {exc}"
    return to_connect_error(map_error(MalformedRequest(message)))


class _BodyLimit:
    """The request body as connectrpc reads it, refused once it is over the limit.

    Raised from ``receive``, the error is written by connectrpc in the call's protocol (Connect
    unary, Connect stream, gRPC-Web) like a handler's. An enveloped body is refused on its
    announced message length as soon as the envelope's first five bytes are in.
    """

    def __init__(self, receive: Receive, limit: int, enveloped: bool) -> None:
        self._receive = receive
        self._limit = limit
        self._enveloped = enveloped
        self._size = 0
        self._head = b""

    async def __call__(self) -> Message:
        message = await self._receive()
        if message["type"] != "http.request":
            return message
        chunk: bytes = message.get("body", b"")
        self._size += len(chunk)
        allowed = self._limit
        if self._enveloped:
            allowed += _ENVELOPE
            if len(self._head) < _ENVELOPE:
                self._head += chunk[: _ENVELOPE - len(self._head)]
                if len(self._head) == _ENVELOPE and int.from_bytes(self._head[1:], "big") > (
                    self._limit
                ):
                    raise _too_large(self._limit)
        if self._size > allowed:
            raise _too_large(self._limit)
        return message


def connect_app(calls: GameCalls, read_max_bytes: int, guard: HttpGuard | None = None) -> ASGIApp:
    """The ASGI application serving Connect and gRPC-Web under ``/scopa.v1.GameService/``.

    A request over ``read_max_bytes`` is ``INVALID_ARGUMENT / REQUEST_TOO_LARGE`` with its
    ErrorInfo (metadata ``limit_bytes``), as on the REST and gRPC ports.
    """
    app = GameServiceASGIApplication(
        ConnectGameService(calls, guard),
        read_max_bytes=_LIBRARY_LIMIT_FACTOR * read_max_bytes,
        # browsers ask for gzip on every call: ISA-L's level 1, not zlib's 6 (FastGzip)
        compressions=[FastGzip()],
        codecs=[
            _LimitedCodec(google_protobuf_binary_codec(), read_max_bytes, Encoded.serialize),
            _LimitedCodec(FastJsonCodec(), read_max_bytes, _json_tailed),
        ],
    )

    async def limited(scope: Scope, receive: Receive, send: Send) -> None:
        content_type = (header(scope, b"content-type") or "").lower()
        enveloped = content_type.startswith(("application/grpc", "application/connect+"))
        await app(scope, _BodyLimit(receive, read_max_bytes, enveloped), send)

    return limited
