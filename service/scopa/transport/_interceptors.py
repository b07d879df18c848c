"""Server interceptors: one span, one access-log line and one error mapping per RPC.

Each interceptor wraps the RPC's method handler (unary or streaming, coroutine or async
generator) in a coroutine that sees the whole call, including every streamed message. The
wrapped handler is built on a method's first call and reused, so a call pays for the wrappers'
coroutines only. Health-check and reflection RPCs pass through untouched.
Order in `default_interceptors()`: tracing (outermost), access log, error mapping (innermost), so
the access log and the span both see the status code the error mapping chose.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

import grpc
from opentelemetry import trace
from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import TracerProvider

from scopa.telemetry import ServerTelemetry, get_logger, peer_attributes
from scopa.transport._errors import map_exception, to_grpc_status

__all__ = [
    "EXCLUDED_PREFIXES",
    "AccessLogInterceptor",
    "Call",
    "ErrorMappingInterceptor",
    "InterceptorStack",
    "RpcInterceptor",
    "TracingInterceptor",
    "default_interceptors",
    "status_of_call",
    "wrap_handler",
    "write_whole",
]

EXCLUDED_PREFIXES: tuple[str, ...] = (
    "/grpc.health.v1.Health/",
    "/grpc.reflection.v1alpha.ServerReflection/",
    "/grpc.reflection.v1.ServerReflection/",
)
"""Methods starting with these prefixes get no span, no access-log line and no error mapping."""

_SERVER_ERROR_CODES = frozenset(
    {
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.UNIMPLEMENTED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DATA_LOSS,
    }
)

_EXPECTED_REASONS = frozenset({"SERVER_SHUTTING_DOWN"})
"""Reasons whose code is a server-side one but which are the server working as designed (a
drain), so the access log keeps them at info."""

_call_reason: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "scopa_call_reason", default=None
)
"""The ErrorInfo reason the error mapping chose for the current call (one task per call)."""

Call = Callable[[Any, Any], Awaitable[Any]]
"""A method's behaviour as one coroutine function: ``(request, context) -> response`` (None for a
stream, which writes its messages with ``context.write``)."""

_FACTORIES: dict[tuple[bool, bool], tuple[str, Callable[..., Any]]] = {
    (False, False): ("unary_unary", grpc.unary_unary_rpc_method_handler),
    (False, True): ("unary_stream", grpc.unary_stream_rpc_method_handler),
    (True, False): ("stream_unary", grpc.stream_unary_rpc_method_handler),
    (True, True): ("stream_stream", grpc.stream_stream_rpc_method_handler),
}


def status_of_call(context: Any, exc: BaseException | None) -> grpc.StatusCode:
    """The status code an RPC ends with, given how its handler finished."""
    if exc is None or isinstance(exc, grpc.aio.AbortError):
        code = context.code()
        if isinstance(code, grpc.StatusCode):
            return code
        return grpc.StatusCode.OK if exc is None else grpc.StatusCode.UNKNOWN
    if isinstance(exc, asyncio.CancelledError | GeneratorExit):
        return grpc.StatusCode.CANCELLED
    return grpc.StatusCode.UNKNOWN


async def write_whole(context: Any, item: Any) -> None:
    """``context.write(item)``, never cut short: a cancellation (the drain ending the stream)
    that arrives while the message is being sent waits for the send to finish, then ends the
    call. Cut short, the send stays in flight in grpc's core, and the status sent next (the
    drain's SERVER_SHUTTING_DOWN) is refused (TOO_MANY_OPERATIONS): the client would wait."""
    sending = asyncio.ensure_future(context.write(item))
    try:
        await asyncio.shield(sending)
    except asyncio.CancelledError:
        while not sending.done():  # asyncio.wait leaves the send running when cancelled
            with contextlib.suppress(asyncio.CancelledError):  # end_streams cancels again
                await asyncio.wait((sending,))
        if not sending.cancelled():
            sending.exception()  # retrieved: the call ends by the cancellation, not by this
        raise


def _as_call(behavior: Callable[..., Any]) -> Call | None:
    """``behavior`` as one coroutine function; None for a synchronous one (left alone)."""
    if inspect.isasyncgenfunction(behavior):
        # Streamed with context.write from a coroutine, never re-yielded: grpc.aio finalises an
        # abandoned async generator after a cancelled call is gone, and touching the call then
        # crashes the process. The inner generator is closed here, while the call is alive.

        async def streaming(arg: Any, context: Any) -> None:
            messages = behavior(arg, context)
            try:
                async for item in messages:
                    await write_whole(context, item)
            finally:
                await messages.aclose()

        return streaming
    if inspect.iscoroutinefunction(behavior):
        return cast(Call, behavior)
    return None


def wrap_handler(handler: Any, wrap: Callable[[Call], Call]) -> Any:
    """A copy of an RpcMethodHandler whose behaviour is ``wrap(behaviour)``.

    Built once per method (see :class:`RpcInterceptor`), so a call pays only for the coroutines
    ``wrap`` returned, not for building them.
    """
    attr, factory = _FACTORIES[(bool(handler.request_streaming), bool(handler.response_streaming))]
    call = _as_call(getattr(handler, attr))
    if call is None:
        return handler
    return factory(
        wrap(call),
        request_deserializer=handler.request_deserializer,
        response_serializer=handler.response_serializer,
    )


class RpcInterceptor:
    """Base class: wraps each non-excluded method's handler with :meth:`wrap`, once per method.

    The wrapped handler is kept per method name and returned to every later call of that method
    without asking the rest of the chain again (the inner interceptors, like this one, only build
    handlers; whatever they do per call happens inside the behaviour they built).

    A ``grpc.aio.ServerInterceptor`` by registration, not by inheritance: grpc is untyped (its
    classes are ``Any`` to mypy), and mypyc compiles a class with an ``Any`` base as a native
    class laid out over a Python one, whose attributes then crash the process
    (``tools/build_mypyc.py --also``).
    """

    def __init__(self, excluded_prefixes: Sequence[str] = EXCLUDED_PREFIXES) -> None:
        self._excluded = tuple(excluded_prefixes)
        self._handlers: dict[str, Any] = {}

    async def intercept_service(
        self, continuation: Callable[[Any], Awaitable[Any]], handler_call_details: Any
    ) -> Any:
        """The method's wrapped handler (built on its first call), unless it is excluded."""
        method: str = handler_call_details.method
        handler = self._handlers.get(method)
        if handler is not None:
            return handler
        handler = await continuation(handler_call_details)
        if handler is None:
            return None  # an unknown method: nothing is kept for it
        if not method.startswith(self._excluded):
            handler = wrap_handler(handler, functools.partial(self.wrap, method))
        self._handlers[method] = handler
        return handler

    def wrap(self, method: str, call: Call) -> Call:
        """The behaviour every call of ``method`` runs, around ``call`` (built once)."""
        raise NotImplementedError


grpc.aio.ServerInterceptor.register(RpcInterceptor)


def _carrier(metadata: Any) -> dict[str, str]:
    carrier: dict[str, str] = {}
    for key, value in metadata or ():
        if isinstance(value, str):
            carrier[key] = value
    return carrier


class TracingInterceptor(RpcInterceptor):
    """One SERVER span per RPC, named `package.Service/Method`, plus the call-duration metric.

    Through `scopa.telemetry.ServerTelemetry`, the instrumentation point the HTTP port's
    Connect and REST handlers share: the same attribute names and types for every protocol.
    """

    def __init__(
        self,
        tracer_provider: TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
        excluded_prefixes: Sequence[str] = EXCLUDED_PREFIXES,
    ) -> None:
        super().__init__(excluded_prefixes)
        self._telemetry = ServerTelemetry(tracer_provider, meter_provider)

    def wrap(self, method: str, call: Call) -> Call:
        """Run each call inside a span continuing the caller's W3C trace context."""
        name = method.lstrip("/")
        telemetry = self._telemetry

        async def traced(request: Any, context: Any) -> Any:
            carrier = _carrier(context.invocation_metadata())
            with telemetry.rpc("grpc", name, carrier, peer_attributes(context.peer())) as rpc:
                error: BaseException | None = None
                try:
                    return await call(request, context)
                except BaseException as exc:
                    error = exc
                    raise
                finally:
                    code = status_of_call(context, error)
                    rpc.finish(code.name, error=code in _SERVER_ERROR_CODES)

        return traced


class AccessLogInterceptor(RpcInterceptor):
    """Exactly one log line per RPC: method, outcome, duration, peer (and trace ids)."""

    def __init__(self, excluded_prefixes: Sequence[str] = EXCLUDED_PREFIXES) -> None:
        super().__init__(excluded_prefixes)
        self._log = get_logger("scopa.access")

    def wrap(self, method: str, call: Call) -> Call:
        """Time each call and log how it ended; never bodies, never metadata."""
        # Bound once (structlog's proxy would bind again on every line), with the logging
        # configuration in force when the server first serves this method.
        log = self._log.bind()

        async def logged(request: Any, context: Any) -> Any:
            start = time.perf_counter()
            error: BaseException | None = None
            token = _call_reason.set(None)
            try:
                return await call(request, context)
            except BaseException as exc:
                error = exc
                raise
            finally:
                code = status_of_call(context, error)
                reason = _call_reason.get()
                _call_reason.reset(token)
                fault = code in _SERVER_ERROR_CODES and reason not in _EXPECTED_REASONS
                extra = {"reason": reason} if reason else {}
                (log.error if fault else log.info)(
                    "rpc",
                    rpc_method=method,
                    outcome=code.name,
                    duration_ms=round((time.perf_counter() - start) * 1000, 3),
                    peer=context.peer(),
                    protocol="grpc",
                    **extra,
                )

        return logged


class ErrorMappingInterceptor(RpcInterceptor):
    """Turn exceptions raised by handlers into statuses with ErrorInfo, via `map_exception`."""

    def __init__(self, excluded_prefixes: Sequence[str] = EXCLUDED_PREFIXES) -> None:
        super().__init__(excluded_prefixes)
        self._log = get_logger("scopa.server")

    def wrap(self, method: str, call: Call) -> Call:
        """Abort each call with the mapped status when the handler raises."""

        async def mapped(request: Any, context: Any) -> Any:
            try:
                return await call(request, context)
            except grpc.aio.AbortError:
                raise
            except Exception as exc:
                await self._abort(method, context, exc)
                raise  # unreachable: abort raises

        return mapped

    async def _abort(self, method: str, context: Any, exc: Exception) -> None:
        mapped = map_exception(exc)
        if mapped.server_fault:
            # The exception's type only: its message may quote state (cards, tokens), and
            # spans leave the server; the full traceback is in the server's own log.
            # (error.type is the status code, as the RPC conventions say.)
            trace.get_current_span().add_event(
                "exception", {"exception.type": type(exc).__qualname__}
            )
            self._log.error("rpc.failed", rpc_method=method, reason=mapped.reason, exc_info=exc)
        _call_reason.set(mapped.reason)
        status = to_grpc_status(mapped)
        await context.abort(status.code, status.details, status.trailing_metadata)


class InterceptorStack(RpcInterceptor):
    """Several interceptors' wrappers composed by one interceptor, outermost first.

    Same behaviour as registering them one by one, but one hop through grpc's interceptor
    chain per RPC, and the composed behaviour is built once per method: a call runs one
    coroutine per layer and nothing else.
    """

    def __init__(
        self, layers: Sequence[RpcInterceptor], excluded_prefixes: Sequence[str] = EXCLUDED_PREFIXES
    ) -> None:
        super().__init__(excluded_prefixes)
        self.layers = tuple(layers)

    def wrap(self, method: str, call: Call) -> Call:
        """Every layer's wrapper around ``call``, the first layer outermost."""
        for layer in reversed(self.layers):
            call = layer.wrap(method, call)
        return call


def default_interceptors(
    tracer_provider: TracerProvider | None = None,
    meter_provider: MeterProvider | None = None,
) -> list[RpcInterceptor]:
    """The service's interceptors: tracing, access log, error mapping, as one stack."""
    return [
        InterceptorStack(
            [
                TracingInterceptor(tracer_provider, meter_provider),
                AccessLogInterceptor(),
                ErrorMappingInterceptor(),
            ]
        )
    ]
