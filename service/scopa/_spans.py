"""Leaf spans recorded in one step once they end: the store's CLIENT spans, the engine span.

The OpenTelemetry SDK's ``start_span`` and ``end`` build a mutable span (its locks, its
attribute and event containers, each attribute validated again), call every processor's
``on_start`` and ``_on_ending``, then copy the span into a :class:`ReadableSpan` for ``on_end``:
~150k instructions per span with five attributes, four spans per PlayCard. A span that nothing
is nested in, whose attributes are known when it ends, needs none of that: :meth:`LeafSpans.ended`
asks the tracer's sampler as ``start_span`` does, takes ids from its id generator, and hands the
finished :class:`ReadableSpan` (same name, kind, parent, attributes, resource, scope, start and
end time) to the tracer's processors (~45k instructions). Spans that end in an error, and
tracers that are not the SDK's (tracing off), go through ``start_span`` as before.

A call's SERVER span is not a leaf (it is current while the call runs: the log line carries its
ids, the leaves hang on it), but it is set only through a few methods: :meth:`LeafSpans.start`
gives a :class:`RecordedSpan`, plain fields until it ends, then one :class:`ReadableSpan`.

The processors see only ``on_end``: one that adds attributes in ``on_start`` (none of the
server's: a batch exporter) would miss these spans. It builds :class:`ReadableSpan` directly and
reads the SDK tracer's ``_instrumentation_scope`` and a proxy tracer's ``_tracer``, so an SDK
upgrade (pinned in constraints.txt) must keep tests/test_spans.py passing.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from contextvars import Token
from types import TracebackType
from typing import Any, Final

from opentelemetry import context, trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import Event as SdkEvent
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace import Tracer as SdkTracer
from opentelemetry.sdk.trace.sampling import DEFAULT_ON, Decision
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

__all__ = ["CurrentSpan", "LeafSpans", "RecordedSpan"]

_SAMPLED: Final = TraceFlags(TraceFlags.SAMPLED)
_RANDOM: Final = TraceFlags.RANDOM_TRACE_ID
_UNSET: Final = Status(StatusCode.UNSET)


class LeafSpans:
    """Record finished leaf spans of one tracer (an SDK tracer, or a proxy of one)."""

    __slots__ = ("_sdk", "_tracer")

    def __init__(self, tracer: trace.Tracer) -> None:
        self._tracer = tracer
        self._sdk: SdkTracer | None = tracer if isinstance(tracer, SdkTracer) else None

    @property
    def tracer(self) -> trace.Tracer:
        """The tracer, for spans that are not leaves or that end in an error."""
        return self._tracer

    def _resolved(self) -> SdkTracer | None:
        """The SDK tracer behind the tracer; None when there is none (yet)."""
        if self._sdk is None:
            # A ProxyTracer (trace.get_tracer before a provider was set) resolves once one is.
            real = getattr(self._tracer, "_tracer", None)
            if isinstance(real, SdkTracer):
                self._sdk = real
        return self._sdk

    def ended(
        self, name: str, kind: SpanKind, attributes: Mapping[str, Any], start_ns: int, end_ns: int
    ) -> None:
        """Record a span that ran from ``start_ns`` to ``end_ns`` (``time.time_ns()``) without an
        error, as a child of the current span (a root span when there is none).

        ``attributes`` are exported as given: str, int, float or bool values, never mutated
        afterwards (the store shares one mapping per operation).
        """
        sdk = self._resolved()
        if sdk is None:
            span = self._tracer.start_span(
                name, kind=kind, attributes=attributes, start_time=start_ns
            )
            span.end(end_time=end_ns)
            return
        decision, span_context, parent, kept = _sample(sdk, None, name, kind, attributes)
        if decision is Decision.DROP:
            return
        _record(sdk, name, kind, span_context, parent, kept, start_ns, end_ns)

    def start(
        self, name: str, kind: SpanKind, attributes: Mapping[str, Any], parent: Context
    ) -> trace.Span:
        """Start a span under ``parent`` (e.g. a caller's extracted context) that is recorded in
        one step when it ends: the SERVER span of a call, made current by the caller while the
        call runs, with its outcome set on it at the end (:class:`RecordedSpan`).

        A dropped span is a non-recording span with the sampler's context, as ``start_span``
        gives; another tracer (tracing off) starts it itself.
        """
        sdk = self._resolved()
        if sdk is None:
            return self._tracer.start_span(name, context=parent, kind=kind, attributes=attributes)
        decision, span_context, valid_parent, kept = _sample(sdk, parent, name, kind, attributes)
        if decision is Decision.DROP:
            return trace.NonRecordingSpan(span_context)
        return RecordedSpan(sdk, name, kind, span_context, valid_parent, kept)

    def current(self, name: str, kind: SpanKind, attributes: Mapping[str, Any]) -> CurrentSpan:
        """A span under the current one, made current for a ``with`` block and recorded in one
        step when the block ends (see :class:`CurrentSpan`)."""
        return CurrentSpan(self, name, kind, attributes)


class CurrentSpan:
    """What ``start_as_current_span`` does (the block's span is current; an exception that
    leaves the block is recorded, by its type only, with the error status), without its nested
    generator context managers, and with a span recorded in one step when it ends
    (:meth:`LeafSpans.start`): a session's action span, one per move."""

    __slots__ = ("_attributes", "_kind", "_name", "_span", "_spans", "_token")

    def __init__(
        self, spans: LeafSpans, name: str, kind: SpanKind, attributes: Mapping[str, Any]
    ) -> None:
        self._spans = spans
        self._name = name
        self._kind = kind
        self._attributes = attributes
        self._span: trace.Span | None = None
        self._token: Token[Context] | None = None

    def __enter__(self) -> trace.Span:
        span = self._spans.start(self._name, self._kind, self._attributes, context.get_current())
        self._span = span
        self._token = context.attach(trace.set_span_in_context(span))
        return span

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        span, token = self._span, self._token
        assert span is not None and token is not None
        context.detach(token)
        if exc is not None and span.is_recording():
            span.record_exception(exc, escaped=True)
            span.set_status(Status(StatusCode.ERROR, f"{type(exc).__name__}"))
        span.end()


def _sample(
    sdk: SdkTracer,
    context: Context | None,
    name: str,
    kind: SpanKind,
    attributes: Mapping[str, Any],
) -> tuple[Decision, SpanContext, SpanContext | None, Mapping[str, Any] | None]:
    """Ask ``sdk``'s sampler about a span under the span of ``context`` (None: the current
    context) as ``start_span`` does: its decision, the new span's context (flagged sampled or
    not), its parent when valid, and its attributes."""
    parent: SpanContext | None = trace.get_current_span(context).get_span_context()
    if parent is not None and parent.is_valid:
        trace_id = parent.trace_id
        flags = _RANDOM if parent.trace_flags.random_trace_id else 0
    else:
        parent = None
        trace_id = sdk.id_generator.generate_trace_id()
        flags = _RANDOM if sdk.id_generator.is_trace_id_random() else 0
    decision: Decision
    kept: Mapping[str, Any] | None
    if sdk.sampler is DEFAULT_ON:
        # The SDK's default sampler, answered as it answers (tests/test_spans.py compares the
        # two): a root or a sampled parent's child is sampled, with the parent's trace state
        # and the attributes as given; an unsampled parent's child is dropped.
        if parent is None or parent.trace_flags.sampled:
            decision, kept = Decision.RECORD_AND_SAMPLE, attributes
        else:
            decision, kept = Decision.DROP, None
        trace_state = parent.trace_state if parent is not None else None
    else:
        result = sdk.sampler.should_sample(context, trace_id, name, kind, attributes)
        decision, kept, trace_state = result.decision, result.attributes, result.trace_state
    if decision is Decision.RECORD_AND_SAMPLE:
        flags |= _SAMPLED
    span_context = SpanContext(
        trace_id,
        sdk.id_generator.generate_span_id(),
        is_remote=False,
        trace_flags=TraceFlags(flags),
        trace_state=trace_state,
    )
    return decision, span_context, parent, kept


def _record(
    sdk: SdkTracer,
    name: str,
    kind: SpanKind,
    span_context: SpanContext,
    parent: SpanContext | None,
    attributes: Mapping[str, Any] | None,
    start_ns: int,
    end_ns: int,
    events: list[SdkEvent] | None = None,
    status: Status = _UNSET,
) -> None:
    """Hand a finished span to ``sdk``'s processors as the one ReadableSpan they see."""
    sdk.span_processor.on_end(
        ReadableSpan(
            name,
            span_context,
            parent,
            sdk.resource,
            attributes,
            events or (),
            kind=kind,
            instrumentation_info=sdk.instrumentation_info,
            status=status,
            start_time=start_ns,
            end_time=end_ns,
            instrumentation_scope=sdk._instrumentation_scope,
        )
    )


class RecordedSpan(trace.Span):
    """A sampled span kept as plain fields and handed to the tracer's processors, as one
    :class:`ReadableSpan`, when it ends (:meth:`LeafSpans.start`).

    It takes what the server sets on its SERVER span: attributes, events (an exception's type),
    a status, a new name. :meth:`record_exception` records the exception's type only: a message
    or a traceback may quote cards, and spans leave the server. Processors see only ``on_end``,
    and no span limits apply (the server's spans have a few fixed attributes).
    """

    __slots__ = ("_attributes", "_context", "_end", "_events", "_kind", "_name", "_parent",
                 "_sdk", "_start", "_status")  # fmt: skip

    def __init__(
        self,
        sdk: SdkTracer,
        name: str,
        kind: SpanKind,
        span_context: SpanContext,
        parent: SpanContext | None,
        attributes: Mapping[str, Any] | None,
    ) -> None:
        self._sdk = sdk
        self._name = name
        self._kind = kind
        self._context = span_context
        self._parent = parent
        self._attributes: dict[str, Any] = dict(attributes or {})
        self._events: list[SdkEvent] = []
        self._status = _UNSET
        self._start = time.time_ns()
        self._end: int | None = None

    def get_span_context(self) -> SpanContext:
        """The span's own context (its trace and span ids)."""
        return self._context

    def is_recording(self) -> bool:
        """True until the span has ended."""
        return self._end is None

    def set_attribute(self, key: str, value: Any) -> None:
        """Set one attribute (ignored once the span has ended)."""
        if self._end is None:
            self._attributes[key] = value

    def set_attributes(self, attributes: Mapping[str, Any]) -> None:
        """Set several attributes (ignored once the span has ended)."""
        if self._end is None:
            self._attributes.update(attributes)

    def add_event(
        self,
        name: str,
        attributes: Mapping[str, Any] | None = None,
        timestamp: int | None = None,
    ) -> None:
        """Add an event, now unless ``timestamp`` (ns) says when."""
        if self._end is None:
            self._events.append(SdkEvent(name, attributes, timestamp))

    def update_name(self, name: str) -> None:
        """Rename the span."""
        if self._end is None:
            self._name = name

    def set_status(self, status: Status | StatusCode, description: str | None = None) -> None:
        """Set the status as the SDK does: UNSET changes nothing, OK is final."""
        if self._end is not None or self._status.status_code is StatusCode.OK:
            return
        if isinstance(status, StatusCode):
            status = Status(status, description)
        if status.status_code is not StatusCode.UNSET:
            self._status = status

    def record_exception(
        self,
        exception: BaseException,
        attributes: Mapping[str, Any] | None = None,
        timestamp: int | None = None,
        escaped: bool = False,
    ) -> None:
        """An ``exception`` event with the exception's type (and ``attributes``), no message."""
        fields: dict[str, Any] = {
            "exception.type": type(exception).__qualname__,
            "exception.escaped": str(escaped),
        }
        fields.update(attributes or {})
        self.add_event("exception", fields, timestamp)

    def end(self, end_time: int | None = None) -> None:
        """End the span and hand it, finished, to the tracer's processors (once)."""
        if self._end is not None:
            return
        self._end = end_time if end_time is not None else time.time_ns()
        _record(
            self._sdk,
            self._name,
            self._kind,
            self._context,
            self._parent,
            self._attributes,
            self._start,
            self._end,
            self._events,
            self._status,
        )
