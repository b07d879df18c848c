"""The error contract of the scopa game service: ErrorInfo reasons in domain scopa.dev."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import timedelta
from enum import StrEnum
from typing import Protocol

# googleapis-common-protos ships .pyi files but no py.typed marker.
from google.rpc import error_details_pb2, status_pb2  # type: ignore[import-untyped, unused-ignore]

ERROR_DOMAIN = "scopa.dev"
STATUS_DETAILS_KEY = "grpc-status-details-bin"


class Reason(StrEnum):
    """Every google.rpc.ErrorInfo reason the service documents."""

    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    CARD_NOT_IN_HAND = "CARD_NOT_IN_HAND"
    CAPTURE_NOT_LEGAL = "CAPTURE_NOT_LEGAL"
    CAPTURE_CHOICE_REQUIRED = "CAPTURE_CHOICE_REQUIRED"
    ACTION_NOT_LEGAL = "ACTION_NOT_LEGAL"
    GAME_OVER = "GAME_OVER"
    INVALID_OPTION = "INVALID_OPTION"
    INVALID_DECK = "INVALID_DECK"
    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    UNAUTHENTICATED = "UNAUTHENTICATED"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    GAME_NOT_FOUND = "GAME_NOT_FOUND"
    STALE_ETAG = "STALE_ETAG"
    CONCURRENT_UPDATE = "CONCURRENT_UPDATE"
    STACKED_DECKS_DISABLED = "STACKED_DECKS_DISABLED"
    BOT_ONLY_GAMES_DISABLED = "BOT_ONLY_GAMES_DISABLED"
    GAME_NOT_FINISHED = "GAME_NOT_FINISHED"
    REMATCH_UNAVAILABLE = "REMATCH_UNAVAILABLE"
    INVITE_INVALID = "INVITE_INVALID"
    SEAT_TAKEN = "SEAT_TAKEN"
    WAITING_FOR_PLAYERS = "WAITING_FOR_PLAYERS"
    STORAGE_UNAVAILABLE = "STORAGE_UNAVAILABLE"
    OUTCOME_UNKNOWN = "OUTCOME_UNKNOWN"
    REQUEST_ID_REUSED = "REQUEST_ID_REUSED"
    STORAGE_FULL = "STORAGE_FULL"
    TOO_MANY_WATCHES = "TOO_MANY_WATCHES"
    WATCH_IDLE = "WATCH_IDLE"
    HELLO_TIMEOUT = "HELLO_TIMEOUT"
    TOO_MANY_SESSIONS = "TOO_MANY_SESSIONS"
    SLOW_READER = "SLOW_READER"
    INTERNAL = "INTERNAL"
    MALFORMED_REQUEST = "MALFORMED_REQUEST"
    REQUEST_TOO_LARGE = "REQUEST_TOO_LARGE"
    SERVER_SHUTTING_DOWN = "SERVER_SHUTTING_DOWN"
    FORMAT_TOO_NEW = "FORMAT_TOO_NEW"
    GAME_STUCK = "GAME_STUCK"
    GAME_UNPLAYABLE = "GAME_UNPLAYABLE"
    RATE_LIMITED = "RATE_LIMITED"
    NOT_FOUND = "NOT_FOUND"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    ORIGIN_NOT_ALLOWED = "ORIGIN_NOT_ALLOWED"
    IDENTITY_INVALID = "IDENTITY_INVALID"
    IDENTITY_REQUIRED = "IDENTITY_REQUIRED"
    IDENTITY_UNAVAILABLE = "IDENTITY_UNAVAILABLE"
    SEAT_NOT_YOURS = "SEAT_NOT_YOURS"
    SPECTATOR_INVITE_REQUIRED = "SPECTATOR_INVITE_REQUIRED"


class _HasTrailers(Protocol):
    """A failed call (grpc.RpcError / grpc.aio.AioRpcError) exposing trailing metadata."""

    def trailing_metadata(self) -> Iterable[tuple[str, str | bytes]] | None:
        """Return the call's trailing metadata."""


def rich_status(
    code: int, reason: Reason, message: str, metadata: Mapping[str, str] | None = None
) -> status_pb2.Status:
    """Build the google.rpc.Status (with one scopa.dev ErrorInfo) for an error."""
    info = error_details_pb2.ErrorInfo(
        reason=str(reason), domain=ERROR_DOMAIN, metadata=dict(metadata or {})
    )
    status = status_pb2.Status(code=code, message=message)
    status.details.add().Pack(info)
    return status


def error_info_from_status(status: status_pb2.Status) -> error_details_pb2.ErrorInfo | None:
    """Return the first ErrorInfo detail of `status`, or None if it has none."""
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None


def error_info(error: _HasTrailers) -> error_details_pb2.ErrorInfo | None:
    """Return the ErrorInfo a failed call carries in its status details, or None."""
    for key, value in error.trailing_metadata() or ():
        if key == STATUS_DETAILS_KEY and isinstance(value, bytes):
            return error_info_from_status(status_pb2.Status.FromString(value))
    return None


def retry_delay(error: _HasTrailers) -> timedelta | None:
    """How long to wait before retrying (google.rpc.RetryInfo, e.g. RATE_LIMITED), or None."""
    for key, value in error.trailing_metadata() or ():
        if key == STATUS_DETAILS_KEY and isinstance(value, bytes):
            for detail in status_pb2.Status.FromString(value).details:
                if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
                    info = error_details_pb2.RetryInfo()
                    detail.Unpack(info)
                    delay: timedelta = info.retry_delay.ToTimedelta()
                    return delay
    return None
