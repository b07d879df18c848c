"""Errors only the HTTP port can raise, registered in the one error table (transport._errors)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import grpc

from scopa.transport._errors import register

__all__ = [
    "HttpError",
    "MethodNotAllowed",
    "OriginNotAllowed",
    "RouteNotFound",
]


class HttpError(Exception):
    """A request the HTTP port refuses before any call; like the core's errors it has a reason."""

    reason: ClassVar[str] = "INVALID_ARGUMENT"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class RouteNotFound(HttpError):
    """No route of the HTTP port has this path."""

    reason = "NOT_FOUND"


class MethodNotAllowed(HttpError):
    """The path exists, but not with this HTTP method (HTTP 405, with an Allow header)."""

    reason = "METHOD_NOT_ALLOWED"

    def __init__(self, message: str, *, allow: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.allow = tuple(allow)


class OriginNotAllowed(HttpError):
    """A CORS preflight from an origin not in SCOPA_CORS_ORIGINS."""

    reason = "ORIGIN_NOT_ALLOWED"


register(HttpError, grpc.StatusCode.INVALID_ARGUMENT)
register(RouteNotFound, grpc.StatusCode.NOT_FOUND)
register(MethodNotAllowed, grpc.StatusCode.UNIMPLEMENTED)
register(OriginNotAllowed, grpc.StatusCode.PERMISSION_DENIED)
