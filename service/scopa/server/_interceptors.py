"""Server interceptors: one span, one access-log line and one error mapping per RPC.

Each interceptor wraps the RPC's method handler (unary or streaming, coroutine or async
generator) in an async context manager, so it sees the whole call including every streamed
message. Health-check and reflection RPCs pass through untouched.
Order in `default_interceptors()`: tracing (outermost), access log, error mapping (innermost), so
the access log and the span both see the status code the error mapping chose.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Any

import grpc
from opentelemetry import trace
from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import TracerProvider

from scopa.server._errors import map_exception, to_grpc_status
from scopa.telemetry import ServerTelemetry, get_logger, peer_attributes

__all__ = [
    "EXCLUDED_PREFIXES",
    "AccessLogInterceptor",
    "ErrorMappingInterceptor",
    "InterceptorStack",
    "RpcInterceptor",
    "TracingInterceptor",
    "default_interceptors",
    "status_of_call",
    "wrap_handler",
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

Scope = Callable[[Any], AbstractAsyncContextManager[None]]
Behavior = Callable[[Any, Any], Any]

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


def _wrap_behavior(behavior: Behavior, scope: Scope) -> Behavior | None:
    if inspect.isasyncgenfunction(behavior):
        # Streamed with context.write from a coroutine, never re-yielded: grpc.aio finalises an
        # abandoned async generator after a cancelled call is gone, and touching the call then
        # crashes the process. The inner generator is closed here, while the call is alive.

        async def streaming(arg: Any, context: Any) -> None:
            async with scope(context):
                messages = behavior(arg, context)
                try:
                    async for item in messages:
                        await context.write(item)
                finally:
                    await messages.aclose()

        return streaming
    if inspect.iscoroutinefunction(behavior):

        async def coroutine(arg: Any, context: Any) -> Any:
            async with scope(context):
                return await behavior(arg, context)

        return coroutine
    return None


def wrap_handler(handler: Any, scope: Scope) -> Any:
    """Return a copy of an RpcMethodHandler whose behaviour runs inside `scope(context)`."""
    attr, factory = _FACTORIES[(bool(handler.request_streaming), bool(handler.response_streaming))]
    wrapped = _wrap_behavior(getattr(handler, attr), scope)
    if wrapped is None:
        return handler
    return factory(
        wrapped,
        request_deserializer=handler.request_deserializer,
        response_serializer=handler.response_serializer,
    )


class RpcInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Base class: wraps each non-excluded RPC in the async context manager `scope()`."""

    def __init__(self, excluded_prefixes: Sequence[str] = EXCLUDED_PREFIXES) -> None:
        self._excluded = tuple(excluded_prefixes)

    async def intercept_service(
        self, continuation: Callable[[Any], Awaitable[Any]], handler_call_details: Any
    ) -> Any:
        """Wrap the handler found by the rest of the chain, unless the method is excluded."""
        handler = await continuation(handler_call_details)
        method: str = handler_call_details.method
        if handler is None or method.startswith(self._excluded):
            return handler
        return wrap_handler(handler, lambda context: self.scope(handler_call_details, context))

    def scope(self, details: Any, context: Any) -> AbstractAsyncContextManager[None]:
        """The async context manager one RPC runs inside."""
        raise NotImplementedError


def _carrier(details: Any) -> dict[str, str]:
    carrier: dict[str, str] = {}
    for key, value in details.invocation_metadata or ():
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

    @asynccontextmanager
    async def scope(self, details: Any, context: Any) -> AsyncIterator[None]:
        """Run the RPC inside a span continuing the caller's W3C trace context."""
        method = str(details.method).lstrip("/")
        peer = peer_attributes(context.peer())
        with self._telemetry.rpc("grpc", method, _carrier(details), peer) as call:
            error: BaseException | None = None
            try:
                yield
            except BaseException as exc:
                error = exc
                raise
            finally:
                code = status_of_call(context, error)
                call.finish(code.name, error=code in _SERVER_ERROR_CODES)


class AccessLogInterceptor(RpcInterceptor):
    """Exactly one log line per RPC: method, outcome, duration, peer (and trace ids)."""

    def __init__(self, excluded_prefixes: Sequence[str] = EXCLUDED_PREFIXES) -> None:
        super().__init__(excluded_prefixes)
        self._log = get_logger("scopa.access")

    @asynccontextmanager
    async def scope(self, details: Any, context: Any) -> AsyncIterator[None]:
        """Time the RPC and log how it ended; never bodies, never metadata."""
        start = time.perf_counter()
        error: BaseException | None = None
        token = _call_reason.set(None)
        try:
            yield
        except BaseException as exc:
            error = exc
            raise
        finally:
            code = status_of_call(context, error)
            reason = _call_reason.get()
            _call_reason.reset(token)
            fault = code in _SERVER_ERROR_CODES and reason not in _EXPECTED_REASONS
            log = self._log.error if fault else self._log.info
            extra = {"reason": reason} if reason else {}
            log(
                "rpc",
                rpc_method=details.method,
                outcome=code.name,
                duration_ms=round((time.perf_counter() - start) * 1000, 3),
                peer=context.peer(),
                **extra,
            )


class ErrorMappingInterceptor(RpcInterceptor):
    """Turn exceptions raised by handlers into statuses with ErrorInfo, via `map_exception`."""

    def __init__(self, excluded_prefixes: Sequence[str] = EXCLUDED_PREFIXES) -> None:
        super().__init__(excluded_prefixes)
        self._log = get_logger("scopa.server")

    @asynccontextmanager
    async def scope(self, details: Any, context: Any) -> AsyncIterator[None]:
        """Abort the RPC with the mapped status when the handler raises."""
        try:
            yield
        except grpc.aio.AbortError:
            raise
        except Exception as exc:
            mapped = map_exception(exc)
            if mapped.server_fault:
                # The exception's type only: its message may quote state (cards, tokens), and
                # spans leave the server; the full traceback is in the server's own log.
                # (error.type is the status code, as the RPC conventions say.)
                trace.get_current_span().add_event(
                    "exception", {"exception.type": type(exc).__qualname__}
                )
                self._log.error(
                    "rpc.failed", rpc_method=details.method, reason=mapped.reason, exc_info=exc
                )
            _call_reason.set(mapped.reason)
            status = to_grpc_status(mapped)
            await context.abort(status.code, status.details, status.trailing_metadata)


class InterceptorStack(RpcInterceptor):
    """Several interceptors' scopes entered by one interceptor, outermost first.

    Same behaviour as registering them one by one, but one hop through grpc's interceptor
    chain and one handler wrap per RPC instead of one per layer.
    """

    def __init__(
        self, layers: Sequence[RpcInterceptor], excluded_prefixes: Sequence[str] = EXCLUDED_PREFIXES
    ) -> None:
        super().__init__(excluded_prefixes)
        self.layers = tuple(layers)

    @asynccontextmanager
    async def scope(self, details: Any, context: Any) -> AsyncIterator[None]:
        """Enter every layer's scope in order; exceptions unwind them innermost first."""
        async with AsyncExitStack() as stack:
            for layer in self.layers:
                await stack.enter_async_context(layer.scope(details, context))
            yield


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
