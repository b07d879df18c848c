"""Helpers of the input-fault tests: raw calls to every RPC and reading the server's log."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import grpc
from support.server_process import ServerProcess

from scopa_client import error_info
from scopa_client.v1 import scopa_pb2

SERVICE = scopa_pb2.DESCRIPTOR.services_by_name["GameService"]
METHODS = [
    (f"/{SERVICE.full_name}/{m.name}", m.server_streaming)
    for m in SERVICE.methods
    if not m.client_streaming
]
"""Every RPC of the game service that takes one request, as (full method path,
server-streaming). The Session stream answers a malformed frame with an error frame and goes on
(tests/transport/test_grpc_session.py)."""


def raw_call(channel: grpc.Channel, method: str, streaming: bool, body: bytes) -> grpc.RpcError:
    """Send ``body`` as the request bytes (identity serializers); return the error it gets."""
    try:
        if streaming:
            for _ in channel.unary_stream(method)(body, timeout=10):
                pass
        else:
            channel.unary_unary(method)(body, timeout=10)
    except grpc.RpcError as exc:
        return exc
    raise AssertionError(f"{method} accepted {body!r}")


def reason_of(error: Any) -> str:
    """The ErrorInfo reason of a failed call (asserting there is one)."""
    info = error_info(error)
    assert info is not None, f"no ErrorInfo: {error.code()} {error.details()}"
    assert info.domain == "scopa.dev"
    return str(info.reason)


def access_lines(server: ServerProcess, method: str | None = None) -> list[dict[str, Any]]:
    """The server's access-log records (one per RPC), optionally of one method."""
    return [
        r
        for r in server.log_records()
        if r.get("event") == "rpc" and (method is None or r.get("rpc_method") == method)
    ]


def wait_for_access_lines(server: ServerProcess, count: int, timeout_s: float = 20.0) -> None:
    """Wait until the server has logged ``count`` access lines (it logs just after answering)."""
    deadline = time.monotonic() + timeout_s
    while len(access_lines(server)) < count:
        assert time.monotonic() < deadline, access_lines(server)
        time.sleep(0.05)


def assert_clean_log(server: ServerProcess) -> None:
    """No traceback and no ERROR record in the server's log."""
    text = server.log_text()
    assert "Traceback" not in text, text[-3000:]
    errors = [r for r in server.log_records() if r.get("level") in ("error", "critical")]
    assert not errors, errors


@contextmanager
def channel_to(server: ServerProcess) -> Iterator[grpc.Channel]:
    """A blocking channel to ``server``."""
    with grpc.insecure_channel(server.target) as channel:
        yield channel
