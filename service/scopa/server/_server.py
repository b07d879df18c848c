"""The grpc.aio server: interceptors, health, reflection, readiness polling, graceful drain.

Shutdown (SIGTERM/SIGINT, or ``stop()``) drains in steps, so that nothing a client sees is cut
without a status that says what to do:

1. readiness (the game service's health and READINESS_SERVICE) turns NOT_SERVING while the
   port stays open; watch streams end at once with UNAVAILABLE / SERVER_SHUTTING_DOWN (clients
   reconnect with their last version) and new streams are refused the same way; unary calls
   are still served for ``drain_delay_s``, while probes and load balancers notice;
2. then every new call is refused with UNAVAILABLE / SERVER_SHUTTING_DOWN, and the unary
   calls in flight get up to ``grace_s`` to finish;
3. then the gRPC server stops (GOAWAY) and the port closes.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, NamedTuple

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

from scopa._tasks import cancel_until_done
from scopa.app import RateLimits
from scopa.config import Settings
from scopa.telemetry import get_logger, untraced
from scopa.transport import HttpServer
from scopa.transport._guard import Drain, ServerGuard
from scopa.transport._interceptors import default_interceptors

__all__ = [
    "GAME_SERVICE",
    "READINESS_SERVICE",
    "HttpAppFactory",
    "ReadyCheck",
    "Registrar",
    "ScopaServer",
    "Wiring",
    "serve",
]

GAME_SERVICE = "scopa.v1.GameService"
"""Full name of the game service; its health status is the readiness signal."""

READINESS_SERVICE = "readiness"
"""Extra health service name with the same status as GAME_SERVICE, for probes."""

_STREAM_END_S = 1.0
"""At least this long to end open streams at a drain, even with a shorter drain delay."""

_SERVING = health_pb2.HealthCheckResponse.SERVING
_NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING

Registrar = Callable[[Any], None]
"""Registers one servicer on a grpc.aio.Server (e.g. `add_GameServiceServicer_to_server`)."""

ReadyCheck = Callable[[], Awaitable[bool]]
"""Answers whether the process can serve games now (e.g. Redis answers PING)."""


HttpAppFactory = Callable[[Any], Any]
"""Builds the HTTP port's ASGI application given the server (its `live()`/`ready()` probes)."""


REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"
"""Server reflection's current name, which grpcurl and buf curl ask for first; grpcio-reflection
serves only v1alpha, whose messages are the same on the wire."""


class GenericHandlersOnly:
    """A grpc.aio server as registration code (``add_*Servicer_to_server``, the game service's
    ``add_game_service``) sees it: it takes their generic handlers and drops their registered
    methods, which serve the same calls. grpc.aio keeps one request for the next call per
    registered method and waits on all of them for every call it takes (``asyncio.wait``):
    4.5-5.5% of a gRPC PlayCard's instructions (``bench/callgrind.py --proto grpc``)."""

    def __init__(self, server: grpc.aio.Server) -> None:
        self._server = server

    def add_generic_rpc_handlers(self, handlers: Sequence[grpc.GenericRpcHandler]) -> None:
        """Serve these handlers."""
        self._server.add_generic_rpc_handlers(handlers)

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        """Nothing: the same handlers came as a generic one."""


def _enable_reflection(service_names: tuple[str, ...], server: Any) -> None:
    """Serve reflection as both grpc.reflection.v1 and v1alpha, each listing both."""
    names = (*service_names, REFLECTION_V1, reflection.SERVICE_NAME)
    servicer = reflection.aio.ReflectionServicer(names)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    v1 = grpc.method_handlers_generic_handler(
        REFLECTION_V1,
        {
            "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
                servicer.ServerReflectionInfo,
                request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
                response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
            )
        },
    )
    server.add_generic_rpc_handlers((v1,))


class Wiring(NamedTuple):
    """What the application contributes to the server, built by `_wiring.build_services`."""

    registrars: Sequence[Registrar]
    ready_check: ReadyCheck
    close: Callable[[], Awaitable[None]]
    service_names: Sequence[str] = (GAME_SERVICE,)
    """Full names of the registered services, for reflection and health."""
    rate_limits: RateLimits | None = None
    """Per-client limits on CreateGame and JoinGame, checked by the server's guard."""
    http_app: HttpAppFactory | None = None
    """The HTTP port's application (served on `settings.http_port` unless that is off)."""


class ScopaServer:
    """A started grpc.aio server with health and reflection; stop it with `stop()`."""

    def __init__(
        self,
        settings: Settings,
        registrars: Sequence[Registrar],
        ready_check: ReadyCheck,
        *,
        service_names: Sequence[str] = (GAME_SERVICE,),
        interceptors: Sequence[Any] | None = None,
        ready_interval_s: float = 2.0,
        ready_timeout_s: float = 1.0,
        rate_limits: RateLimits | None = None,
        http_app: HttpAppFactory | None = None,
    ) -> None:
        self.settings = settings
        self.http_port: int | None = None
        self._http_app = http_app
        self._http: HttpServer | None = None
        self.health = health_aio.HealthServicer()
        self.drain = Drain()
        """Shutdown state; ``drain.draining`` is True from the first step of ``stop()``."""
        self.port = 0
        self._ready_check = ready_check
        self._ready_interval_s = ready_interval_s
        self._ready_timeout_s = ready_timeout_s
        self._readiness_names = (*service_names, READINESS_SERVICE)
        self._ready_task: asyncio.Task[None] | None = None
        self._ready: bool | None = None
        self._log = get_logger("scopa.server")
        guard = ServerGuard(
            self.drain,
            max_request_bytes=settings.max_request_bytes,
            rate_limits=rate_limits,
            trusted_proxy_header=settings.trusted_proxy_header,
            trusted_proxy_hops=settings.trusted_proxy_hops,
        )
        outer = list(default_interceptors() if interceptors is None else interceptors)
        self._server = grpc.aio.server(
            interceptors=[*outer, guard],  # the guard innermost: its errors are mapped, logged
            options=_server_options(settings),
        )
        registering = GenericHandlersOnly(self._server)
        for register in registrars:
            register(registering)
        health_pb2_grpc.add_HealthServicer_to_server(self.health, registering)
        _enable_reflection(
            (*service_names, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name),
            registering,
        )

    async def start(self) -> int:
        """Bind, check readiness once, start serving and polling readiness; return the port."""
        self.port = self._server.add_insecure_port(self.settings.address)
        if self.port == 0:
            raise OSError(f"could not bind {self.settings.address}")
        await self._update_readiness()
        if self._http_app is not None and self.settings.http_port is not None:
            self._http = HttpServer(
                self._http_app(self),
                self.settings.host,
                self.settings.http_port,
                grace_s=self.settings.grace_s,
                ws_max_bytes=4 * self.settings.max_request_bytes,
                ws_ping_s=self.settings.session_ping_s,
            )
            self.http_port = await self._http.start()
            self._log.info(
                "listening", protocol="http", host=self.settings.host, port=self.http_port
            )
        await self._server.start()
        self._ready_task = asyncio.create_task(self._poll_readiness(), name="scopa-readiness")
        self._log.info("listening", protocol="grpc", host=self.settings.host, port=self.port)
        return self.port

    def live(self) -> bool:
        """True until the server starts to drain (the HTTP port's /healthz)."""
        return not self.drain.draining

    def ready(self) -> bool:
        """The readiness the health service reports (the HTTP port's /readyz)."""
        return bool(self._ready) and not self.drain.draining

    async def stop(self) -> None:
        """Drain (see the module docstring), then stop the gRPC server."""
        if self._ready_task is not None:
            await cancel_until_done(self._ready_task)
        await self.health.enter_graceful_shutdown()
        self._log_readiness(False, "shutdown")
        ended = self.drain.begin()
        delay = self.settings.drain_delay_s
        self._log.info("draining", streams_ended=ended, drain_delay_s=delay)
        start = asyncio.get_running_loop().time()
        await self.drain.end_streams(max(delay, _STREAM_END_S))
        await asyncio.sleep(max(0.0, delay - (asyncio.get_running_loop().time() - start)))
        self.drain.close()
        http_stop = self._http.stop() if self._http is not None else asyncio.sleep(0)
        idle, _ = await asyncio.gather(self.drain.wait_idle(self.settings.grace_s), http_stop)
        self._log.info("stopping", in_flight_done=idle, grace_s=self.settings.grace_s)
        await self._server.stop(0)
        self._log.info("stopped")

    async def _is_ready(self) -> bool:
        try:
            # Untraced: a poll every few seconds would otherwise make a root trace each time.
            with untraced():
                return await asyncio.wait_for(self._ready_check(), self._ready_timeout_s)
        except Exception as exc:  # a failing check means "not ready", never a crash
            self._log.warning("readiness check failed", error=type(exc).__name__)
            return False

    def _log_readiness(self, ready: bool, reason: str) -> None:
        """Log a change of readiness (and the first reading), never an unchanged one."""
        if ready == self._ready:
            return
        log = self._log.info if ready or reason == "shutdown" else self._log.warning
        log("readiness_changed", ready=ready, previous=self._ready, reason=reason)
        self._ready = ready

    async def _update_readiness(self) -> None:
        ready = await self._is_ready()
        self._log_readiness(ready, "check")
        status = _SERVING if ready else _NOT_SERVING
        for name in self._readiness_names:
            await self.health.set(name, status)

    async def _poll_readiness(self) -> None:
        while True:
            await asyncio.sleep(self._ready_interval_s)
            await self._update_readiness()


def _server_options(settings: Settings) -> list[tuple[str, int]]:
    options = [
        ("grpc.so_reuseport", 0),
        # Up to 4x the limit reaches the guard, which answers with ErrorInfo; beyond, gRPC does.
        ("grpc.max_receive_message_length", 4 * settings.max_request_bytes),
    ]
    if settings.max_connection_age_s is not None:
        options += [
            ("grpc.max_connection_age_ms", int(settings.max_connection_age_s * 1000)),
            ("grpc.max_connection_age_grace_ms", int(settings.grace_s * 1000)),
        ]
    return options


async def serve(
    settings: Settings,
    registrars: Sequence[Registrar],
    ready_check: ReadyCheck,
    *,
    service_names: Sequence[str] = (GAME_SERVICE,),
    stop_event: asyncio.Event | None = None,
    rate_limits: RateLimits | None = None,
    http_app: HttpAppFactory | None = None,
) -> None:
    """Serve until SIGTERM/SIGINT (or `stop_event`), then shut down gracefully."""
    stop = stop_event if stop_event is not None else asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    server = ScopaServer(
        settings,
        registrars,
        ready_check,
        service_names=service_names,
        rate_limits=rate_limits,
        http_app=http_app,
    )
    try:
        await server.start()
        await stop.wait()
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
        await server.stop()
