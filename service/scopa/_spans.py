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

The processors see only ``on_end``: one that adds attributes in ``on_start`` (none of the
server's: a batch exporter) would miss these spans. It builds :class:`ReadableSpan` directly and
reads the SDK tracer's ``_instrumentation_scope`` and a proxy tracer's ``_tracer``, so an SDK
upgrade (pinned in constraints.txt) must keep tests/test_spans.py passing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace import Tracer as SdkTracer
from opentelemetry.sdk.trace.sampling import Decision
from opentelemetry.trace import SpanContext, SpanKind, TraceFlags

__all__ = ["LeafSpans"]

_SAMPLED: Final = TraceFlags(TraceFlags.SAMPLED)
_RANDOM: Final = TraceFlags.RANDOM_TRACE_ID


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
        parent: SpanContext | None = trace.get_current_span().get_span_context()
        if parent is not None and parent.is_valid:
            trace_id = parent.trace_id
            flags = _RANDOM if parent.trace_flags.random_trace_id else 0
        else:
            parent = None
            trace_id = sdk.id_generator.generate_trace_id()
            flags = _RANDOM if sdk.id_generator.is_trace_id_random() else 0
        result = sdk.sampler.should_sample(None, trace_id, name, kind, attributes)
        if result.decision is Decision.DROP:
            return
        if result.decision is Decision.RECORD_AND_SAMPLE:
            flags |= _SAMPLED
        context = SpanContext(
            trace_id,
            sdk.id_generator.generate_span_id(),
            is_remote=False,
            trace_flags=TraceFlags(flags),
            trace_state=result.trace_state,
        )
        sdk.span_processor.on_end(
            ReadableSpan(
                name,
                context,
                parent,
                sdk.resource,
                result.attributes,
                kind=kind,
                instrumentation_info=sdk.instrumentation_info,
                start_time=start_ns,
                end_time=end_ns,
                instrumentation_scope=sdk._instrumentation_scope,
            )
        )
