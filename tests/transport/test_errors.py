"""Tests of scopa.transport._errors and its interceptor: exceptions become statuses, ErrorInfo."""

from __future__ import annotations

import random

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2  # type: ignore[import-untyped]
from server.fakes import Harness, error_info, session_loop

import scopa_client
from scopa import rules
from scopa.app import RateLimited
from scopa.server import ERROR_CODES, ERROR_DOMAIN, map_exception, register, to_grpc_status
from scopa.storage import StorageUnavailable
from scopa.transport._errors import http_error_headers, to_connect_error, to_http_error


class _SubSeat(rules.InvalidSeat):
    """A subclass without its own table entry."""

    reason = "SUB_SEAT"


def test_lookup_follows_the_mro() -> None:
    """A subclass without an entry gets its nearest registered base class's code."""
    mapped = map_exception(_SubSeat("seat 9", field="seat"))
    assert mapped.code is grpc.StatusCode.INVALID_ARGUMENT
    assert (mapped.reason, mapped.message, dict(mapped.metadata)) == (
        "SUB_SEAT",
        "seat 9",
        {"field": "seat"},
    )


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (rules.NotYourTurn("x"), grpc.StatusCode.FAILED_PRECONDITION),
        (rules.CardNotInHand("x"), grpc.StatusCode.FAILED_PRECONDITION),
        (rules.CaptureNotLegal("x"), grpc.StatusCode.FAILED_PRECONDITION),
        (rules.CaptureChoiceRequired("x"), grpc.StatusCode.FAILED_PRECONDITION),
        (rules.GameOver("x"), grpc.StatusCode.FAILED_PRECONDITION),
        (rules.InvalidOption("x"), grpc.StatusCode.INVALID_ARGUMENT),
        (rules.InvalidDeck("x"), grpc.StatusCode.INVALID_ARGUMENT),
        (rules.InvalidSeat("x"), grpc.StatusCode.INVALID_ARGUMENT),
    ],
)
def test_rules_errors_have_their_codes(error: rules.RulesError, code: grpc.StatusCode) -> None:
    """Each rules error maps to the agreed status code and keeps its reason."""
    mapped = map_exception(error)
    assert (mapped.code, mapped.reason) == (code, error.reason)


def test_corrupt_state_is_a_plain_internal_error() -> None:
    """A server fault such as corrupt state is INTERNAL / INTERNAL, its own reason hidden."""
    mapped = map_exception(rules.InvalidState("state blob of game g1 is corrupt"))
    assert (mapped.code, mapped.reason, mapped.message) == (
        grpc.StatusCode.INTERNAL,
        "INTERNAL",
        "internal error",
    )


def test_a_game_of_a_newer_format_is_unavailable_with_its_reason() -> None:
    """A game stored in a format above this release's (a newer replica wrote it during a
    rolling update) is UNAVAILABLE / FORMAT_TOO_NEW with both formats, not a server fault."""
    state, _ = rules.new_match(rules.make_ruleset("scopa"), rng=random.Random(1))
    blob = rules.dump_state(state)
    with pytest.raises(rules.FormatTooNew) as err:
        rules.load_state(bytes([rules.FORMAT_VERSION + 1]) + blob[1:])
    mapped = map_exception(err.value)
    assert (mapped.code, mapped.reason) == (grpc.StatusCode.UNAVAILABLE, "FORMAT_TOO_NEW")
    assert dict(mapped.metadata) == {
        "format": str(rules.FORMAT_VERSION + 1),
        "readable_format": str(rules.FORMAT_VERSION),
    }
    assert "newer release" in mapped.message and not mapped.server_fault
    assert scopa_client.Reason.FORMAT_TOO_NEW == "FORMAT_TOO_NEW"


def test_a_game_under_rules_no_longer_built_is_a_precondition_with_its_reason() -> None:
    """A stored game this release cannot build the rules of is FAILED_PRECONDITION /
    GAME_UNPLAYABLE with the preset and the option, not a server fault."""
    error = rules.GameUnplayable("x", metadata={"preset": "scopa", "option": "deck_size"})
    mapped = map_exception(error)
    assert (mapped.code, mapped.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_UNPLAYABLE")
    assert dict(mapped.metadata) == {"preset": "scopa", "option": "deck_size"}
    assert not mapped.server_fault
    assert scopa_client.Reason.GAME_UNPLAYABLE == "GAME_UNPLAYABLE"


def test_unknown_exceptions_become_a_generic_internal_error() -> None:
    """An unmapped exception reveals neither its type nor its message."""
    mapped = map_exception(KeyError("player hand of seat 2"))
    assert (mapped.code, mapped.reason, mapped.message) == (
        grpc.StatusCode.INTERNAL,
        "INTERNAL",
        "internal error",
    )
    assert mapped.server_fault


def test_register_adds_a_table_entry() -> None:
    """register() makes a new exception class map to its code."""

    class Busy(Exception):
        reason = "BUSY"

    register(Busy, grpc.StatusCode.UNAVAILABLE)
    try:
        assert map_exception(Busy("later")).code is grpc.StatusCode.UNAVAILABLE
    finally:
        del ERROR_CODES[Busy]


def test_status_carries_error_info_in_the_trailer() -> None:
    """to_grpc_status packs ErrorInfo with the scopa.dev domain into grpc-status-details-bin."""
    status = to_grpc_status(map_exception(rules.InvalidDeck("39 cards", field="deck")))
    assert status.code is grpc.StatusCode.INVALID_ARGUMENT
    assert status.details == "39 cards"
    keys = [key for key, _ in status.trailing_metadata]
    assert keys == ["grpc-status-details-bin"]
    rich = status_pb2.Status.FromString(dict(status.trailing_metadata)["grpc-status-details-bin"])
    assert (rich.code, rich.message) == (grpc.StatusCode.INVALID_ARGUMENT.value[0], "39 cards")
    info = scopa_client.error_info_from_status(rich)
    assert info is not None, "no ErrorInfo in the status details"
    assert (info.reason, info.domain, dict(info.metadata)) == (
        "INVALID_DECK",
        "scopa.dev",
        {"field": "deck"},
    )


@session_loop
@pytest.mark.parametrize(
    ("body", "code", "reason", "metadata"),
    [
        (b"not-your-turn", grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN", {}),
        (b"bad-seat", grpc.StatusCode.INVALID_ARGUMENT, "INVALID_SEAT", {"field": "seat"}),
        (b"quota", grpc.StatusCode.RESOURCE_EXHAUSTED, "QUOTA_EXCEEDED", {}),
        (b"teapot", grpc.StatusCode.RESOURCE_EXHAUSTED, "TEAPOT", {}),
    ],
)
async def test_client_sees_code_reason_and_field(
    harness: Harness, body: bytes, code: grpc.StatusCode, reason: str, metadata: dict[str, str]
) -> None:
    """A domain error raised by a unary handler reaches the client as status + ErrorInfo."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await harness.echo(body)
    info = error_info(caught.value)
    assert caught.value.code() is code
    assert (info.reason, info.domain, dict(info.metadata)) == (reason, ERROR_DOMAIN, metadata)


@session_loop
@pytest.mark.parametrize("body", [b"boom", b"corrupt"])
async def test_server_faults_leak_nothing(harness: Harness, body: bytes) -> None:
    """An unexpected error or corrupt state is INTERNAL with a generic message and no traceback."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await harness.echo(body)
    error = caught.value
    assert error.code() is grpc.StatusCode.INTERNAL
    assert error.details() == "internal error"
    trailer = repr(error.trailing_metadata())
    for leak in ("secret-detail", "deadbeef", "Traceback", "RuntimeError", "app.py"):
        assert leak not in trailer and leak not in (error.debug_error_string() or "")
    assert error_info(error).reason == "INTERNAL"


@session_loop
async def test_server_faults_are_logged_with_traceback(harness: Harness) -> None:
    """The server's own log keeps the exception and traceback the client never sees."""
    with pytest.raises(grpc.aio.AioRpcError):
        await harness.echo(b"boom")
    log = harness.log.getvalue()
    assert "secret-detail" in log and "RuntimeError" in log and "rpc.failed" in log


@session_loop
async def test_errors_in_a_stream_are_mapped(harness: Harness) -> None:
    """A domain error raised mid-stream ends the stream with the mapped status and ErrorInfo."""
    received, error = await harness.stream(b"bad-seat")
    assert received == [b"one", b"two"]
    assert error is not None and error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(error).metadata["field"] == "seat"


@session_loop
async def test_successful_calls_are_untouched(harness: Harness) -> None:
    """Calls that do not raise return their response and complete streams normally."""
    assert await harness.echo(b"hello") == b"hello"
    assert await harness.stream(b"fine") == ([b"one", b"two"], None)


def test_storage_outage_is_unavailable_without_backend_details() -> None:
    """A store outage is UNAVAILABLE / STORAGE_UNAVAILABLE and hides the backend address."""
    mapped = map_exception(StorageUnavailable("Error 111 connecting to 10.0.0.7:6379"))
    assert (mapped.code, mapped.reason) == (grpc.StatusCode.UNAVAILABLE, "STORAGE_UNAVAILABLE")
    assert "10.0.0.7" not in mapped.message


def test_client_strings_are_cut_to_fit_the_trailers() -> None:
    """An 8 KB message or metadata value (even multi-byte) is cut to a few hundred bytes."""
    huge = rules.InvalidOption("unknown preset " + "é" * 8000, field="o" * 8000)
    huge.metadata = {"option": "x" * 8000}
    mapped = map_exception(huge)
    assert mapped.code is grpc.StatusCode.INVALID_ARGUMENT
    assert mapped.message.startswith("unknown preset é") and mapped.message.endswith("...")
    assert len(mapped.message.encode()) <= 400
    assert all(len(v.encode()) <= 128 for v in mapped.metadata.values())
    status = to_grpc_status(mapped)
    assert sum(len(v) for _, v in status.trailing_metadata) < 2000


def test_short_messages_are_kept_whole() -> None:
    """Messages within the limit are not changed."""
    assert map_exception(rules.NotYourTurn("it is seat 1's turn")).message == "it is seat 1's turn"


def test_rate_limited_carries_retry_info_in_every_rendering() -> None:
    """RATE_LIMITED is RESOURCE_EXHAUSTED with a RetryInfo for gRPC, REST (429) and Connect."""
    mapped = map_exception(RateLimited("too many", retry_after_s=12.5))
    assert (mapped.code, mapped.reason, mapped.retry_delay_s) == (
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "RATE_LIMITED",
        12.5,
    )
    status = status_pb2.Status.FromString(
        dict(to_grpc_status(mapped).trailing_metadata)["grpc-status-details-bin"]
    )
    retry = error_details_pb2.RetryInfo()
    assert status.details[1].Unpack(retry)
    assert retry.retry_delay.ToTimedelta().total_seconds() == 12.5
    http_status, body = to_http_error(mapped)
    assert http_status == 429
    assert http_error_headers(mapped) == [(b"retry-after", b"13")]  # whole seconds, rounded up
    assert http_error_headers(map_exception(rules.NotYourTurn("seat 1's turn"))) == []
    assert body["error"]["details"][1] == {
        "@type": "type.googleapis.com/google.rpc.RetryInfo",
        "retryDelay": "12.500s",
    }
    connect = to_connect_error(mapped)
    assert [d.type_name for d in connect.details] == [
        "google.rpc.ErrorInfo",
        "google.rpc.RetryInfo",
    ]
