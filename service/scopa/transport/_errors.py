"""The one place where exceptions become statuses with a google.rpc.ErrorInfo detail.

Every protocol renders the same `MappedError`: gRPC (`to_grpc_status`), Connect and gRPC-Web
(`to_connect_error`), REST (`to_http_error`: the HTTP status from the canonical code mapping
and Google's JSON error body) and realtime sessions (`to_session_error`: an error frame).

The mapping is data: `ERROR_CODES` maps an exception class to a gRPC status code and is looked up
along the raised exception's MRO, so registering a base class covers its subclasses. Other modules
(e.g. the application core) add their own errors with `register()`. An exception class not in the
table may instead carry a `grpc_code: grpc.StatusCode` class attribute. Anything else becomes
INTERNAL "internal error" with reason INTERNAL; its message and traceback are only logged.

Whatever a client sent may be quoted in a message or metadata value (an unknown preset, an
option name, an etag), so both are cut to a few hundred bytes here: the status always fits in
the trailers, and the client gets its INVALID_ARGUMENT, never a RESOURCE_EXHAUSTED about
metadata size.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import grpc
from connectrpc.code import Code as ConnectCode
from connectrpc.errors import ConnectError
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2  # type: ignore[import-untyped]
from grpc_status import rpc_status
from protobuf.wkt import Any as ConnectAny

from scopa import app, rules, storage
from scopa_client.v1 import scopa_pb2 as pb

__all__ = [
    "ERROR_CODES",
    "ERROR_DOMAIN",
    "MAX_MESSAGE_BYTES",
    "MAX_METADATA_BYTES",
    "MalformedRequest",
    "MappedError",
    "RequestTooLarge",
    "ServerShuttingDown",
    "bounded",
    "http_error_headers",
    "http_status",
    "http_status_of",
    "map_exception",
    "register",
    "to_connect_error",
    "to_grpc_status",
    "to_http_error",
    "to_session_error",
]

ERROR_DOMAIN = "scopa.dev"
"""`google.rpc.ErrorInfo.domain` of every error this service returns."""

_INTERNAL_MESSAGE = "internal error"

MAX_MESSAGE_BYTES = 400
"""Longest status message sent, in UTF-8 bytes (longer ones are cut and end in "...")."""

MAX_METADATA_BYTES = 128
"""Longest ErrorInfo metadata key or value sent, in UTF-8 bytes."""

_MAX_METADATA_ENTRIES = 8


class MalformedRequest(Exception):
    """The request bytes are not the RPC's protobuf message (or are over the size limit)."""

    reason = "MALFORMED_REQUEST"

    def __init__(self, message: str, *, metadata: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.metadata = dict(metadata or {})


class RequestTooLarge(MalformedRequest):
    """The request is longer than the server accepts (SCOPA_MAX_REQUEST_BYTES)."""

    reason = "REQUEST_TOO_LARGE"


class ServerShuttingDown(Exception):
    """The server is draining after SIGTERM; reconnect (another replica will answer)."""

    reason = "SERVER_SHUTTING_DOWN"

    def __init__(self, message: str = "the server is shutting down; reconnect and retry") -> None:
        super().__init__(message)
        self.message = message


ERROR_CODES: dict[type[BaseException], grpc.StatusCode] = {
    # Every rule a client can break has its own subclass below; an unclassified one is ours.
    rules.RulesError: grpc.StatusCode.INTERNAL,
    rules.NotYourTurn: grpc.StatusCode.FAILED_PRECONDITION,
    rules.CardNotInHand: grpc.StatusCode.FAILED_PRECONDITION,
    rules.CaptureNotLegal: grpc.StatusCode.FAILED_PRECONDITION,
    rules.CaptureChoiceRequired: grpc.StatusCode.FAILED_PRECONDITION,
    rules.GameOver: grpc.StatusCode.FAILED_PRECONDITION,
    rules.ActionNotLegal: grpc.StatusCode.FAILED_PRECONDITION,
    rules.InvalidOption: grpc.StatusCode.INVALID_ARGUMENT,
    rules.InvalidDeck: grpc.StatusCode.INVALID_ARGUMENT,
    rules.InvalidSeat: grpc.StatusCode.INVALID_ARGUMENT,
    rules.InvalidState: grpc.StatusCode.INTERNAL,
    # A newer release wrote the game (a rolling update): another replica can serve the retry.
    rules.FormatTooNew: grpc.StatusCode.UNAVAILABLE,
    # A stored game under rules this release cannot build: no replica of it can serve it.
    rules.GameUnplayable: grpc.StatusCode.FAILED_PRECONDITION,
    app.AppError: grpc.StatusCode.FAILED_PRECONDITION,
    app.InvalidArgument: grpc.StatusCode.INVALID_ARGUMENT,
    app.GameNotFoundError: grpc.StatusCode.NOT_FOUND,
    app.Unauthenticated: grpc.StatusCode.UNAUTHENTICATED,
    app.PermissionDenied: grpc.StatusCode.PERMISSION_DENIED,
    app.SpectatorInviteRequired: grpc.StatusCode.PERMISSION_DENIED,
    app.IdentityUnavailable: grpc.StatusCode.UNAVAILABLE,
    app.InviteInvalid: grpc.StatusCode.PERMISSION_DENIED,
    app.StaleEtag: grpc.StatusCode.ABORTED,
    app.ConcurrentUpdate: grpc.StatusCode.ABORTED,
    app.SeatTaken: grpc.StatusCode.FAILED_PRECONDITION,
    app.WaitingForPlayers: grpc.StatusCode.FAILED_PRECONDITION,
    app.GameStuck: grpc.StatusCode.FAILED_PRECONDITION,
    app.StackedDecksDisabled: grpc.StatusCode.FAILED_PRECONDITION,
    app.BotOnlyGamesDisabled: grpc.StatusCode.FAILED_PRECONDITION,
    app.GameNotFinished: grpc.StatusCode.FAILED_PRECONDITION,
    app.RematchUnavailable: grpc.StatusCode.FAILED_PRECONDITION,
    app.RateLimited: grpc.StatusCode.RESOURCE_EXHAUSTED,
    storage.StorageUnavailable: grpc.StatusCode.UNAVAILABLE,
    # The archive of finished games: the store's status and reason, a message of its own.
    app.ArchiveUnavailable: grpc.StatusCode.UNAVAILABLE,
    MalformedRequest: grpc.StatusCode.INVALID_ARGUMENT,
    ServerShuttingDown: grpc.StatusCode.UNAVAILABLE,
    app.RequestIdReused: grpc.StatusCode.INVALID_ARGUMENT,
    app.TooManyWatches: grpc.StatusCode.RESOURCE_EXHAUSTED,
    app.WatchIdle: grpc.StatusCode.DEADLINE_EXCEEDED,
    storage.OutcomeUnknown: grpc.StatusCode.UNAVAILABLE,
    storage.StorageFull: grpc.StatusCode.RESOURCE_EXHAUSTED,
}
"""Exception class -> gRPC status code; looked up along the MRO of the raised exception."""

_SERVER_FAULTS = frozenset(
    {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN, grpc.StatusCode.DATA_LOSS}
)


def register(exc_type: type[BaseException], code: grpc.StatusCode) -> None:
    """Map `exc_type` (and its subclasses without an entry of their own) to `code`."""
    ERROR_CODES[exc_type] = code


@dataclass(frozen=True)
class MappedError:
    """What the client is told about one exception, and whether it is the server's fault."""

    code: grpc.StatusCode
    reason: str
    message: str
    metadata: Mapping[str, str] = field(default_factory=dict)
    retry_delay_s: float | None = None
    """When set, the client may retry after this many seconds (google.rpc.RetryInfo)."""

    @property
    def server_fault(self) -> bool:
        """True when the error is a server bug or corruption, to be logged with its traceback."""
        return self.code in _SERVER_FAULTS


def _code_for(exc: BaseException) -> grpc.StatusCode | None:
    for cls in type(exc).__mro__:
        code = ERROR_CODES.get(cls)
        if code is not None:
            return code
    code_attr = getattr(type(exc), "grpc_code", None)
    return code_attr if isinstance(code_attr, grpc.StatusCode) else None


def bounded(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes (ending in "..." when cut)."""
    raw = text.encode("utf-8", "replace")
    if len(raw) <= limit:
        return text
    return raw[: limit - 3].decode("utf-8", "ignore") + "..."


def _metadata_of(exc: BaseException) -> dict[str, str]:
    metadata: dict[str, str] = {}
    field_name = getattr(exc, "field", None)
    if isinstance(field_name, str) and field_name:
        metadata["field"] = field_name
    extra = getattr(exc, "metadata", None)
    if isinstance(extra, Mapping):
        metadata.update({str(k): str(v) for k, v in extra.items()})
    return {
        bounded(k, MAX_METADATA_BYTES): bounded(v, MAX_METADATA_BYTES)
        for k, v in list(metadata.items())[:_MAX_METADATA_ENTRIES]
    }


def _retry_delay_of(exc: BaseException) -> float | None:
    delay = getattr(exc, "retry_after_s", None)
    if isinstance(delay, int | float) and not isinstance(delay, bool) and delay >= 0:
        return float(delay)
    return None


def map_exception(exc: BaseException) -> MappedError:
    """Decide the status, ErrorInfo reason, client-visible message and metadata for `exc`."""
    code = _code_for(exc)
    if code is None:
        return MappedError(grpc.StatusCode.INTERNAL, "INTERNAL", _INTERNAL_MESSAGE)
    reason = getattr(exc, "reason", None)
    if not isinstance(reason, str) or not reason:
        reason = code.name
    if code in _SERVER_FAULTS:
        return MappedError(code, code.name, _INTERNAL_MESSAGE)
    message = getattr(exc, "message", None)
    if not isinstance(message, str):
        message = str(exc)
    return MappedError(
        code,
        bounded(reason, MAX_METADATA_BYTES),
        bounded(message, MAX_MESSAGE_BYTES),
        _metadata_of(exc),
        _retry_delay_of(exc),
    )


def to_grpc_status(mapped: MappedError) -> grpc.Status:
    """Build the grpc.Status (with a packed google.rpc.ErrorInfo detail) for a mapped error."""
    info = _error_info(mapped)
    detail = any_pb2.Any()
    detail.Pack(info)
    details = [detail]
    retry_info = _retry_info(mapped)
    if retry_info is not None:
        retry = any_pb2.Any()
        retry.Pack(retry_info)
        details.append(retry)
    status = status_pb2.Status(
        code=code_pb2.Code.Value(mapped.code.name),
        message=mapped.message,
        details=details,
    )
    result: grpc.Status = rpc_status.to_status(status)
    return result


_HTTP_STATUS: dict[grpc.StatusCode, int] = {
    grpc.StatusCode.OK: 200,
    grpc.StatusCode.CANCELLED: 499,
    grpc.StatusCode.UNKNOWN: 500,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.FAILED_PRECONDITION: 400,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.INTERNAL: 500,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DATA_LOSS: 500,
    grpc.StatusCode.UNAUTHENTICATED: 401,
}
"""The canonical gRPC code -> HTTP status mapping (google/rpc/code.proto)."""

HTTP_STATUS_BY_REASON: dict[str, int] = {
    "STALE_ETAG": 412,  # HTTP's own answer to a failed If-Match
    "METHOD_NOT_ALLOWED": 405,
    "REQUEST_TOO_LARGE": 413,
}
"""Reasons whose HTTP status is more precise than their code's canonical one."""

_ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"
_RETRY_INFO_TYPE = "type.googleapis.com/google.rpc.RetryInfo"


def _retry_info(mapped: MappedError) -> error_details_pb2.RetryInfo | None:
    if mapped.retry_delay_s is None:
        return None
    delay = duration_pb2.Duration()
    delay.FromNanoseconds(int(mapped.retry_delay_s * 1e9))
    return error_details_pb2.RetryInfo(retry_delay=delay)


def _error_info(mapped: MappedError) -> error_details_pb2.ErrorInfo:
    return error_details_pb2.ErrorInfo(
        reason=mapped.reason, domain=ERROR_DOMAIN, metadata=dict(mapped.metadata)
    )


def http_status(mapped: MappedError) -> int:
    """The HTTP status of a mapped error on the REST surface."""
    return HTTP_STATUS_BY_REASON.get(mapped.reason, _HTTP_STATUS.get(mapped.code, 500))


def http_status_of(code_name: str, reason: str) -> int:
    """The HTTP status of a google.rpc code (by name, e.g. "ABORTED") and reason (the OpenAPI
    document's responses are listed with it)."""
    code = grpc.StatusCode[code_name]
    return HTTP_STATUS_BY_REASON.get(reason, _HTTP_STATUS.get(code, 500))


def http_error_headers(mapped: MappedError) -> list[tuple[bytes, bytes]]:
    """Headers of a REST error: ``Retry-After`` (whole seconds, rounded up) when the error
    carries a RetryInfo, as HTTP clients and proxies read a 429's delay."""
    if mapped.retry_delay_s is None:
        return []
    return [(b"retry-after", str(max(0, math.ceil(mapped.retry_delay_s))).encode())]


def to_http_error(mapped: MappedError) -> tuple[int, dict[str, Any]]:
    """The HTTP status and Google's JSON error body for a mapped error."""
    status = http_status(mapped)
    info = {
        "@type": _ERROR_INFO_TYPE,
        "reason": mapped.reason,
        "domain": ERROR_DOMAIN,
        "metadata": dict(mapped.metadata),
    }
    details: list[dict[str, Any]] = [info]
    if mapped.retry_delay_s is not None:
        details.append({"@type": _RETRY_INFO_TYPE, "retryDelay": f"{mapped.retry_delay_s:.3f}s"})
    body = {
        "error": {
            "code": status,
            "message": mapped.message,
            "status": mapped.code.name,
            "details": details,
        }
    }
    return status, body


def to_connect_error(mapped: MappedError) -> ConnectError:
    """The Connect (and gRPC-Web) error, with the ErrorInfo as its detail."""
    name = "CANCELED" if mapped.code is grpc.StatusCode.CANCELLED else mapped.code.name
    details = [ConnectAny(type_url=_ERROR_INFO_TYPE, value=_error_info(mapped).SerializeToString())]
    retry_info = _retry_info(mapped)
    if retry_info is not None:
        details.append(ConnectAny(type_url=_RETRY_INFO_TYPE, value=retry_info.SerializeToString()))
    return ConnectError(ConnectCode[name], mapped.message, details)


def to_session_error(mapped: MappedError, request_id: str = "") -> pb.SessionError:
    """A realtime session's error frame: the code, message, ErrorInfo and RetryInfo the unary
    calls send, and the refused action's request id."""
    return pb.SessionError(
        request_id=request_id,
        code=code_pb2.Code.Value(mapped.code.name),
        message=mapped.message,
        info=_error_info(mapped),
        retry=_retry_info(mapped),
    )
