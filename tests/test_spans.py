"""Tests of scopa._spans: a leaf span recorded once it ended exports as start_span's would."""

from __future__ import annotations

import time
from typing import Any

from opentelemetry import context, trace
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON, DEFAULT_ON, ParentBased
from opentelemetry.trace import (
    NonRecordingSpan,
    SpanContext,
    SpanKind,
    StatusCode,
    TraceFlags,
    TraceState,
)

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


def _remote(flags: int) -> context.Context:
    """A context holding a remote parent (what ``propagate.extract`` gives for a traceparent)."""
    parent = SpanContext(7, 8, is_remote=True, trace_flags=TraceFlags(flags))
    return trace.set_span_in_context(NonRecordingSpan(parent))


def _server_call(span: trace.Span) -> None:
    """What the server does with its SERVER span: make it current, record a leaf under it, set
    the outcome, end it."""
    token = context.attach(trace.set_span_in_context(span))
    try:
        span.set_attributes({"rpc.response.status_code": "INTERNAL"})
        span.add_event("exception", {"exception.type": "KeyError"})
        span.set_status(StatusCode.ERROR, "INTERNAL")
    finally:
        context.detach(token)
    span.end()


def test_a_started_span_exports_as_a_started_and_ended_sdk_span() -> None:
    """A span from start, set and ended as the server's SERVER span is, exports the same name,
    kind, attributes, trace, parent, flags, status, resource, scope and events as the SDK's."""
    provider, exporter = _provider()
    tracer = provider.get_tracer("scopa.test")
    parent = _remote(TraceFlags.SAMPLED)
    _server_call(tracer.start_span("rpc", parent, SpanKind.SERVER, ATTRIBUTES))
    started = LeafSpans(tracer).start("rpc", SpanKind.SERVER, ATTRIBUTES, parent)
    assert started.is_recording()
    _server_call(started)
    assert not started.is_recording()
    reference, recorded = exporter.get_finished_spans()

    def events(span: ReadableSpan) -> list[tuple[str, dict[str, object]]]:
        return [(e.name, dict(e.attributes or {})) for e in span.events]

    assert _fields(recorded)[:-2] == _fields(reference)[:-2]
    assert events(recorded) == events(reference) == [("exception", {"exception.type": "KeyError"})]
    assert recorded.parent is not None and recorded.parent.span_id == 8
    assert recorded.status.description == reference.status.description == "INTERNAL"
    assert recorded.start_time is not None and recorded.end_time is not None
    assert recorded.start_time <= recorded.end_time
    started.end()  # a second end records nothing more
    assert len(exporter.get_finished_spans()) == 2


def test_a_started_span_is_the_parent_of_leaves_and_children() -> None:
    """Current, a started span parents a leaf span and an SDK child span of the same trace."""
    provider, exporter = _provider()
    tracer = provider.get_tracer("scopa.test")
    leaves = LeafSpans(tracer)
    server = leaves.start("rpc", SpanKind.SERVER, {}, context.Context())
    token = context.attach(trace.set_span_in_context(server))
    try:
        leaves.ended("HMGET load", SpanKind.CLIENT, ATTRIBUTES, 1, 2)
        tracer.start_span("scopa.bot.choose").end()
    finally:
        context.detach(token)
    server.end()
    leaf, child, root = exporter.get_finished_spans()
    assert root.parent is None and root.context == server.get_span_context()
    assert leaf.parent == child.parent == server.get_span_context()
    assert leaf.context is not None and child.context is not None
    assert leaf.context.trace_id == child.context.trace_id == server.get_span_context().trace_id


def test_a_started_span_is_sampled_as_start_span_would_be() -> None:
    """A parent-based sampler follows the extracted parent's flag: an unsampled parent gives a
    non-recording span of the parent's trace, exported by no one; ALWAYS_OFF drops roots."""
    for sampler, flags, exported in (
        (ParentBased(ALWAYS_ON), TraceFlags.DEFAULT, 0),
        (ParentBased(ALWAYS_OFF), TraceFlags.SAMPLED, 1),
    ):
        provider, exporter = _provider(sampler=sampler)
        span = LeafSpans(provider.get_tracer("scopa.test")).start(
            "rpc", SpanKind.SERVER, {}, _remote(flags)
        )
        span.end()
        assert span.get_span_context().trace_id == 7
        assert span.get_span_context().span_id not in (0, 8)
        assert span.is_recording() is False
        assert len(exporter.get_finished_spans()) == exported
    provider, exporter = _provider(sampler=ALWAYS_OFF)
    root = LeafSpans(provider.get_tracer("scopa.test")).start(
        "rpc", SpanKind.SERVER, {}, context.Context()
    )
    root.end()
    assert root.get_span_context().is_valid and not root.get_span_context().trace_flags.sampled
    assert exporter.get_finished_spans() == ()


def test_a_started_span_keeps_an_ok_status_and_records_an_exceptions_type_only() -> None:
    """set_status as the SDK's: UNSET changes nothing and OK is final; record_exception adds the
    type, never the message (it may quote cards); nothing changes once the span has ended."""
    provider, exporter = _provider()
    span = LeafSpans(provider.get_tracer("scopa.test")).start(
        "rpc", SpanKind.SERVER, {}, context.Context()
    )
    span.set_status(StatusCode.UNSET)
    span.set_status(StatusCode.OK)
    span.set_status(StatusCode.ERROR, "late")
    span.record_exception(ValueError("7D is in seat 1's hand"))
    span.update_name("renamed")
    span.end()
    span.set_attribute("after", 1)
    span.add_event("after")
    (recorded,) = exporter.get_finished_spans()
    assert recorded.name == "renamed"
    assert recorded.status.status_code is StatusCode.OK
    assert [(e.name, dict(e.attributes or {})) for e in recorded.events] == [
        ("exception", {"exception.type": "ValueError", "exception.escaped": "False"})
    ]
    assert "after" not in (recorded.attributes or {})


def test_a_tracer_that_is_not_the_sdks_starts_the_span_itself() -> None:
    """Another tracer (tracing off: the API's) gets start_span with the span's name, kind and
    attributes."""
    tracer = _RecordingTracer()
    LeafSpans(tracer).start("rpc", SpanKind.SERVER, ATTRIBUTES, context.Context()).end()
    assert tracer.calls == [("rpc", SpanKind.SERVER, ATTRIBUTES, None), ("end", None)]


def test_the_default_sampler_is_answered_as_the_sdk_answers_it() -> None:
    """Under the SDK's default sampler (answered without asking it) leaves and started spans
    export what an equal ParentBased(ALWAYS_ON) instance (asked) gives: roots, sampled and
    unsampled parents, the parent's trace state."""
    state = TraceState([("vendor", "x1")])

    def exported(sampler: object) -> list[tuple[object, ...]]:
        provider, exporter = _provider(sampler=sampler)
        leaves = LeafSpans(provider.get_tracer("scopa.test"))
        for flags in (TraceFlags.SAMPLED, TraceFlags.DEFAULT):
            parent = SpanContext(7, 8, True, TraceFlags(flags), state)
            extracted = trace.set_span_in_context(NonRecordingSpan(parent))
            leaves.start("rpc", SpanKind.SERVER, ATTRIBUTES, extracted).end()
            token = context.attach(extracted)
            try:
                leaves.ended("leaf", SpanKind.CLIENT, ATTRIBUTES, 1, 2)
            finally:
                context.detach(token)
        leaves.start("root", SpanKind.SERVER, ATTRIBUTES, context.Context()).end()
        leaves.ended("lone", SpanKind.CLIENT, ATTRIBUTES, 1, 2)
        return [
            (*_fields(s), s.context.trace_state if s.context else None)
            for s in exporter.get_finished_spans()
        ]

    fast = exported(DEFAULT_ON)
    assert [f[0] for f in fast] == ["rpc", "leaf", "root", "lone"]
    assert fast[0][-1] == state
    assert [f[:3] + f[4:] for f in fast] == [
        f[:3] + f[4:] for f in exported(ParentBased(ALWAYS_ON))
    ]
