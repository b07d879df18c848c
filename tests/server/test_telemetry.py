"""Tests of scopa.telemetry: log rendering with trace ids, tracing set-up and game counters."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Literal

import pytest
import structlog
from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader, NumberDataPoint
from opentelemetry.sdk.trace import TracerProvider

from scopa.config import Settings
from scopa.telemetry import (
    ScopaMetrics,
    add_trace_ids,
    configure_logging,
    configure_tracing,
    get_logger,
)


@pytest.fixture(autouse=True)
def _reset_structlog() -> Iterator[None]:
    yield
    structlog.reset_defaults()


def test_trace_ids_added_inside_a_span_only() -> None:
    """The processor adds hex trace and span ids of the current span, and nothing outside one."""
    assert add_trace_ids(None, "info", {"event": "x"}) == {"event": "x"}
    tracer = TracerProvider().get_tracer("test")
    with tracer.start_as_current_span("work") as span:
        event = add_trace_ids(None, "info", {"event": "x"})
    assert event["trace_id"] == format(span.get_span_context().trace_id, "032x")
    assert event["span_id"] == format(span.get_span_context().span_id, "016x")
    assert len(event["trace_id"]) == 32 and len(event["span_id"]) == 16


def test_json_lines_with_level_and_filtering() -> None:
    """JSON format writes one object a line and drops events below the configured level."""
    stream = io.StringIO()
    configure_logging(Settings(log_format="json", log_level="warning"), stream)
    log = get_logger("scopa.test")
    log.info("hidden")
    log.warning("shown", game="g1")
    (line,) = stream.getvalue().splitlines()
    record = json.loads(line)
    assert (record["event"], record["level"], record["game"]) == ("shown", "warning", "g1")
    assert record["logger_name"] == "scopa.test" and "timestamp" in record


def test_console_format_is_not_json() -> None:
    """Console format renders for people, not as JSON."""
    stream = io.StringIO()
    configure_logging(Settings(log_format="console"), stream)
    get_logger("scopa.test").info("hello", seat=1)
    text = stream.getvalue()
    assert "hello" in text and "seat" in text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)


def test_auto_format_is_json_when_not_a_terminal() -> None:
    """auto picks JSON for a stream that is not a TTY."""
    stream = io.StringIO()
    configure_logging(Settings(log_format="auto"), stream)
    get_logger("scopa.test").info("hello")
    assert json.loads(stream.getvalue())["event"] == "hello"


def test_tracing_off_installs_nothing() -> None:
    """With SCOPA_TRACING off the global tracer provider is left alone."""
    before = trace.get_tracer_provider()
    shutdown = configure_tracing(Settings(tracing=False))
    shutdown()
    assert trace.get_tracer_provider() is before


def test_game_counters() -> None:
    """game_created and game_finished count per variant."""
    reader = InMemoryMetricReader()
    instruments = ScopaMetrics(MeterProvider(metric_readers=[reader]))
    instruments.game_created("scopa")
    instruments.game_created("scopa")
    instruments.game_finished("scopone")
    data = reader.get_metrics_data()
    assert data is not None
    sums = {
        (metric.name, dict(point.attributes or {})["scopa.variant"]): point.value
        for resource in data.resource_metrics
        for scope in resource.scope_metrics
        for metric in scope.metrics
        for point in metric.data.data_points
        if isinstance(point, NumberDataPoint)
    }
    assert sums == {("scopa.games.created", "scopa"): 2, ("scopa.games.finished", "scopone"): 1}


def _fail_with_secrets() -> None:
    hand = ["sekrit-7D", "sekrit-1S"]  # noqa: F841 - a local the traceback must not show
    token = "sekrit-token-0123456789"  # noqa: F841
    raise RuntimeError("engine fault")


@pytest.mark.parametrize("log_format", ["json", "console"])
def test_tracebacks_carry_no_local_variables(log_format: Literal["json", "console"]) -> None:
    """A logged exception shows its frames but never their local values (hands, tokens)."""
    stream = io.StringIO()
    configure_logging(Settings(log_format=log_format), stream)
    try:
        _fail_with_secrets()
    except RuntimeError as exc:
        get_logger("scopa.test").error("rpc.failed", exc_info=exc)
    text = stream.getvalue()
    assert "engine fault" in text and "_fail_with_secrets" in text
    assert "sekrit" not in text
