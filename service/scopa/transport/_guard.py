"""The innermost interceptor: what a request must pass before it reaches the servicer.

- Bytes that do not decode as the RPC's message (or are over the size limit) become
  INVALID_ARGUMENT / MALFORMED_REQUEST (REQUEST_TOO_LARGE): grpc.aio decodes a request with the
  handler's ``request_deserializer`` before any handler code runs and answers a raising one
  with UNKNOWN and a traceback, so the guard swaps in a deserializer that never raises and
  raises the typed error inside the call, where the error mapping and the access log see it
  (health and reflection, which have neither, are aborted with the same ErrorInfo).
- While the server drains (see :class:`Drain`), new calls are refused with UNAVAILABLE /
  SERVER_SHUTTING_DOWN and open streams are ended with the same status, so clients reconnect.
- CreateGame and JoinGame count against the client's rate limit
  (:class:`scopa.app.RateLimits`), the client being its address or what a trusted proxy says,
  or a signed-in caller's subject (its digest) when the bearer is an identity token.

It sits inside the tracing / access-log / error-mapping stack, so its errors are mapped and
logged like any other.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

import grpc

from scopa.app import AppError, RateLimits, client_key
from scopa.transport._convert import token_from_metadata
from scopa.transport._errors import (
    MalformedRequest,
    RequestTooLarge,
    ServerShuttingDown,
    map_exception,
    to_grpc_status,
)
from scopa.transport._interceptors import EXCLUDED_PREFIXES, Call, wrap_handler

__all__ = ["RATE_LIMITED_METHODS", "Drain", "ServerGuard", "grpc_client", "peer_host"]

RATE_LIMITED_METHODS: Mapping[str, str] = {
    "/scopa.v1.GameService/CreateGame": "create_game",
    "/scopa.v1.GameService/JoinGame": "join_game",
}
"""Full method name -> rate-limit action of :class:`scopa.app.RateLimits`."""


class Drain:
    """Shutdown state shared by the server and the guard.

    ``begin()``: streams are ended and new streams refused; unary calls still run (load
    balancers may still route to this replica until readiness is seen NOT_SERVING).
    ``close()``: every new call is refused; ``wait_idle()`` waits for the calls in flight.
    """

    def __init__(self) -> None:
        self.draining = False
        self.closed = False
        self._streams: set[asyncio.Task[Any]] = set()
        self._ended: set[asyncio.Task[Any]] = set()
        self._handled: set[asyncio.Task[Any]] = set()
        self._unary = 0
        self._idle = asyncio.Event()
        self._idle.set()

    def begin(self) -> int:
        """Start draining: cancel every open stream; return how many there were."""
        self.draining = True
        for task in list(self._streams):
            self._ended.add(task)
            task.cancel("server shutting down")
        return len(self._ended)

    async def end_streams(self, timeout_s: float, interval_s: float = 0.05) -> bool:
        """Wait until the streams ``begin`` cancelled are over, cancelling again any that
        swallowed the cancellation (Python 3.11's ``asyncio.wait_for`` can, when its inner
        future finishes at the same moment); True when none is left within ``timeout_s``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while True:
            pending = [t for t in self._ended if not t.done() and t not in self._handled]
            if not pending and not self._streams:
                return True
            if loop.time() >= deadline:
                return False
            for task in pending:
                task.cancel("server shutting down")
            await asyncio.sleep(interval_s)

    def close(self) -> None:
        """Refuse every new call from now on."""
        self.draining = self.closed = True

    async def wait_idle(self, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` for the unary calls in flight; True when none is left."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout_s)
        except TimeoutError:
            return False
        return True

    def admit(self, streaming: bool) -> None:
        """Raise ServerShuttingDown if a new call of this kind is refused now."""
        if self.closed or (streaming and self.draining):
            raise ServerShuttingDown

    def unary_started(self) -> None:
        """Count a unary call in flight (until :meth:`unary_finished`)."""
        self._unary += 1
        self._idle.clear()

    def unary_finished(self) -> None:
        """A unary call counted by :meth:`unary_started` is over."""
        self._unary -= 1
        if not self._unary:
            self._idle.set()

    @asynccontextmanager
    async def tracked(self, streaming: bool) -> AsyncIterator[None]:
        """Count a unary call in flight, or register a stream so that ``begin`` can end it."""
        if not streaming:
            self.unary_started()
            try:
                yield
            finally:
                self.unary_finished()
            return
        task = asyncio.current_task()
        assert task is not None
        self._streams.add(task)
        try:
            yield
        except asyncio.CancelledError:
            if task not in self._ended:
                raise
            self._handled.add(task)
            while task.cancelling():
                task.uncancel()
            raise ServerShuttingDown from None
        finally:
            self._streams.discard(task)
            self._ended.discard(task)
            self._handled.discard(task)


def peer_host(peer: str) -> str:
    """The address part of a grpc peer string (``ipv4:1.2.3.4:5`` -> ``1.2.3.4``)."""
    kind, _, address = peer.partition(":")
    if kind in ("ipv4", "ipv6"):
        return address.rpartition(":")[0].strip("[]")
    return peer


class _Undecodable:
    """What the tolerant deserializer returns instead of raising."""

    __slots__ = ("error",)

    def __init__(self, error: MalformedRequest) -> None:
        self.error = error


def _tolerant(deserialize: Callable[[bytes], Any] | None, max_bytes: int) -> Callable[[bytes], Any]:
    def decode(data: bytes) -> Any:
        if len(data) > max_bytes:
            return _Undecodable(
                RequestTooLarge(
                    f"the request is {len(data)} bytes; the limit is {max_bytes}",
                    metadata={"limit_bytes": str(max_bytes)},
                )
            )
        if deserialize is None:
            return data
        try:
            return deserialize(data)
        except Exception:
            return _Undecodable(MalformedRequest("the request is not a valid protobuf message"))

    return decode


def _behavior_attr(handler: Any) -> str:
    return {
        (False, False): "unary_unary",
        (False, True): "unary_stream",
        (True, False): "stream_unary",
        (True, True): "stream_stream",
    }[(bool(handler.request_streaming), bool(handler.response_streaming))]


async def _abort(context: Any, error: MalformedRequest) -> None:
    status = to_grpc_status(map_exception(error))
    await context.abort(status.code, status.details, status.trailing_metadata)


async def _checked_requests(requests: AsyncIterator[Any], context: Any) -> AsyncIterator[Any]:
    async for request in requests:
        if isinstance(request, _Undecodable):
            await _abort(context, request.error)
        yield request


def _decode_only(handler: Any, max_bytes: int) -> Any:
    """Health and reflection: undecodable requests aborted with ErrorInfo, nothing else.

    These methods are outside the access log and the error mapping (probes call them every
    few seconds), so the guard aborts here; grpc.aio would otherwise log a traceback.
    """
    attr = _behavior_attr(handler)
    behavior = getattr(handler, attr)
    if handler.request_streaming:

        async def streamed(requests: AsyncIterator[Any], context: Any) -> Any:
            return await behavior(_checked_requests(requests, context), context)

        async def streamed_gen(requests: AsyncIterator[Any], context: Any) -> AsyncIterator[Any]:
            inner = behavior(_checked_requests(requests, context), context)
            try:
                async for item in inner:
                    yield item
            finally:
                await inner.aclose()

        wrapped: Any = streamed_gen if inspect.isasyncgenfunction(behavior) else streamed
    elif inspect.isasyncgenfunction(behavior):

        async def unary_gen(request: Any, context: Any) -> AsyncIterator[Any]:
            if isinstance(request, _Undecodable):
                await _abort(context, request.error)
            inner = behavior(request, context)
            try:
                async for item in inner:
                    yield item
            finally:
                await inner.aclose()

        wrapped = unary_gen
    else:

        async def unary(request: Any, context: Any) -> Any:
            if isinstance(request, _Undecodable):
                await _abort(context, request.error)
            return await behavior(request, context)

        wrapped = unary
    return handler._replace(
        request_deserializer=_tolerant(handler.request_deserializer, max_bytes), **{attr: wrapped}
    )


def _header(metadata: Iterable[tuple[str, str | bytes]] | None, name: str) -> str:
    value = ""
    for key, item in metadata or ():
        if key == name and isinstance(item, str):
            value = item  # the last one: a proxy appends
    return value


def grpc_client(context: Any, proxy_header: str | None, proxy_hops: int) -> str:
    """The client a gRPC call counts against: its peer, or what a trusted proxy header says."""
    forwarded = _header(context.invocation_metadata(), proxy_header) if proxy_header else ""
    return client_key(peer_host(context.peer()), forwarded, proxy_hops)


def _bearer(context: Any) -> str | None:
    """The call's bearer value (None: none, or a malformed header, which the call refuses)."""
    try:
        return token_from_metadata(context.invocation_metadata())
    except AppError:
        return None


class ServerGuard(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Decode errors, drain refusals and rate limits, as typed errors inside the call."""

    def __init__(
        self,
        drain: Drain,
        *,
        max_request_bytes: int,
        rate_limits: RateLimits | None = None,
        trusted_proxy_header: str | None = None,
        trusted_proxy_hops: int = 1,
        excluded_prefixes: Sequence[str] = EXCLUDED_PREFIXES,
    ) -> None:
        self._drain = drain
        self._max_bytes = max_request_bytes
        self._limits = rate_limits
        self._proxy_header = trusted_proxy_header.lower() if trusted_proxy_header else None
        self._proxy_hops = trusted_proxy_hops
        self._excluded = tuple(excluded_prefixes)
        self._handlers: dict[str, Any] = {}

    async def intercept_service(
        self, continuation: Callable[[Any], Awaitable[Any]], handler_call_details: Any
    ) -> Any:
        """The method's guarded handler, built on its first call and reused (see
        :class:`scopa.server.RpcInterceptor`)."""
        method: str = handler_call_details.method
        handler = self._handlers.get(method)
        if handler is not None:
            return handler
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        handler = self._guarded(method, handler)
        self._handlers[method] = handler
        return handler

    def _guarded(self, method: str, handler: Any) -> Any:
        if method.startswith(self._excluded):
            return _decode_only(handler, self._max_bytes)
        streaming = bool(handler.response_streaming or handler.request_streaming)
        tolerant = handler._replace(
            request_deserializer=_tolerant(handler.request_deserializer, self._max_bytes)
        )
        action = RATE_LIMITED_METHODS.get(method)
        return wrap_handler(tolerant, functools.partial(self._wrap, streaming, action))

    def _wrap(self, streaming: bool, action: str | None, call: Call) -> Call:
        """Admission (drain, rate limit), then the decoded request or its decode error."""
        drain = self._drain
        limits = self._limits if action is not None else None

        async def check(request: Any, context: Any) -> None:
            if limits is not None and action is not None:
                await limits.check(action, self._client(context), _bearer(context))
            if isinstance(request, _Undecodable):
                raise request.error

        async def unary(request: Any, context: Any) -> Any:
            drain.admit(False)
            drain.unary_started()
            try:
                await check(request, context)
                return await call(request, context)
            finally:
                drain.unary_finished()

        async def stream(request: Any, context: Any) -> Any:
            drain.admit(True)
            async with drain.tracked(True):
                await check(request, context)
                return await call(request, context)

        return stream if streaming else unary

    def _client(self, context: Any) -> str:
        return grpc_client(context, self._proxy_header, self._proxy_hops)
