"""One server span, one metric point and one access-log line per HTTP request.

REST spans follow the OpenTelemetry HTTP semantic conventions (name ``{method} {route}``,
``http.request.method``, ``http.route``, ``http.response.status_code``, ...), Connect and
gRPC-Web calls the RPC ones; all continue the caller's W3C ``traceparent``. The access-log line
has the gRPC access log's fields (``rpc_method``, ``outcome``, ``duration_ms``, ``peer``) plus
the HTTP ones. Handlers report how their RPC ended through :func:`current_exchange`; exceptions
become errors through :func:`map_error`, which logs server faults like the gRPC error mapping.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, MutableMapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from opentelemetry import trace
from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import TracerProvider

from scopa.telemetry import ServerTelemetry, get_logger
from scopa.telemetry._semconv import (
    NETWORK_PEER_ADDRESS,
    NETWORK_PEER_PORT,
    RPC_METHOD,
    SERVER_ADDRESS,
    SERVER_PORT,
)
from scopa.transport._errors import MappedError, map_exception

__all__ = [
    "ASGIApp",
    "Classified",
    "Classify",
    "Exchange",
    "TelemetryMiddleware",
    "current_exchange",
    "map_error",
    "peer_attributes",
    "peer_name",
    "trace_carrier",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

UNTRACED_PATHS = frozenset({"/healthz", "/readyz"})
"""Probes get no span and no log line, like the gRPC health service."""

_OUTCOME_OF_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    405: "UNIMPLEMENTED",
    409: "ABORTED",
    412: "FAILED_PRECONDITION",
    413: "RESOURCE_EXHAUSTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    501: "UNIMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


@dataclass
class Exchange:
    """What one HTTP request did, filled in by the handler that served it."""

    protocol: str
    rpc_method: str = ""
    outcome: str = ""
    route: str = ""
    reason: str = ""
    scope: Scope | None = None


_CURRENT: ContextVar[Exchange | None] = ContextVar("scopa_http_exchange", default=None)


def current_exchange() -> Exchange:
    """The exchange of the request being served (a detached one outside a request)."""
    exchange = _CURRENT.get()
    return exchange if exchange is not None else Exchange("none")


def map_error(exc: BaseException) -> MappedError:
    """Map ``exc`` with the shared table, record the outcome, and log a server fault."""
    mapped = map_exception(exc)
    exchange = current_exchange()
    exchange.outcome = mapped.code.name
    exchange.reason = mapped.reason
    if mapped.server_fault:
        # The exception's type only: its message may quote state, and spans leave the server.
        trace.get_current_span().add_event("exception", {"exception.type": type(exc).__qualname__})
        get_logger("scopa.server").error(
            "rpc.failed", rpc_method=exchange.rpc_method, reason=mapped.reason, exc_info=exc
        )
    return mapped


def trace_carrier(scope: Scope) -> dict[str, str]:
    """The request's W3C trace context headers."""
    wanted = {b"traceparent", b"tracestate"}
    return {k.decode(): v.decode("latin-1") for k, v in scope["headers"] if k in wanted}


def peer_name(scope: Scope) -> str:
    """The client's address as the gRPC access log writes it (``ipv4:1.2.3.4:5``)."""
    client = scope.get("client")
    if not client:
        return "unknown"
    host, port = client[0], client[1]
    return f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{host}:{port}"


@dataclass(frozen=True)
class Classified:
    """What a request is, known from its method and path before it runs."""

    protocol: str
    """``rest``, ``connect``, ``grpc-web``, ``grpc`` or ``http``."""
    route: str
    """The path template (REST), the RPC's ``pkg.Service/Method`` (Connect), or the path."""
    rpc_method: str = ""
    """``/pkg.Service/Method`` when the request is one RPC."""


Classify = Callable[[Scope], Classified]

_SERVER_ERROR_CODES = frozenset(
    {"UNKNOWN", "DEADLINE_EXCEEDED", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS"}
)
_EXPECTED_REASONS = frozenset({"SERVER_SHUTTING_DOWN"})


class TelemetryMiddleware:
    """ASGI middleware: a SERVER span, the call-duration metric and one access-log line.

    REST requests get an HTTP span (``GET /v1/{name=games/*}``, ``http.route``, ...), Connect and
    gRPC-Web calls an RPC span (``scopa.v1.GameService/PlayCard``), both through
    :class:`scopa.telemetry.ServerTelemetry`, the point the gRPC interceptors share.
    """

    def __init__(
        self,
        app: ASGIApp,
        classify: Classify,
        tracer_provider: TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
    ) -> None:
        self._app = app
        self._classify = classify
        self._telemetry = ServerTelemetry(tracer_provider, meter_provider)
        self._log = get_logger("scopa.access")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one request inside its span."""
        if scope["type"] != "http" or scope["path"] in UNTRACED_PATHS:
            await self._app(scope, receive, send)
            return
        kind = self._classify(scope)
        exchange = Exchange(kind.protocol, kind.rpc_method, route=kind.route, scope=scope)
        token = _CURRENT.set(exchange)
        status = 500

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        start = time.perf_counter()
        try:
            if kind.protocol in ("connect", "grpc-web", "grpc"):
                system = "connectrpc" if kind.protocol == "connect" else "grpc"
                with self._telemetry.rpc(
                    system, kind.route, trace_carrier(scope), peer_attributes(scope)
                ) as rpc:
                    try:
                        await self._app(scope, receive, send_status)
                    finally:
                        outcome = _outcome(exchange, status)
                        rpc.finish(outcome, error=_is_fault(exchange, outcome))
            else:
                attributes = peer_attributes(scope)
                if kind.rpc_method:
                    attributes[RPC_METHOD] = kind.rpc_method.lstrip("/")
                scheme = scope.get("scheme", "http")
                carrier = trace_carrier(scope)
                with self._telemetry.http(
                    scope["method"], kind.route, scheme, carrier, attributes
                ) as call:
                    try:
                        await self._app(scope, receive, send_status)
                    finally:
                        call.finish(status)
        finally:
            _CURRENT.reset(token)
            self._access_log(scope, exchange, status, time.perf_counter() - start)

    def _access_log(self, scope: Scope, exchange: Exchange, status: int, elapsed_s: float) -> None:
        outcome = _outcome(exchange, status)
        log = self._log.error if _is_fault(exchange, outcome) or status >= 500 else self._log.info
        extra = {"reason": exchange.reason} if exchange.reason else {}
        log(
            "rpc",
            rpc_method=exchange.rpc_method or scope["path"],
            outcome=outcome,
            duration_ms=round(elapsed_s * 1000, 3),
            peer=peer_name(scope),
            protocol=exchange.protocol,
            http_method=scope["method"],
            http_route=exchange.route,
            http_status=status,
            **extra,
        )


def _outcome(exchange: Exchange, status: int) -> str:
    if exchange.outcome:
        return exchange.outcome
    if status < 400:
        return "OK"
    return _OUTCOME_OF_STATUS.get(status, "UNKNOWN" if status >= 500 else "INVALID_ARGUMENT")


def _is_fault(exchange: Exchange, outcome: str) -> bool:
    return outcome in _SERVER_ERROR_CODES and exchange.reason not in _EXPECTED_REASONS


def peer_attributes(scope: Scope) -> dict[str, str | int]:
    """The span attributes of the client's and the server's addresses."""
    client = scope.get("client")
    attributes: dict[str, str | int] = {}
    if client:
        attributes[NETWORK_PEER_ADDRESS], attributes[NETWORK_PEER_PORT] = client[0], client[1]
    server = scope.get("server")
    if server:
        attributes[SERVER_ADDRESS], attributes[SERVER_PORT] = server[0], server[1]
    return attributes
