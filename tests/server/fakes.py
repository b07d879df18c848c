"""A fake servicer (bytes in, bytes out) that raises chosen errors, and a client harness."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2  # type: ignore[import-untyped]
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import scopa_client
from scopa import rules
from scopa.server import ScopaServer, register

session_loop = pytest.mark.asyncio(loop_scope="session")
"""Runs an async test on the session event loop, which the async fixtures share."""

FAKE_SERVICE = "test.Fake"
ECHO = f"/{FAKE_SERVICE}/Echo"
STREAM = f"/{FAKE_SERVICE}/Stream"
FOREVER = f"/{FAKE_SERVICE}/Forever"


class QuotaExceeded(Exception):
    """An application-level error registered from outside the server package."""

    reason = "QUOTA_EXCEEDED"


class Teapot(Exception):
    """An error that names its own gRPC code instead of having a table entry."""

    grpc_code = grpc.StatusCode.RESOURCE_EXHAUSTED
    reason = "TEAPOT"


register(QuotaExceeded, grpc.StatusCode.RESOURCE_EXHAUSTED)

ERRORS: dict[bytes, BaseException] = {
    b"not-your-turn": rules.NotYourTurn("it is seat 2's turn"),
    b"bad-seat": rules.InvalidSeat("no seat 7 in this game", field="seat"),
    b"corrupt": rules.InvalidState("corrupt blob 0xdeadbeef"),
    b"boom": RuntimeError("secret-detail in /srv/app.py"),
    b"quota": QuotaExceeded("too many games"),
    b"teapot": Teapot("short and stout"),
}


def _raise_for(request: bytes) -> None:
    error = ERRORS.get(request)
    if error is not None:
        raise error


async def _echo(request: bytes, context: Any) -> bytes:
    _raise_for(request)
    return request


async def _stream(request: bytes, context: Any) -> AsyncIterator[bytes]:
    yield b"one"
    yield b"two"
    _raise_for(request)


async def _forever(request: bytes, context: Any) -> AsyncIterator[bytes]:
    while True:
        yield request
        await asyncio.sleep(0.001)


def register_fake(server: Any) -> None:
    handler = grpc.method_handlers_generic_handler(
        FAKE_SERVICE,
        {
            "Echo": grpc.unary_unary_rpc_method_handler(_echo),
            "Stream": grpc.unary_stream_rpc_method_handler(_stream),
            "Forever": grpc.unary_stream_rpc_method_handler(_forever),
        },
    )
    server.add_generic_rpc_handlers((handler,))


@dataclass
class Harness:
    """A running server with a fake servicer, a client channel and captured telemetry."""

    server: ScopaServer
    channel: grpc.aio.Channel
    spans: InMemorySpanExporter
    metrics: InMemoryMetricReader
    log: io.StringIO

    async def echo(self, body: bytes, metadata: tuple[tuple[str, str], ...] = ()) -> bytes:
        """Call the unary fake method."""
        result: bytes = await self.channel.unary_unary(ECHO)(body, metadata=metadata)
        return result

    async def stream(self, body: bytes) -> tuple[list[bytes], grpc.aio.AioRpcError | None]:
        """Call the streaming fake method; return the messages and the final error, if any."""
        received: list[bytes] = []
        try:
            async for item in self.channel.unary_stream(STREAM)(body):
                received.append(item)
        except grpc.aio.AioRpcError as exc:
            return received, exc
        return received, None


def error_info(error: grpc.aio.AioRpcError) -> error_details_pb2.ErrorInfo:
    """The google.rpc.ErrorInfo packed in an RPC error's trailer, decoded by the Python client."""
    info = scopa_client.error_info(error)
    assert info is not None, "no ErrorInfo in the trailing metadata"
    return info
