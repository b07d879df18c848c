"""Tests of scopa.transport._http_guard: drain admission and rate limits on the HTTP port."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest

from scopa.app import RateLimits
from scopa.transport._errors import ServerShuttingDown
from scopa.transport._guard import Drain
from scopa.transport._http_guard import HttpGuard

_CREATE = "/scopa.v1.GameService/CreateGame"
_PLAY = "/scopa.v1.GameService/PlayCard"


class _Limits:
    """Records each rate-limit check; refuses the client named ``over``."""

    def __init__(self, over: str = "") -> None:
        self.checked: list[tuple[str, str]] = []
        self.over = over

    async def check(self, action: str, client: str, bearer: str | None = None) -> None:
        self.checked.append((action, client))
        if client == self.over:
            raise RuntimeError("rate limited")


def _scope(host: str = "10.0.0.1", forwarded: bytes | None = None) -> dict[str, Any]:
    headers = [(b"x-forwarded-for", forwarded)] if forwarded is not None else []
    return {"client": (host, 5000), "headers": headers}


async def _handler(request: Any, token: str | None) -> tuple[Any, str | None]:
    return request, token


def test_unary_calls_are_counted_in_flight_until_they_end() -> None:
    """A unary call keeps the drain busy while it runs and answers the handler's result."""

    async def scenario() -> tuple[bool, Any, bool]:
        drain = Drain()
        guard = HttpGuard(drain)
        release = asyncio.Event()

        async def slow(request: Any, token: str | None) -> Any:
            await release.wait()
            return request

        call = asyncio.create_task(guard.unary(_scope(), _PLAY, slow, "req", None))
        await asyncio.sleep(0)
        idle_while_running = await drain.wait_idle(0.01)
        release.set()
        result = await call
        return idle_while_running, result, await drain.wait_idle(0.01)

    assert asyncio.run(scenario()) == (False, "req", True)


def test_closed_drain_refuses_unary_calls_before_the_handler() -> None:
    """Once the drain is closed a unary call raises ServerShuttingDown and runs nothing."""
    drain = Drain()
    drain.close()
    ran: list[Any] = []

    async def handler(request: Any, token: str | None) -> Any:
        ran.append(request)

    with pytest.raises(ServerShuttingDown):
        asyncio.run(HttpGuard(drain).unary(_scope(), _PLAY, handler, "req", None))
    assert ran == []


def test_rate_limited_methods_count_the_trusted_client() -> None:
    """CreateGame is checked against the forwarded client; PlayCard is not rate limited."""
    limits = _Limits(over="203.0.113.9")
    guard = HttpGuard(Drain(), cast(RateLimits, limits), trusted_proxy_header="X-Forwarded-For")
    scope = _scope(forwarded=b"198.51.100.1, 203.0.113.9")
    assert asyncio.run(guard.unary(scope, _PLAY, _handler, "r", "t")) == ("r", "t")
    with pytest.raises(RuntimeError, match="rate limited"):
        asyncio.run(guard.unary(scope, _CREATE, _handler, "r", None))
    assert limits.checked == [("create_game", "203.0.113.9")]


def test_streams_are_refused_while_draining() -> None:
    """A new stream is refused once draining begins; before, it is admitted."""

    async def scenario(draining: bool) -> bool:
        drain = Drain()
        if draining:
            drain.begin()
        async with HttpGuard(drain).stream(_scope(), "/scopa.v1.GameService/WatchGame"):
            return True

    assert asyncio.run(scenario(False))
    with pytest.raises(ServerShuttingDown):
        asyncio.run(scenario(True))
