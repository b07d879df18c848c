"""Tests of scopa._spans: a leaf span recorded once it ended exports as start_span's would."""

from __future__ import annotations

import time
from typing import Any

from opentelemetry import context, trace
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON, ParentBased
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, StatusCode, TraceFlags

from scopa._spans import LeafSpans

ATTRIBUTES: dict[str, str | int | bool] = {
    "db.system.name": "redis",
    "server.port": 6379,
    "scopa.sweep": True,
}


def _provider(**kwargs: object) -> tuple[TracerProvider, InMemorySpanExporter]:
    """A tracer provider exporting every ended span to memory."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(**kwargs)  # type: ignore[arg-type]
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def _fields(span: ReadableSpan) -> tuple[object, ...]:
    """What a span exports, but its own ids and times."""
    parent = span.parent
    return (
        span.name,
        span.kind,
        dict(span.attributes or {}),
        span.context.trace_id if span.context else None,
        span.context.trace_flags if span.context else None,
        parent.span_id if parent else None,
        span.status.status_code,
        span.resource,
        span.instrumentation_scope,
        list(span.events),
        list(span.links),
    )


def test_a_leaf_span_exports_as_a_started_and_ended_span() -> None:
    """Under a current span: the same name, kind, attributes, trace, parent, flags, status,
    resource and scope as start_span + end, with the given times and a span id of its own."""
    provider, exporter = _provider()
    tracer = provider.get_tracer("scopa.test")
    leaves = LeafSpans(tracer)
    server = tracer.start_span("server", kind=SpanKind.SERVER)
    token = context.attach(trace.set_span_in_context(server))
    try:
        tracer.start_span("HMGET load", kind=SpanKind.CLIENT, attributes=ATTRIBUTES).end()
        start = time.time_ns()
        leaves.ended("HMGET load", SpanKind.CLIENT, ATTRIBUTES, start, start + 5)
    finally:
        context.detach(token)
    server.end()
    reference, leaf, _server = exporter.get_finished_spans()
    assert _fields(leaf) == _fields(reference)
    assert leaf.parent == server.get_span_context()
    assert (leaf.start_time, leaf.end_time) == (start, start + 5)
    assert leaf.context is not None and reference.context is not None
    assert leaf.context.span_id not in (
        0,
        server.get_span_context().span_id,
        reference.context.span_id,
    )
    assert leaf.status.status_code is StatusCode.UNSET


def test_a_leaf_span_without_a_current_span_is_a_root() -> None:
    """With no span current, the leaf starts a trace of its own, as start_span does."""
    provider, exporter = _provider()
    tracer = provider.get_tracer("scopa.test")
    tracer.start_span("PING ping", kind=SpanKind.CLIENT).end()
    LeafSpans(tracer).ended("PING ping", SpanKind.CLIENT, {}, 1, 2)
    reference, leaf = exporter.get_finished_spans()
    assert leaf.parent is None and reference.parent is None
    assert leaf.context is not None and reference.context is not None
    assert leaf.context.trace_id != reference.context.trace_id
    assert leaf.context.trace_flags == reference.context.trace_flags


def _under(parent_flags: int, sampler: object) -> int:
    """How many spans a leaf recorded under a remote parent with ``parent_flags`` exports."""
    provider, exporter = _provider(sampler=sampler)
    parent = SpanContext(1, 2, is_remote=True, trace_flags=TraceFlags(parent_flags))
    token = context.attach(trace.set_span_in_context(NonRecordingSpan(parent)))
    try:
        LeafSpans(provider.get_tracer("scopa.test")).ended("a", SpanKind.CLIENT, {}, 1, 2)
    finally:
        context.detach(token)
    return len(exporter.get_finished_spans())


def test_the_sampler_decides_as_for_any_span() -> None:
    """A sampler that drops spans drops leaves; a parent-based one follows the parent's flag."""
    provider, exporter = _provider(sampler=ALWAYS_OFF)
    LeafSpans(provider.get_tracer("scopa.test")).ended("a", SpanKind.CLIENT, {}, 1, 2)
    assert exporter.get_finished_spans() == ()
    assert _under(TraceFlags.DEFAULT, ParentBased(ALWAYS_ON)) == 0
    assert _under(TraceFlags.SAMPLED, ParentBased(ALWAYS_OFF)) == 1


class _RecordingTracer(trace.NoOpTracer):
    """A tracer that is not the SDK's and records the spans it is asked to start and end."""

    def __init__(self) -> None:
        self.calls: list[tuple[object, ...]] = []

    def start_span(self, name: str, *args: Any, **kwargs: Any) -> trace.Span:
        """Record the start's arguments; the span records its end time."""
        calls = self.calls
        calls.append((name, kwargs.get("kind"), dict(kwargs.get("attributes") or {}),
                      kwargs.get("start_time")))  # fmt: skip

        class _Span(trace.NonRecordingSpan):
            def end(self, end_time: int | None = None) -> None:
                calls.append(("end", end_time))

        return _Span(trace.INVALID_SPAN_CONTEXT)


def test_a_tracer_that_is_not_the_sdks_is_used_as_it_is() -> None:
    """Another tracer (tracing off: the API's) gets start_span and end with the leaf's times."""
    tracer = _RecordingTracer()
    LeafSpans(tracer).ended("a", SpanKind.CLIENT, ATTRIBUTES, 1, 2)
    assert tracer.calls == [("a", SpanKind.CLIENT, ATTRIBUTES, 1), ("end", 2)]


def test_a_proxy_tracer_records_once_a_provider_is_set() -> None:
    """A proxy tracer made before any provider hands leaves, ended, to the SDK tracer it gets."""
    proxy = trace.ProxyTracer("scopa.test")
    leaves = LeafSpans(proxy)
    leaves.ended("a", SpanKind.CLIENT, {}, 1, 2)  # no provider yet: the no-op tracer
    provider, exporter = _provider()
    started: list[str] = []

    class _Starts(SpanProcessor):
        def on_start(self, span: Span, parent_context: context.Context | None = None) -> None:
            started.append(span.name)

    provider.add_span_processor(_Starts())
    proxy._real_tracer = provider.get_tracer("scopa.test")
    leaves.ended("b", SpanKind.CLIENT, {}, 3, 4)
    assert [s.name for s in exporter.get_finished_spans()] == ["b"]
    assert started == []  # handed over ended, not started through the proxy
