"""Process entry point: settings, telemetry, application wiring, serve until signalled."""

from __future__ import annotations

import asyncio
import gc
import os
import sys

from scopa import __version__
from scopa._tasks import cancel_until_done
from scopa.config import ConfigError, Settings
from scopa.server._runtime import RuntimeStats
from scopa.server._server import serve
from scopa.telemetry import configure_logging, configure_tracing, effective_settings, get_logger

__all__ = ["main", "run"]


async def run(settings: Settings) -> None:
    """Build the application services and serve them until SIGTERM/SIGINT."""
    from scopa.server._wiring import build_services  # noqa: PLC0415  (replaced by the app)

    wiring = await build_services(settings)
    _settle_gc()
    stats = None
    if settings.runtime_stats_s is not None:
        stats = asyncio.create_task(RuntimeStats().run(settings.runtime_stats_s))
    try:
        await serve(
            settings,
            wiring.registrars,
            wiring.ready_check,
            service_names=wiring.service_names,
            rate_limits=wiring.rate_limits,
            http_app=wiring.http_app,
        )
    finally:
        if stats is not None:
            await cancel_until_done(stats)
        await wiring.close()


_GC_THRESHOLDS = (20_000, 20, 20)
"""Collections of the youngest generation every 20,000 net container allocations (CPython's
default is 700, which under load ran one every call or two and promoted the objects of the calls
in flight to the older generations, whose full collections then stalled the event loop)."""


def _settle_gc() -> None:
    """Keep the garbage collector off the start-up objects and collect less often.

    ``gc.freeze()`` moves every object alive after start-up (modules, classes, protobuf
    descriptors, ~75k objects) to a permanent generation that collections no longer traverse: a
    full collection over them took ~50-130 ms on the 2-core bench machine, a stall of every call
    in flight.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*_GC_THRESHOLDS)


def main() -> int:
    """Run the scopa gRPC service configured from the environment; return the exit code."""
    try:
        settings = Settings.from_env(os.environ)
    except ConfigError as exc:
        print(f"scopa: configuration error: {exc}", file=sys.stderr)
        return 2
    configure_logging(settings)
    log = get_logger("scopa.server")
    shutdown_telemetry = configure_tracing(settings)
    # The effective configuration, secrets masked: what an operator checks first.
    log.info("starting", version=__version__, settings=effective_settings(settings))
    if settings.token_secret_generated:
        log.warning(
            "SCOPA_TOKEN_SECRET is not set: using a random key, so seat tokens will not "
            "survive a restart or work across replicas"
        )
    try:
        asyncio.run(run(settings))
    except Exception:
        log.exception("server failed")
        return 1
    finally:
        shutdown_telemetry()
    return 0
