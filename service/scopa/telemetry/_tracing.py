"""OpenTelemetry set-up: tracer and meter providers, their exporters, and the process resource.

Redis client spans come from the store itself (one per store operation, see
``scopa.storage.RedisStore``), not from the generic redis-py instrumentation, which cost
several times more CPU per command than the command itself.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

from opentelemetry import context, metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import (
    ConsoleMetricExporter,
    MetricExporter,
    MetricReader,
    PeriodicExportingMetricReader,
)
from opentelemetry.sdk.resources import (
    SERVICE_INSTANCE_ID,
    SERVICE_NAME,
    SERVICE_VERSION,
    OTELResourceDetector,
    Resource,
)
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter

from scopa import __version__
from scopa.config import Settings

__all__ = ["K8S_ENV_ATTRIBUTES", "configure_tracing", "make_resource", "untraced"]

K8S_ENV_ATTRIBUTES: tuple[tuple[str, str], ...] = (
    ("K8S_POD_NAME", "k8s.pod.name"),
    ("K8S_POD_UID", "k8s.pod.uid"),
    ("K8S_NAMESPACE_NAME", "k8s.namespace.name"),
    ("K8S_NODE_NAME", "k8s.node.name"),
)
"""Environment variables (set from the Kubernetes downward API) and the resource attributes
they become; `OTEL_RESOURCE_ATTRIBUTES` may set the same attributes and then wins."""


def make_resource(settings: Settings, environ: Mapping[str, str] | None = None) -> Resource:
    """The resource describing this process: service name, version and instance, k8s pod.

    `OTEL_RESOURCE_ATTRIBUTES` is merged by the SDK and wins over everything here except
    `service.name`, which `OTEL_SERVICE_NAME` (through `settings`) sets.
    """
    env = os.environ if environ is None else environ
    attributes: dict[str, str] = {
        SERVICE_VERSION: __version__,
        SERVICE_INSTANCE_ID: env.get("K8S_POD_UID", "").strip() or str(uuid.uuid4()),
    }
    for variable, key in K8S_ENV_ATTRIBUTES:
        value = env.get(variable, "").strip()
        if value:
            attributes[key] = value
    from_env = OTELResourceDetector().detect().attributes
    kept = {key: value for key, value in attributes.items() if key not in from_env}
    return Resource.create({**kept, SERVICE_NAME: settings.service_name})


@contextmanager
def untraced() -> Iterator[None]:
    """Run a block without spans from our instrumentation (e.g. the readiness poll's PING).

    Sets OpenTelemetry's standard suppress-instrumentation flag, which the store honours.
    """
    token = context.attach(context.set_value(context._SUPPRESS_INSTRUMENTATION_KEY, True))
    try:
        yield
    finally:
        context.detach(token)


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
