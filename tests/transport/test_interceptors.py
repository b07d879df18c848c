"""Tests of scopa.transport._interceptors: one span, one access-log line and one metric per RPC."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from opentelemetry.sdk.metrics.export import HistogramDataPoint
from opentelemetry.trace import SpanKind, StatusCode
from server.fakes import ECHO, FOREVER, STREAM, Harness, session_loop

from scopa.server import (
    AccessLogInterceptor,
    ErrorMappingInterceptor,
    InterceptorStack,
    TracingInterceptor,
    default_interceptors,
)
from scopa.transport._interceptors import _as_call

SECRET_TOKEN = "Bearer sekrit-seat-token-1234"
SECRET_BODY = b"sekrit-hand-cards"
TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


def _access_lines(harness: Harness) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in harness.log.getvalue().splitlines() if line]
    return [line for line in lines if line.get("logger_name") == "scopa.access"]


async def _finished_spans(harness: Harness, count: int) -> tuple[Any, ...]:
    """The finished spans once there are ``count``: the server ends a span (and writes the
    access line before it) just after the client has its status."""
    for _ in range(250):
        spans = tuple(harness.spans.get_finished_spans())
        if len(spans) >= count:
            return spans
        await asyncio.sleep(0.02)
    return tuple(harness.spans.get_finished_spans())


async def _check_health(harness: Harness) -> None:
    stub = health_pb2_grpc.HealthStub(harness.channel)
    await stub.Check(health_pb2.HealthCheckRequest(service=""))


@session_loop
async def test_one_server_span_per_rpc(harness: Harness) -> None:
    """Each RPC gets exactly one SERVER span named after the method, with rpc.* attributes."""
    await harness.echo(b"hi")
    await harness.stream(b"fine")
    spans = await _finished_spans(harness, 2)
    assert [span.name for span in spans] == [ECHO.lstrip("/"), STREAM.lstrip("/")]
    for span, method in zip(spans, (ECHO, STREAM), strict=True):
        attributes = dict(span.attributes or {})
        assert span.kind is SpanKind.SERVER
        port = attributes.pop("network.peer.port")
        assert isinstance(port, int) and port > 0
        assert attributes == {
            "rpc.system.name": "grpc",
            "rpc.method": method.lstrip("/"),
            "rpc.status_code": "OK",
            "network.peer.address": "127.0.0.1",
        }


@session_loop
async def test_health_checks_are_not_traced_or_logged(harness: Harness) -> None:
    """Health-check RPCs create no span and no access-log line."""
    await _check_health(harness)
    await _check_health(harness)
    assert harness.spans.get_finished_spans() == ()
    assert _access_lines(harness) == []


@session_loop
async def test_span_status_and_code_of_failures(harness: Harness) -> None:
    """Client errors keep an unset span status; server faults mark the span as an error."""
    for body in (b"not-your-turn", b"boom"):
        with pytest.raises(grpc.aio.AioRpcError):
            await harness.echo(body)
    client_error, server_fault = await _finished_spans(harness, 2)
    client_attributes = dict(client_error.attributes or {})
    assert client_attributes["rpc.status_code"] == "FAILED_PRECONDITION"
    assert "error.type" not in client_attributes
    assert client_error.status.status_code is StatusCode.UNSET
    assert dict(server_fault.attributes or {})["rpc.status_code"] == "INTERNAL"
    assert dict(server_fault.attributes or {})["error.type"] == "INTERNAL"
    assert server_fault.status.status_code is StatusCode.ERROR
    (event,) = server_fault.events
    assert (event.name, dict(event.attributes or {})) == (
        "exception",
        {"exception.type": "RuntimeError"},
    )


@session_loop
async def test_server_fault_spans_carry_no_exception_text(harness: Harness) -> None:
    """A fault's span names the exception type only: its message may quote hidden state."""
    with pytest.raises(grpc.aio.AioRpcError):
        await harness.echo(b"boom")
    (span,) = await _finished_spans(harness, 1)
    recorded = repr(dict(span.attributes or {})) + repr([e.attributes for e in span.events])
    assert "secret-detail" not in recorded


@session_loop
async def test_span_continues_the_callers_trace(harness: Harness) -> None:
    """A W3C traceparent sent by the client becomes the server span's parent."""
    await harness.echo(b"hi", metadata=(("traceparent", TRACEPARENT),))
    (span,) = await _finished_spans(harness, 1)
    assert format(span.context.trace_id, "032x") == "0af7651916cd43dd8448eb211c80319c"
    assert span.parent is not None and format(span.parent.span_id, "016x") == "b7ad6b7169203331"


@session_loop
async def test_one_access_line_per_rpc_with_trace_ids(harness: Harness) -> None:
    """Each RPC logs one line with method, outcome, duration, peer, protocol (``grpc``, as the
    HTTP port's lines name theirs) and the span's ids."""
    await harness.echo(b"hi")
    with pytest.raises(grpc.aio.AioRpcError):
        await harness.echo(b"bad-seat")
    received, error = await harness.stream(b"not-your-turn")
    assert len(received) == 2 and error is not None
    spans = await _finished_spans(harness, 3)
    lines = _access_lines(harness)
    assert [(line["rpc_method"], line["outcome"]) for line in lines] == [
        (ECHO, "OK"),
        (ECHO, "INVALID_ARGUMENT"),
        (STREAM, "FAILED_PRECONDITION"),
    ]
    for line, span in zip(lines, spans, strict=True):
        assert line["event"] == "rpc"
        assert line["duration_ms"] >= 0
        assert line["peer"].startswith("ipv4:127.0.0.1:")
        assert line["protocol"] == "grpc"
        assert line["trace_id"] == format(span.context.trace_id, "032x")
        assert line["span_id"] == format(span.context.span_id, "016x")


@session_loop
async def test_access_log_holds_no_bodies_or_credentials(harness: Harness) -> None:
    """Neither the request body nor the authorization metadata ever reaches the log."""
    await harness.echo(SECRET_BODY, metadata=(("authorization", SECRET_TOKEN),))
    log = harness.log.getvalue()
    assert len(_access_lines(harness)) == 1
    assert "sekrit" not in log and "authorization" not in log.lower()
    span_text = repr([dict(span.attributes or {}) for span in harness.spans.get_finished_spans()])
    assert "sekrit" not in span_text


@session_loop
async def test_rpc_latency_histogram(harness: Harness) -> None:
    """Every RPC records its duration in seconds with its method and string status code."""
    await harness.echo(b"hi")
    with pytest.raises(grpc.aio.AioRpcError):
        await harness.echo(b"not-your-turn")
    ok_span, _ = await _finished_spans(harness, 2)  # each point is recorded before its span ends
    data = harness.metrics.get_metrics_data()
    assert data is not None
    metrics = [
        metric
        for resource in data.resource_metrics
        for scope in resource.scope_metrics
        for metric in scope.metrics
        if metric.name == "rpc.server.call.duration"
    ]
    (histogram,) = metrics
    assert histogram.unit == "s"
    counts = {
        (point.attributes or {}).get("rpc.status_code"): point.count
        for point in histogram.data.data_points
        if isinstance(point, HistogramDataPoint)
    }
    assert counts == {"OK": 1, "FAILED_PRECONDITION": 1}
    points = [dict(p.attributes or {}) for p in histogram.data.data_points]
    (ok,) = [attributes for attributes in points if attributes["rpc.status_code"] == "OK"]
    assert ok == {
        "rpc.system.name": "grpc",
        "rpc.method": ECHO.lstrip("/"),
        "rpc.status_code": "OK",
    }
    # The same attributes, with the same types, as on the call's span.
    span_attributes = dict(ok_span.attributes or {})
    assert all(span_attributes[key] == value for key, value in ok.items())


@session_loop
async def test_cancelled_streams_are_closed_and_logged(harness: Harness) -> None:
    """Clients cancelling streams mid-way leave a live server and one CANCELLED line per call."""
    for _ in range(30):
        call = harness.channel.unary_stream(FOREVER)(b"tick")
        assert await call.read() == b"tick"
        call.cancel()
    assert await harness.echo(b"still-alive") == b"still-alive"
    for _ in range(100):  # the server notices the cancellations asynchronously
        outcomes = [line["outcome"] for line in _access_lines(harness)]
        if outcomes.count("CANCELLED") == 30:
            break
        await asyncio.sleep(0.02)
    assert outcomes.count("CANCELLED") == 30


def test_default_interceptors_are_one_stack_in_order() -> None:
    """The service registers one interceptor that runs tracing, access log, errors in order."""
    (stack,) = default_interceptors()
    assert isinstance(stack, InterceptorStack)
    assert [type(layer) for layer in stack.layers] == [
        TracingInterceptor,
        AccessLogInterceptor,
        ErrorMappingInterceptor,
    ]


class _Details:
    """The handler_call_details grpc passes to an interceptor."""

    def __init__(self, method: str) -> None:
        self.method = method
        self.invocation_metadata = ()


async def _unary(request: bytes, context: Any) -> bytes:
    return request


def test_a_method_is_wrapped_once_and_reused() -> None:
    """The stack asks the chain for a method's handler on its first call only, then reuses it;
    an unknown method (no handler) is asked about every time and never kept."""
    (stack,) = default_interceptors()
    asked: list[str] = []
    handler = grpc.unary_unary_rpc_method_handler(_unary)

    async def continuation(details: Any) -> Any:
        asked.append(details.method)
        return handler if details.method == ECHO else None

    async def calls() -> list[Any]:
        return [
            await stack.intercept_service(continuation, _Details(method))
            for method in (ECHO, ECHO, "/x.Y/Z", "/x.Y/Z")
        ]

    first, second, unknown, again = asyncio.run(calls())
    assert first is second and first is not handler
    assert unknown is None and again is None
    assert asked == [ECHO, "/x.Y/Z", "/x.Y/Z"]


@session_loop
async def test_a_stream_cancelled_mid_write_finishes_the_write_before_it_ends() -> None:
    """A cancellation (the drain ending the stream) that lands while a message is being sent
    ends the call only once the send is over: grpc refuses the status sent next while a send is
    in flight (TOO_MANY_OPERATIONS), and the client would wait for ever."""
    in_flight: list[bytes] = []
    sent: list[bytes] = []

    class Context:
        async def write(self, item: bytes) -> None:
            in_flight.append(item)
            await asyncio.sleep(0.05)
            in_flight.remove(item)
            sent.append(item)

    async def ticks(request: bytes, context: Any) -> AsyncIterator[bytes]:
        while True:
            yield request

    call = _as_call(ticks)
    assert call is not None
    task: asyncio.Future[Any] = asyncio.ensure_future(call(b"tick", Context()))
    await asyncio.sleep(0.02)
    assert in_flight == [b"tick"]
    task.cancel()
    await asyncio.sleep(0.01)
    task.cancel()  # end_streams cancels again while the send is still going
    with pytest.raises(asyncio.CancelledError):
        await task
    assert in_flight == [] and sent == [b"tick"]
