"""Safe retries: every mutating call carries a request_id, and UNAVAILABLE is retried.

The service makes every call idempotent: reads trivially, writes through their request_id (a
retry returns the first response, or applies the write once). So the client retries any unary
call answered UNAVAILABLE (STORAGE_UNAVAILABLE, OUTCOME_UNKNOWN, a replica going away) with
the SAME request, after gRPC's own bounded exponential backoff (the channel's retry policy),
and fills a fresh request_id into a mutating request that has none, so that it can.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import grpc.aio

SERVICE = "scopa.v1.GameService"
MUTATING = frozenset(
    f"/{SERVICE}/{name}" for name in ("CreateGame", "PlayCard", "JoinGame", "ResignGame")
)
"""Methods whose request carries a request_id."""
UNARY = (
    "CreateGame",
    "GetState",
    "PlayCard",
    "JoinGame",
    "ResignGame",
    "ListRulesets",
    "RematchGame",
)
"""Methods retried on UNAVAILABLE: reads, writes with a request_id, and RematchGame (the same
rematch however often it is asked for)."""


def retry_service_config(
    max_attempts: int = 5,
    initial_backoff_s: float = 0.1,
    max_backoff_s: float = 2.0,
) -> str:
    """The ``grpc.service_config`` retrying the unary calls on UNAVAILABLE (gRPC's A6 policy)."""
    policy = {
        "maxAttempts": max_attempts,
        "initialBackoff": f"{initial_backoff_s}s",
        "maxBackoff": f"{max_backoff_s}s",
        "backoffMultiplier": 2,
        "retryableStatusCodes": ["UNAVAILABLE"],
    }
    names = [{"service": SERVICE, "method": m} for m in UNARY]
    return json.dumps({"methodConfig": [{"name": names, "retryPolicy": policy}]})


def retry_options(max_attempts: int = 5) -> list[tuple[str, Any]]:
    """Channel options turning the retry policy on."""
    return [
        ("grpc.enable_retries", 1),
        ("grpc.service_config", retry_service_config(max_attempts)),
    ]


def with_request_id(method: str, request: Any) -> Any:
    """``request``, or a copy with a fresh request_id if ``method`` mutates and has none."""
    if method not in MUTATING or not hasattr(request, "request_id") or request.request_id:
        return request
    filled = type(request)()
    filled.CopyFrom(request)
    filled.request_id = uuid.uuid4().hex
    return filled


def _method(details: grpc.ClientCallDetails) -> str:
    method = details.method
    return method.decode() if isinstance(method, bytes) else str(method)


class RequestIdInterceptor(grpc.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    """Fills a request_id into mutating requests that have none (blocking channels)."""

    def intercept_unary_unary(
        self,
        continuation: Callable[[grpc.ClientCallDetails, Any], Any],
        client_call_details: grpc.ClientCallDetails,
        request: Any,
    ) -> Any:
        """Call on with the completed request."""
        return continuation(
            client_call_details, with_request_id(_method(client_call_details), request)
        )


class AioRequestIdInterceptor(grpc.aio.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    """Fills a request_id into mutating requests that have none (asyncio channels)."""

    async def intercept_unary_unary(
        self,
        continuation: Callable[[grpc.aio.ClientCallDetails, Any], Awaitable[Any]],
        client_call_details: grpc.aio.ClientCallDetails,
        request: Any,
    ) -> Any:
        """Call on with the completed request."""
        return await continuation(
            client_call_details, with_request_id(_method(client_call_details), request)
        )
