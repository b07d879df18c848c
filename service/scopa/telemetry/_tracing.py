"""OpenTelemetry set-up: tracer and meter providers and their exporters.

Redis client spans come from the store itself (one per store operation, see
``scopa.storage.RedisStore``), not from the generic redis-py instrumentation, which cost
several times more CPU per command than the command itself.
"""

from __future__ import annotations

from collections.abc import Callable

from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import (
    ConsoleMetricExporter,
    MetricExporter,
    MetricReader,
    PeriodicExportingMetricReader,
)
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter

from scopa.config import Settings

__all__ = ["configure_tracing", "make_resource"]


def make_resource(settings: Settings) -> Resource:
    """The resource describing this process (OTEL_RESOURCE_ATTRIBUTES is merged by the SDK)."""
    return Resource.create({SERVICE_NAME: settings.service_name})


def _span_exporter(settings: Settings) -> SpanExporter | None:
    if settings.traces_exporter == "otlp":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (  # noqa: PLC0415
            OTLPSpanExporter,
        )

        return OTLPSpanExporter()
    if settings.traces_exporter == "console":
        return ConsoleSpanExporter()
    return None


def _metric_exporter(settings: Settings) -> MetricExporter | None:
    if settings.metrics_exporter == "otlp":
        from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import (  # noqa: PLC0415
            OTLPMetricExporter,
        )

        return OTLPMetricExporter()
    if settings.metrics_exporter == "console":
        return ConsoleMetricExporter()
    return None


def configure_tracing(settings: Settings) -> Callable[[], None]:
    """Install global tracer and meter providers as settings ask; return their shutdown."""
    if not settings.tracing:
        return lambda: None
    resource = make_resource(settings)
    tracer_provider = TracerProvider(resource=resource)
    span_exporter = _span_exporter(settings)
    if span_exporter is not None:
        tracer_provider.add_span_processor(BatchSpanProcessor(span_exporter))
    readers: list[MetricReader] = []
    metric_exporter = _metric_exporter(settings)
    if metric_exporter is not None:
        readers.append(PeriodicExportingMetricReader(metric_exporter))
    meter_provider = MeterProvider(resource=resource, metric_readers=readers)
    trace.set_tracer_provider(tracer_provider)
    metrics.set_meter_provider(meter_provider)

    def shutdown() -> None:
        tracer_provider.shutdown()
        meter_provider.shutdown()

    return shutdown
