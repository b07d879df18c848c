"""Tests of scopa._spans: a leaf span recorded once it ended exports as start_span's would."""

from __future__ import annotations

import time

from opentelemetry import context, trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ParentBased
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, StatusCode, TraceFlags

from scopa._spans import LeafSpans

ATTRIBUTES: dict[str, str | int | bool] = {
    "db.system.name": "redis",
    "server.port": 6379,
    "scopa.sweep": True,
}


def _provider(**kwargs: object) -> tuple[TracerProvider, InMemorySpanExporter]:
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
    assert leaf.context is not None and leaf.context.span_id not in (0, server.get_span_context())
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


def test_the_sampler_decides_as_for_any_span() -> None:
    """A sampler that drops spans drops leaves; under an unsampled parent nothing is kept."""
    provider, exporter = _provider(sampler=ALWAYS_OFF)
    LeafSpans(provider.get_tracer("scopa.test")).ended("a", SpanKind.CLIENT, {}, 1, 2)
    assert exporter.get_finished_spans() == ()
    provider, exporter = _provider(sampler=ParentBased(ALWAYS_OFF))
    unsampled = SpanContext(1, 2, is_remote=True, trace_flags=TraceFlags(TraceFlags.DEFAULT))
    token = context.attach(trace.set_span_in_context(NonRecordingSpan(unsampled)))
    try:
        LeafSpans(provider.get_tracer("scopa.test")).ended("a", SpanKind.CLIENT, {}, 1, 2)
    finally:
        context.detach(token)
    assert exporter.get_finished_spans() == ()


def test_a_tracer_that_is_not_the_sdks_is_used_as_it_is() -> None:
    """Tracing off (the API's no-op tracer): recording a leaf does nothing and raises nothing."""
    LeafSpans(trace.NoOpTracer()).ended("a", SpanKind.CLIENT, ATTRIBUTES, 1, 2)
