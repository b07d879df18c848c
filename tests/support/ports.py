"""Start a test's server process on a port picked free, again on another one when the pick was
taken in between.

``free_port`` binds port 0 and releases it, and the process binds the port it was given a
moment later: another test worker (or any process) may take that port in between. A helper's
``start(port)`` raises :class:`PortTaken` when its process exited without serving (what a
server does when it cannot bind), and :func:`on_free_port` calls it again on another free port.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from support.redis_server import free_port

__all__ = ["ATTEMPTS", "PortTaken", "on_free_port"]

ATTEMPTS = 5
_T = TypeVar("_T")


class PortTaken(Exception):
    """The process exited before serving: most likely another one took its port first."""


def on_free_port(start: Callable[[int], _T], attempts: int = ATTEMPTS) -> _T:
    """``start(port)`` on a free port, on another free port each time it raises PortTaken (at
    most ``attempts`` times; the last PortTaken propagates)."""
    for attempt in range(attempts):
        try:
            return start(free_port())
        except PortTaken:
            if attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")
