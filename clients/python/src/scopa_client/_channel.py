"""Channels, stubs and bearer-token metadata for the scopa game service."""

from __future__ import annotations

import grpc
import grpc.aio

from scopa_client._retry import AioRequestIdInterceptor, RequestIdInterceptor, retry_options
from scopa_client.v1 import scopa_pb2_grpc

AUTHORIZATION_KEY = "authorization"


def bearer_metadata(token: str) -> tuple[tuple[str, str], ...]:
    """Return call metadata that authenticates a call as the seat holding `token`."""
    if not token:
        raise ValueError("token must not be empty")
    return ((AUTHORIZATION_KEY, f"Bearer {token}"),)


def connect(target: str, *, retry: bool = True) -> scopa_pb2_grpc.GameServiceStub:
    """Open an insecure (plaintext) channel to `target` and return a blocking stub.

    With `retry` (the default) mutating calls get a request_id when they have none, and every
    unary call answered UNAVAILABLE is retried with the same request (bounded backoff): the
    service answers a retried request_id with the first response, so nothing is done twice.
    """
    if not retry:
        return scopa_pb2_grpc.GameServiceStub(grpc.insecure_channel(target))
    channel = grpc.intercept_channel(
        grpc.insecure_channel(target, options=retry_options()), RequestIdInterceptor()
    )
    return scopa_pb2_grpc.GameServiceStub(channel)


def aio_connect(target: str, *, retry: bool = True) -> scopa_pb2_grpc.GameServiceAsyncStub:
    """Open an insecure asyncio channel to `target` and return an async stub (see connect)."""
    channel = (
        grpc.aio.insecure_channel(
            target, options=retry_options(), interceptors=[AioRequestIdInterceptor()]
        )
        if retry
        else grpc.aio.insecure_channel(target)
    )
    # mypy-protobuf's documented idiom: one runtime stub class, a separate async stub type.
    stub: scopa_pb2_grpc.GameServiceAsyncStub
    stub = scopa_pb2_grpc.GameServiceStub(channel)  # type: ignore[assignment]
    return stub
