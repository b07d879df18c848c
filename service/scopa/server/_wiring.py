"""Application wiring: which servicers the process serves and how readiness is checked.

TODO(scopa): replace with the real wiring (GameService servicer, Redis or embedded store,
readiness = Redis PING). Until then the process serves only health and reflection.
"""

from __future__ import annotations

from scopa.config import Settings
from scopa.server._server import Wiring

__all__ = ["build_services"]


async def _always_ready() -> bool:
    return True


async def _close() -> None:
    return None


async def build_services(settings: Settings) -> Wiring:
    """Build the servicers to register, the readiness check and the clean-up for `settings`."""
    del settings  # TODO(scopa): used by the real wiring (redis_url, TTLs, token secret).
    return Wiring(registrars=[], ready_check=_always_ready, close=_close, service_names=[])
