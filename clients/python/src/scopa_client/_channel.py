"""Channels, stubs and bearer-token metadata for the scopa game service."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import grpc.aio

from scopa_client._auth import AioBearerInterceptors, BearerInterceptor, TokenProvider
from scopa_client._retry import AioRequestIdInterceptor, RequestIdInterceptor, retry_options
from scopa_client.v1 import scopa_pb2_grpc

AUTHORIZATION_KEY = "authorization"


def bearer_metadata(token: str) -> tuple[tuple[str, str], ...]:
    """Return call metadata that authenticates a call as the seat holding `token`."""
    if not token:
        raise ValueError("token must not be empty")
    return ((AUTHORIZATION_KEY, f"Bearer {token}"),)


def connect(
    target: str, *, retry: bool = True, token_provider: Callable[[], str] | None = None
) -> scopa_pb2_grpc.GameServiceStub:
    """Open an insecure (plaintext) channel to `target` and return a blocking stub.

    With `retry` (the default) mutating calls get a request_id when they have none, and every
    unary call answered UNAVAILABLE is retried with the same request (bounded backoff): the
    service answers a retried request_id with the first response, so nothing is done twice.
    With `token_provider`, every call is sent with `authorization: Bearer <its token>` (a
    signed-in player's fresh access token), unless the call sets its own.
    """
    channel: grpc.Channel = grpc.insecure_channel(
        target, options=retry_options() if retry else None
    )
    interceptors: list[Any] = [RequestIdInterceptor()] if retry else []
    if token_provider is not None:
        interceptors.append(BearerInterceptor(token_provider))
    if interceptors:
        channel = grpc.intercept_channel(channel, *interceptors)
    return scopa_pb2_grpc.GameServiceStub(channel)


def aio_connect(
    target: str, *, retry: bool = True, token_provider: TokenProvider | None = None
) -> scopa_pb2_grpc.GameServiceAsyncStub:
    """Open an insecure asyncio channel to `target` and return an async stub (see connect);
    `token_provider` may return the token or an awaitable of it."""
    interceptors: list[Any] = [AioRequestIdInterceptor()] if retry else []
    if token_provider is not None:
        interceptors += AioBearerInterceptors(token_provider)
    channel = grpc.aio.insecure_channel(
        target, options=retry_options() if retry else None, interceptors=interceptors or None
    )
    # mypy-protobuf's documented idiom: one runtime stub class, a separate async stub type.
    stub: scopa_pb2_grpc.GameServiceAsyncStub
    stub = scopa_pb2_grpc.GameServiceStub(channel)  # type: ignore[assignment]
    return stub
