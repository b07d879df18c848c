"""Fixtures of the server suite: an in-process server with a fake servicer, and its telemetry."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator, Iterator

import grpc
import pytest
import structlog
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from scopa.config import Settings
from scopa.server import ScopaServer, default_interceptors
from scopa.telemetry import configure_logging
from server.fakes import FAKE_SERVICE, Harness, register_fake


@pytest.fixture
def test_settings() -> Settings:
    """Settings for an in-process server on a free loopback port."""
    return Settings(host="127.0.0.1", port=0, grace_s=0.5, drain_delay_s=0.0, log_format="json")


@pytest.fixture
def log_stream(test_settings: Settings) -> Iterator[io.StringIO]:
    """structlog configured to write JSON lines into a buffer."""
    stream = io.StringIO()
    configure_logging(test_settings, stream)
    yield stream
    structlog.reset_defaults()


@pytest.fixture
async def harness(test_settings: Settings, log_stream: io.StringIO) -> AsyncIterator[Harness]:
    """An in-process ScopaServer serving the fake service, with in-memory telemetry."""
    spans = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])

    async def ready() -> bool:
        return True

    server = ScopaServer(
        test_settings,
        [register_fake],
        ready,
        service_names=[FAKE_SERVICE],
        interceptors=default_interceptors(tracer_provider, meter_provider),
    )
    port = await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield Harness(server, channel, spans, reader, log_stream)
    finally:
        await channel.close()
        await server.stop()
