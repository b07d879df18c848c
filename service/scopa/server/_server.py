"""The grpc.aio server: interceptors, health, reflection, readiness polling, graceful stop."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, NamedTuple

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection

from scopa.config import Settings
from scopa.server._interceptors import default_interceptors
from scopa.telemetry import get_logger

__all__ = [
    "GAME_SERVICE",
    "READINESS_SERVICE",
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

_SERVING = health_pb2.HealthCheckResponse.SERVING
_NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING

Registrar = Callable[[Any], None]
"""Registers one servicer on a grpc.aio.Server (e.g. `add_GameServiceServicer_to_server`)."""

ReadyCheck = Callable[[], Awaitable[bool]]
"""Answers whether the process can serve games now (e.g. Redis answers PING)."""


class Wiring(NamedTuple):
    """What the application contributes to the server, built by `_wiring.build_services`."""

    registrars: Sequence[Registrar]
    ready_check: ReadyCheck
    close: Callable[[], Awaitable[None]]
    service_names: Sequence[str] = (GAME_SERVICE,)
    """Full names of the registered services, for reflection and health."""


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
    ) -> None:
        self.settings = settings
        self.health = health_aio.HealthServicer()
        self.port = 0
        self._ready_check = ready_check
        self._ready_interval_s = ready_interval_s
        self._ready_timeout_s = ready_timeout_s
        self._readiness_names = (*service_names, READINESS_SERVICE)
        self._ready_task: asyncio.Task[None] | None = None
        self._log = get_logger("scopa.server")
        self._server = grpc.aio.server(
            interceptors=list(default_interceptors() if interceptors is None else interceptors),
            options=_server_options(settings),
        )
        for register in registrars:
            register(self._server)
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self._server)
        reflection.enable_server_reflection(
            (
                *service_names,
                health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
                reflection.SERVICE_NAME,
            ),
            self._server,
        )

    async def start(self) -> int:
        """Bind, check readiness once, start serving and polling readiness; return the port."""
        self.port = self._server.add_insecure_port(self.settings.address)
        if self.port == 0:
            raise OSError(f"could not bind {self.settings.address}")
        await self._update_readiness()
        await self._server.start()
        self._ready_task = asyncio.create_task(self._poll_readiness(), name="scopa-readiness")
        self._log.info("listening", host=self.settings.host, port=self.port)
        return self.port

    async def stop(self) -> None:
        """Report NOT_SERVING, then give in-flight RPCs the grace period and stop."""
        await self.health.enter_graceful_shutdown()
        if self._ready_task is not None:
            self._ready_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ready_task
        self._log.info("stopping", grace_s=self.settings.grace_s)
        await self._server.stop(self.settings.grace_s)
        self._log.info("stopped")

    async def _is_ready(self) -> bool:
        try:
            return await asyncio.wait_for(self._ready_check(), self._ready_timeout_s)
        except Exception as exc:  # a failing check means "not ready", never a crash
            self._log.warning("readiness check failed", error=type(exc).__name__)
            return False

    async def _update_readiness(self) -> None:
        status = _SERVING if await self._is_ready() else _NOT_SERVING
        for name in self._readiness_names:
            await self.health.set(name, status)

    async def _poll_readiness(self) -> None:
        while True:
            await asyncio.sleep(self._ready_interval_s)
            await self._update_readiness()


def _server_options(settings: Settings) -> list[tuple[str, int]]:
    options = [("grpc.so_reuseport", 0)]
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
) -> None:
    """Serve until SIGTERM/SIGINT (or `stop_event`), then shut down gracefully."""
    stop = stop_event if stop_event is not None else asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    server = ScopaServer(settings, registrars, ready_check, service_names=service_names)
    try:
        await server.start()
        await stop.wait()
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
        await server.stop()
