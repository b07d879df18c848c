"""What an HTTP-port call must pass before it runs: the drain and the rate limits.

The same policy as the gRPC port's guard (scopa.transport._guard): while the server drains, new
calls are refused with UNAVAILABLE / SERVER_SHUTTING_DOWN and open streams are ended the same
way; CreateGame and JoinGame count against the client's rate limit, the client being the peer
address or what a trusted proxy header says (:meth:`HttpGuard.client_of`, which streams pass
on for the per-client stream cap), or a signed-in caller's subject (its digest).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from scopa.app import RateLimits, client_key
from scopa.transport._guard import RATE_LIMITED_METHODS, Drain

from ._http_telemetry import Scope

_R = TypeVar("_R")

__all__ = ["HttpGuard"]


class HttpGuard:
    """Drain admission and rate limits around each HTTP-port call."""

    def __init__(
        self,
        drain: Drain,
        rate_limits: RateLimits | None = None,
        *,
        trusted_proxy_header: str | None = None,
        trusted_proxy_hops: int = 1,
    ) -> None:
        self._drain = drain
        self._limits = rate_limits
        self._proxy_header = trusted_proxy_header.lower().encode() if trusted_proxy_header else None
        self._proxy_hops = trusted_proxy_hops

    async def unary(
        self,
        scope: Scope,
        rpc_method: str,
        handler: Callable[[Any, str | None], Awaitable[_R]],
        request: Any,
        token: str | None,
    ) -> _R:
        """``handler(request, token)`` once admitted (else ServerShuttingDown / RateLimited),
        counted as a unary call in flight: the gRPC guard's unary path, without a context
        manager per call."""
        self._drain.admit(False)
        self._drain.unary_started()
        try:
            await self._check_rate(scope, rpc_method, token)
            return await handler(request, token)
        finally:
            self._drain.unary_finished()

    @asynccontextmanager
    async def stream(self, scope: Scope, rpc_method: str) -> AsyncIterator[None]:
        """Admit a stream (or raise) and register it, so that draining ends it."""
        self._drain.admit(True)
        async with self._drain.tracked(True):
            await self._check_rate(scope, rpc_method)
            yield

    async def _check_rate(self, scope: Scope, rpc_method: str, token: str | None = None) -> None:
        action = RATE_LIMITED_METHODS.get(rpc_method)
        if action is not None and self._limits is not None:
            await self._limits.check(action, self.client_of(scope), token)

    def client_of(self, scope: Scope) -> str:
        """The client a call counts against (rate limits, the per-client stream cap)."""
        client = scope.get("client")
        host = str(client[0]) if client else "unknown"
        forwarded = ""
        if self._proxy_header is not None:
            for key, value in scope["headers"]:
                if key == self._proxy_header:
                    forwarded = value.decode("latin-1")  # the last one: a proxy appends
        return client_key(host, forwarded, self._proxy_hops)
