"""The event loop the server process runs on: libuv's (uvloop) where it is installed.

grpc.aio, uvicorn and redis-py all run on the running loop; uvloop's loop and transports are
written in C (libuv, Cython), where asyncio's selector loop and socket transports run Python
code for every wake-up, read and write. ``bench/service.py`` measured about a tenth less server
CPU per PlayCard and GetState (its floors run on the same loop: the ratios stay alike).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from scopa.config import ConfigError, EventLoop

__all__ = ["LoopFactory", "loop_factory", "loop_name"]

LoopFactory = Callable[[], asyncio.AbstractEventLoop]


def loop_factory(choice: EventLoop | str) -> LoopFactory | None:
    """The loop factory for ``choice`` (``SCOPA_EVENT_LOOP``): uvloop's for ``uvloop``, and for
    ``auto`` when uvloop is installed; None (asyncio's own loop) for ``asyncio``, or ``auto``
    without uvloop. ``uvloop`` without it installed is a ConfigError."""
    if choice == "asyncio":
        return None
    try:
        import uvloop  # noqa: PLC0415  (optional: not on every platform)
    except ImportError:
        if choice == "uvloop":
            raise ConfigError("SCOPA_EVENT_LOOP=uvloop, but uvloop is not installed") from None
        return None
    factory: LoopFactory = uvloop.new_event_loop
    return factory


def loop_name(factory: LoopFactory | None) -> str:
    """``uvloop`` or ``asyncio``: what :func:`loop_factory` chose, for the start-up log."""
    return "asyncio" if factory is None else "uvloop"
