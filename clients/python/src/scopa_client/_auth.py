"""A token provider: a fresh access token for every call, sent as ``authorization: Bearer``.

A signed-in player's access tokens expire (minutes); the application knows how to get a fresh
one (an OIDC library's refresh). ``connect(target, token_provider=...)`` calls the provider
before every call and adds its token, unless the call sets ``authorization`` itself. A
blocking channel takes a function returning the token; an asyncio channel takes one returning
the token or an awaitable of it.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

import grpc
import grpc.aio

__all__ = ["AioBearerInterceptors", "BearerInterceptor", "TokenProvider", "resolve_token"]

TokenProvider = Callable[[], "str | Awaitable[str]"]
"""Returns a fresh access token (or an awaitable of one, on asyncio channels)."""

_KEY = "authorization"


def _with_token(metadata: Any, token: str) -> list[tuple[str, str | bytes]]:
    items = list(metadata or ())
    if any(key == _KEY for key, _ in items):
        return items  # the call's own token wins
    if not token:
        raise ValueError("the token provider returned an empty token")
    return [*items, (_KEY, f"Bearer {token}")]


async def resolve_token(provider: TokenProvider) -> str:
    """The provider's token, awaited if it returned an awaitable."""
    token = provider()
    if inspect.isawaitable(token):
        token = await token
    if not isinstance(token, str):
        raise TypeError("the token provider must return a str")
    return token


class _Details(NamedTuple):
    method: str
    timeout: float | None
    metadata: Any
    credentials: Any
    wait_for_ready: bool | None
    compression: Any


class _SyncDetails(_Details, grpc.ClientCallDetails):  # type: ignore[misc]
    """Call details with another metadata (grpc's own class has no constructor)."""


class BearerInterceptor(
    grpc.UnaryUnaryClientInterceptor,  # type: ignore[misc]
    grpc.UnaryStreamClientInterceptor,  # type: ignore[misc]
    grpc.StreamStreamClientInterceptor,  # type: ignore[misc]
):
    """Adds the provider's token to every call of a blocking channel."""

    def __init__(self, provider: Callable[[], str]) -> None:
        self._provider = provider

    def _details(self, details: Any) -> Any:
        token = self._provider()
        if not isinstance(token, str):
            raise TypeError("a blocking channel's token provider must return a str")
        return _SyncDetails(
            details.method,
            details.timeout,
            _with_token(details.metadata, token),
            details.credentials,
            getattr(details, "wait_for_ready", None),
            getattr(details, "compression", None),
        )

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        """Call on with the token."""
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        """Call on with the token."""
        return continuation(self._details(details), request)

    def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        """Call on with the token."""
        return continuation(self._details(details), requests)


async def _aio_details(provider: TokenProvider, details: Any) -> Any:
    return grpc.aio.ClientCallDetails(
        details.method,
        details.timeout,
        _with_token(details.metadata, await resolve_token(provider)),
        details.credentials,
        details.wait_for_ready,
    )


class _AioUnaryUnary(grpc.aio.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    def __init__(self, provider: TokenProvider) -> None:
        self._provider = provider

    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(await _aio_details(self._provider, details), request)


class _AioUnaryStream(grpc.aio.UnaryStreamClientInterceptor):  # type: ignore[misc]
    def __init__(self, provider: TokenProvider) -> None:
        self._provider = provider

    async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(await _aio_details(self._provider, details), request)


class _AioStreamStream(grpc.aio.StreamStreamClientInterceptor):  # type: ignore[misc]
    def __init__(self, provider: TokenProvider) -> None:
        self._provider = provider

    async def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        return await continuation(await _aio_details(self._provider, details), requests)


def AioBearerInterceptors(provider: TokenProvider) -> list[Any]:  # noqa: N802
    """The interceptors adding the provider's token to every call of an asyncio channel."""
    return [_AioUnaryUnary(provider), _AioUnaryStream(provider), _AioStreamStream(provider)]
