"""Tests of scopa.transport._guard: decode errors, size limit, drain and rate limits in-process."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2  # type: ignore[import-untyped]
from grpc_health.v1 import health_pb2
from grpc_status import rpc_status
from server.fakes import FOREVER, error_info, register_fake, session_loop

from scopa.app import RateLimits
from scopa.config import Settings
from scopa.server import ScopaServer
from scopa.transport._errors import ServerShuttingDown
from scopa.transport._guard import Drain, ServerGuard, peer_host

TYPED = "/test.Typed/Check"
CREATE = "/scopa.v1.GameService/CreateGame"


def register_typed(server: Any) -> None:
    """A unary method whose requests are HealthCheckRequest messages (a real deserializer)."""

    async def check(request: health_pb2.HealthCheckRequest, context: Any) -> bytes:
        return str(request.service).encode()

    handler = grpc.method_handlers_generic_handler(
        "test.Typed",
        {
            "Check": grpc.unary_unary_rpc_method_handler(
                check, request_deserializer=health_pb2.HealthCheckRequest.FromString
            )
        },
    )
    server.add_generic_rpc_handlers((handler,))


def register_create(server: Any) -> None:
    """A bytes CreateGame under the real method name, so the guard rate-limits it."""

    async def create(request: bytes, context: Any) -> bytes:
        return b"created"

    handler = grpc.method_handlers_generic_handler(
        "scopa.v1.GameService", {"CreateGame": grpc.unary_unary_rpc_method_handler(create)}
    )
    server.add_generic_rpc_handlers((handler,))


@pytest.fixture
async def typed() -> AsyncIterator[tuple[ScopaServer, grpc.aio.Channel]]:
    """A server with a typed method, a fake stream, a 2 KiB limit and 2 CreateGame a minute."""

    async def ready() -> bool:
        return True

    settings = Settings(
        host="127.0.0.1", port=0, grace_s=1.0, drain_delay_s=0.0, max_request_bytes=2048
    )
    limits = RateLimits({"create_game": "2/minute"})
    server = ScopaServer(
        settings, [register_typed, register_fake, register_create], ready, rate_limits=limits
    )
    port = await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield server, channel
    finally:
        await channel.close()
        await server.stop()


async def _fail(call: Any) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    return err.value


@session_loop
async def test_undecodable_bytes_are_malformed_request(
    typed: tuple[ScopaServer, grpc.aio.Channel],
) -> None:
    """Bytes the deserializer refuses are INVALID_ARGUMENT / MALFORMED_REQUEST; good ones pass."""
    _, channel = typed
    method = channel.unary_unary(TYPED)
    good = health_pb2.HealthCheckRequest(service="ok").SerializeToString()
    assert await method(good) == b"ok"
    error = await _fail(method(b"\xff\xff\xff"))
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(error).reason == "MALFORMED_REQUEST"


@session_loop
async def test_requests_over_the_limit_are_refused(
    typed: tuple[ScopaServer, grpc.aio.Channel],
) -> None:
    """A request over max_request_bytes is INVALID_ARGUMENT / REQUEST_TOO_LARGE with the limit."""
    _, channel = typed
    error = await _fail(channel.unary_unary(TYPED)(b"\x0a\x00" * 2000))
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    info = error_info(error)
    assert (info.reason, info.metadata["limit_bytes"]) == ("REQUEST_TOO_LARGE", "2048")


@session_loop
async def test_drain_ends_streams_and_refuses_new_ones(
    typed: tuple[ScopaServer, grpc.aio.Channel],
) -> None:
    """begin() ends open streams with SERVER_SHUTTING_DOWN (end_streams cancelling again one
    whose cancellation was swallowed, as the server's stop does); close() refuses unary calls
    too."""
    server, channel = typed
    call = channel.unary_stream(FOREVER)(b"tick")
    assert await call.read() == b"tick"
    assert server.drain.begin() == 1
    assert await server.drain.end_streams(5.0)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        async with asyncio.timeout(10):  # a stream left open fails here, not at pytest's limit
            while True:
                await call.read()
    assert err.value.code() is grpc.StatusCode.UNAVAILABLE
    assert error_info(err.value).reason == "SERVER_SHUTTING_DOWN"
    late = channel.unary_stream(FOREVER)(b"tick")
    error = await _fail(late.read())
    assert error_info(error).reason == "SERVER_SHUTTING_DOWN"
    good = health_pb2.HealthCheckRequest(service="ok").SerializeToString()
    assert await channel.unary_unary(TYPED)(good) == b"ok"
    server.drain.close()
    error = await _fail(channel.unary_unary(TYPED)(good))
    assert (error.code(), error_info(error).reason) == (
        grpc.StatusCode.UNAVAILABLE,
        "SERVER_SHUTTING_DOWN",
    )


@session_loop
async def test_wait_idle_waits_for_unary_calls_in_flight() -> None:
    """wait_idle returns True at once when idle and False while a call stays in flight."""
    drain = Drain()
    assert await drain.wait_idle(0.01)
    release = asyncio.Event()

    async def call() -> None:
        async with drain.tracked(streaming=False):
            await release.wait()

    task = asyncio.create_task(call())
    await asyncio.sleep(0)
    assert not await drain.wait_idle(0.01)
    release.set()
    await task
    assert await drain.wait_idle(0.01)


def test_peer_host_strips_the_port() -> None:
    """ipv4 and ipv6 peers lose their port (and brackets); other peers stay as they are."""
    assert peer_host("ipv4:10.1.2.3:5555") == "10.1.2.3"
    assert peer_host("ipv6:[::1]:5555") == "::1"
    assert peer_host("unix:/tmp/s") == "unix:/tmp/s"


@session_loop
async def test_rate_limited_calls_get_retry_info(
    typed: tuple[ScopaServer, grpc.aio.Channel],
) -> None:
    """Over its limit CreateGame is RESOURCE_EXHAUSTED / RATE_LIMITED with a RetryInfo delay."""
    _, channel = typed
    create = channel.unary_unary(CREATE)
    assert await create(b"") == b"created"
    assert await create(b"") == b"created"
    error = await _fail(create(b""))
    assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert error_info(error).reason == "RATE_LIMITED"
    status = rpc_status.from_call(error)
    assert status is not None
    retry = [d for d in status.details if d.Is(error_details_pb2.RetryInfo.DESCRIPTOR)]
    assert len(retry) == 1
    info = error_details_pb2.RetryInfo()
    retry[0].Unpack(info)
    assert 0 < info.retry_delay.ToTimedelta().total_seconds() <= 60


@session_loop
async def test_a_stream_that_swallows_the_cancellation_is_still_ended() -> None:
    """end_streams cancels again a stream whose code swallowed the first cancellation."""
    drain = Drain()

    async def stream() -> None:
        async with drain.tracked(streaming=True):
            # Swallowed, as asyncio.wait_for in Python 3.11 may when its future just finished.
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(30)
            await asyncio.sleep(30)

    task = asyncio.create_task(stream())
    await asyncio.sleep(0)
    assert drain.begin() == 1
    assert await drain.end_streams(5.0)
    with pytest.raises(ServerShuttingDown):
        await task
    assert task.cancelling() == 0


def test_the_guard_builds_a_methods_handler_once() -> None:
    """The guard wraps a method's handler on its first call and hands out the same one after."""
    guard = ServerGuard(Drain(), max_request_bytes=1024)
    asked: list[str] = []

    async def create(request: bytes, context: Any) -> bytes:
        return request

    handler = grpc.unary_unary_rpc_method_handler(create)

    class Details:
        method = CREATE
        invocation_metadata = ()

    async def continuation(details: Any) -> Any:
        asked.append(details.method)
        return handler

    async def twice() -> tuple[Any, Any]:
        return (
            await guard.intercept_service(continuation, Details()),
            await guard.intercept_service(continuation, Details()),
        )

    first, second = asyncio.run(twice())
    assert first is second and first is not handler
    assert asked == [CREATE]
