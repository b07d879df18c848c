"""Bytes that are not the RPC's protobuf message, and oversized requests, on a real server."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from support.redis_server import RedisServer
from support.server_process import ServerProcess, start_server, stop_server

from faults.input_helpers import (
    METHODS,
    access_lines,
    assert_clean_log,
    channel_to,
    raw_call,
    reason_of,
    wait_for_access_lines,
)

NOT_PROTOBUF = [
    b"\xff\xff\xff\xff\xff",  # a tag whose varint never ends
    b"\x0a\x10abc",  # a length-delimited field promising 16 bytes and giving 3
    b'{"preset": "scopa"}',  # JSON: starts a group that never ends
]


@pytest.fixture(scope="module")
def server(redis_server: RedisServer) -> Iterator[ServerProcess]:
    """One server process on the session's Redis, with a 4 KiB request limit."""
    process = start_server(redis_server.url, env={"SCOPA_MAX_REQUEST_BYTES": "4096"})
    try:
        yield process
    finally:
        stop_server(process)


def test_non_protobuf_bytes_on_every_rpc_are_invalid_argument(server: ServerProcess) -> None:
    """Every RPC answers garbage with INVALID_ARGUMENT / MALFORMED_REQUEST and one log line."""
    with channel_to(server) as channel:
        for method, streaming in METHODS:
            for body in NOT_PROTOBUF:
                error = raw_call(channel, method, streaming, body)
                assert error.code() is grpc.StatusCode.INVALID_ARGUMENT, (method, error)
                assert reason_of(error) == "MALFORMED_REQUEST", method
    wait_for_access_lines(server, len(METHODS) * len(NOT_PROTOBUF))
    for method, _ in METHODS:
        lines = access_lines(server, method)
        assert len(lines) == len(NOT_PROTOBUF), (method, lines)
        assert {line["outcome"] for line in lines} == {"INVALID_ARGUMENT"}
    assert_clean_log(server)


def test_oversized_requests_are_refused_with_error_info(server: ServerProcess) -> None:
    """A request over SCOPA_MAX_REQUEST_BYTES is INVALID_ARGUMENT / REQUEST_TOO_LARGE."""
    body = b"\x12\x00" * 3000  # 6,000 bytes of valid empty fields
    with channel_to(server) as channel:
        error = raw_call(channel, f"/scopa.v1.GameService/{'CreateGame'}", False, body)
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(error) == "REQUEST_TOO_LARGE"
    assert "4096" in (error.details() or "")
    assert_clean_log(server)


def test_health_and_reflection_refuse_garbage_without_a_traceback(server: ServerProcess) -> None:
    """Probes' and tools' services answer garbage with MALFORMED_REQUEST, not UNKNOWN."""
    body = NOT_PROTOBUF[0]
    with channel_to(server) as channel:
        errors = [
            raw_call(channel, "/grpc.health.v1.Health/Check", False, body),
            raw_call(channel, "/grpc.health.v1.Health/Watch", True, body),
        ]
        reflection = channel.stream_stream(
            "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"
        )
        try:
            list(reflection(iter([body]), timeout=10))
        except grpc.RpcError as exc:
            errors.append(exc)
    assert len(errors) == 3
    for error in errors:
        assert error.code() is grpc.StatusCode.INVALID_ARGUMENT, error
        assert reason_of(error) == "MALFORMED_REQUEST"
    assert_clean_log(server)
