"""Tests of scopa.telemetry: logs, resource, semantic-convention attributes and instruments."""

from __future__ import annotations

import dataclasses
import datetime
import io
import json
import logging
import re
from collections.abc import Iterator
from typing import Any, Literal

import pytest
import structlog
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader, NumberDataPoint
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

import scopa
from scopa._config_webhooks import WebhookSettings
from scopa.config import Settings
from scopa.telemetry import (
    DURATION_BUCKETS_S,
    ActiveGames,
    ScopaMetrics,
    ServerTelemetry,
    add_trace_ids,
    configure_logging,
    configure_tracing,
    effective_settings,
    get_logger,
    make_resource,
    untraced,
)

TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


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


def test_json_lines_carry_an_iso_utc_timestamp_and_repr_what_json_cannot_hold() -> None:
    """The timestamp is UTC ISO 8601 with microseconds and Z, within the second of the call, and
    a value JSON cannot hold is written as its repr."""
    stream = io.StringIO()
    configure_logging(Settings(log_format="json"), stream)
    before = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    get_logger("scopa.test").info("timed", value={1, 2})
    get_logger("scopa.test").info("again")
    after = datetime.datetime.now(datetime.UTC)
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    for record in (first, second):
        stamp = record["timestamp"]
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", stamp), stamp
        when = datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        assert before <= when <= after
    assert first["timestamp"] <= second["timestamp"]
    assert first["value"] == repr({1, 2})


def test_json_lines_hold_what_orjson_refuses_and_keep_names_as_utf8() -> None:
    """A line with an integer beyond 64 bits or a non-string key is still written (by the
    standard library's encoder for the integer), and a name keeps its letters."""
    stream = io.StringIO()
    configure_logging(Settings(log_format="json"), stream)
    get_logger("scopa.test").info("big", value=2**70)
    get_logger("scopa.test").info("keyed", by_seat={0: "Nicolò"})
    big, keyed = (json.loads(line) for line in stream.getvalue().splitlines())
    assert big["value"] == 2**70
    assert keyed["by_seat"] == {"0": "Nicolò"}
    assert "Nicolò" in stream.getvalue().splitlines()[1]


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
        and metric.name in ("scopa.games.created", "scopa.games.finished")
    }
    assert sums == {("scopa.games.created", "scopa"): 2, ("scopa.games.finished", "scopone"): 1}


def test_webhook_outcomes_are_counted() -> None:
    """Attempts by outcome on scopa.webhooks.deliveries; give-ups on .dead_lettered."""
    reader = InMemoryMetricReader()
    instruments = ScopaMetrics(MeterProvider(metric_readers=[reader]))
    for outcome in ("delivered", "failed", "failed", "dead_lettered"):
        instruments.webhook(outcome)
    by_outcome = {
        dict(p.attributes or {})["outcome"]: p.value
        for p in _points(reader, "scopa.webhooks.deliveries")
    }
    assert by_outcome == {"delivered": 1, "failed": 2}
    assert [p.value for p in _points(reader, "scopa.webhooks.dead_lettered")] == [1]


def _points(reader: InMemoryMetricReader, name: str) -> list[Any]:
    data = reader.get_metrics_data()
    assert data is not None
    return [
        point
        for resource in data.resource_metrics
        for scope in resource.scope_metrics
        for metric in scope.metrics
        if metric.name == name
        for point in metric.data.data_points
    ]


def _metric(reader: InMemoryMetricReader, name: str) -> Any:
    data = reader.get_metrics_data()
    assert data is not None
    (metric,) = [
        metric
        for resource in data.resource_metrics
        for scope in resource.scope_metrics
        for metric in scope.metrics
        if metric.name == name
    ]
    return metric


def _server_telemetry() -> tuple[ServerTelemetry, InMemorySpanExporter, InMemoryMetricReader]:
    spans = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    reader = InMemoryMetricReader()
    return ServerTelemetry(tracer_provider, MeterProvider(metric_readers=[reader])), spans, reader


def test_rpc_span_and_metric_share_current_attribute_names_and_types() -> None:
    """An RPC's span and duration point carry rpc.system.name, rpc.method and a string status."""
    telemetry, spans, reader = _server_telemetry()
    with telemetry.rpc("grpc", "scopa.v1.GameService/PlayCard", {}) as call:
        call.finish("FAILED_PRECONDITION", error=False)
    (span,) = spans.get_finished_spans()
    assert span.name == "scopa.v1.GameService/PlayCard"
    assert dict(span.attributes or {}) == {
        "rpc.system.name": "grpc",
        "rpc.method": "scopa.v1.GameService/PlayCard",
        "rpc.status_code": "FAILED_PRECONDITION",
    }
    assert span.status.status_code is StatusCode.UNSET
    (point,) = _points(reader, "rpc.server.call.duration")
    assert dict(point.attributes) == dict(span.attributes or {})


def test_rpc_server_error_sets_error_type_and_span_status() -> None:
    """A server-side failure status is also the error.type, on the span and the metric."""
    telemetry, spans, reader = _server_telemetry()
    with telemetry.rpc("connectrpc", "scopa.v1.GameService/GetState", {}) as call:
        call.finish("INTERNAL", error=True)
    (span,) = spans.get_finished_spans()
    assert dict(span.attributes or {})["error.type"] == "INTERNAL"
    assert span.status.status_code is StatusCode.ERROR
    (point,) = _points(reader, "rpc.server.call.duration")
    assert point.attributes["error.type"] == "INTERNAL"
    assert point.attributes["rpc.system.name"] == "connectrpc"


def test_rpc_left_without_an_outcome_counts_as_unknown_error() -> None:
    """A call whose block raised before finish() is recorded as UNKNOWN, an error."""
    telemetry, spans, _reader = _server_telemetry()
    with pytest.raises(RuntimeError), telemetry.rpc("grpc", "p.S/M", {}):
        raise RuntimeError("boom")
    (span,) = spans.get_finished_spans()
    assert dict(span.attributes or {})["rpc.status_code"] == "UNKNOWN"
    assert "boom" not in repr(span.events) + repr(dict(span.attributes or {}))


def test_http_span_and_metric_use_http_conventions() -> None:
    """A REST request's span is named "METHOD route" and its status code is an int on both."""
    telemetry, spans, reader = _server_telemetry()
    with telemetry.http("GET", "/v1/games/{game}", "http", {}) as call:
        call.finish(404)
    with telemetry.http("POST", "/v1/games", "http", {}) as call:
        call.finish(503)
    found, failed = spans.get_finished_spans()
    assert found.name == "GET /v1/games/{game}"
    assert dict(found.attributes or {}) == {
        "http.request.method": "GET",
        "http.route": "/v1/games/{game}",
        "url.scheme": "http",
        "http.response.status_code": 404,
    }
    assert found.status.status_code is StatusCode.UNSET
    assert dict(failed.attributes or {})["error.type"] == "503"
    assert failed.status.status_code is StatusCode.ERROR
    codes = {
        p.attributes["http.response.status_code"]
        for p in _points(reader, "http.server.request.duration")
    }
    assert codes == {404, 503}


def test_call_continues_the_callers_trace() -> None:
    """A W3C traceparent in the carrier becomes the server span's parent."""
    telemetry, spans, _reader = _server_telemetry()
    with telemetry.rpc("grpc", "p.S/M", {"traceparent": TRACEPARENT}) as call:
        call.finish("OK", error=False)
    (span,) = spans.get_finished_spans()
    assert format(span.context.trace_id, "032x") == TRACEPARENT.split("-")[1]


def test_durations_are_seconds_in_buckets_from_a_tenth_of_a_ms_to_ten_s() -> None:
    """Both duration histograms are in seconds with explicit bounds 0.0001 .. 10."""
    telemetry, _spans, reader = _server_telemetry()
    telemetry.metrics.rpc_duration.record(0.00005, {"rpc.method": "p.S/M"})
    telemetry.metrics.rpc_duration.record(0.003, {"rpc.method": "p.S/M"})
    telemetry.metrics.http_duration.record(12.0, {"http.route": "/"})
    for name in ("rpc.server.call.duration", "http.server.request.duration"):
        metric = _metric(reader, name)
        assert metric.unit == "s"
        (point,) = metric.data.data_points
        assert tuple(point.explicit_bounds) == DURATION_BUCKETS_S
    assert DURATION_BUCKETS_S[0] == 0.0001 and DURATION_BUCKETS_S[-1] == 10.0
    (rpc,) = _points(reader, "rpc.server.call.duration")
    assert rpc.bucket_counts[0] == 1  # 50 us: below the first bound, not in "(0, 5] ms"
    assert rpc.bucket_counts[DURATION_BUCKETS_S.index(0.005)] == 1  # 3 ms: in (2.5, 5] ms


def test_watch_streams_count_up_and_down() -> None:
    """scopa.watch.streams is the number of streams opened and not yet closed."""
    reader = InMemoryMetricReader()
    instruments = ScopaMetrics(MeterProvider(metric_readers=[reader]))
    instruments.watch_opened()
    instruments.watch_opened()
    instruments.watch_closed()
    (point,) = _points(reader, "scopa.watch.streams")
    assert point.value == 1


def test_active_games_are_recent_and_unfinished() -> None:
    """A game is active for the window after its last change, and stops being so when over."""
    now = [1000.0]
    active = ActiveGames(window_s=300, clock=lambda: now[0])
    reader = InMemoryMetricReader()
    ScopaMetrics(MeterProvider(metric_readers=[reader]), active)
    active.touch("g1", finished=False)
    active.touch("g2", finished=False)
    active.touch("g3", finished=False)
    active.touch("g3", finished=True)
    (point,) = _points(reader, "scopa.games.active")
    assert point.value == 2
    now[0] += 200
    active.touch("g2", finished=False)
    now[0] += 150  # g1 last changed 350 s ago, g2 150 s ago
    (point,) = _points(reader, "scopa.games.active")
    assert point.value == 1


def test_resource_has_version_instance_and_k8s_attributes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The resource names the service version, an instance id and the pod from K8S_* variables."""
    monkeypatch.delenv("OTEL_RESOURCE_ATTRIBUTES", raising=False)
    env = {"K8S_POD_NAME": "scopa-7d9f-abcde", "K8S_NAMESPACE_NAME": "games", "K8S_NODE_NAME": "n1"}
    attributes = make_resource(Settings(service_name="scopa-test"), env).attributes
    assert attributes["service.name"] == "scopa-test"
    assert attributes["service.version"] == scopa.__version__
    assert attributes["k8s.pod.name"] == "scopa-7d9f-abcde"
    assert attributes["k8s.namespace.name"] == "games"
    assert attributes["k8s.node.name"] == "n1"
    assert len(str(attributes["service.instance.id"])) == 36


def test_otel_resource_attributes_win_over_k8s_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """OTEL_RESOURCE_ATTRIBUTES overrides what the K8S_* variables say."""
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "k8s.pod.name=from-otel,service.version=9.9")
    attributes = make_resource(Settings(), {"K8S_POD_NAME": "from-k8s"}).attributes
    assert attributes["k8s.pod.name"] == "from-otel"
    assert attributes["service.version"] == "9.9"


def test_sdk_warnings_are_json_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """A warning the OpenTelemetry SDK logs through `logging` comes out as one JSON object."""
    stream = io.StringIO()
    configure_logging(Settings(log_format="json"), stream)
    tracer = TracerProvider().get_tracer("test")
    with tracer.start_as_current_span("work"):
        logging.getLogger("opentelemetry.exporter.otlp.proto.grpc.exporter").warning(
            "Transient error %s encountered while exporting traces to %s", "UNAVAILABLE", "x:4317"
        )
    logging.getLogger("grpc").info("chatty")  # below WARNING: dropped
    (line,) = stream.getvalue().splitlines()
    record = json.loads(line)
    assert record["level"] == "warning"
    assert record["logger_name"] == "opentelemetry.exporter.otlp.proto.grpc.exporter"
    assert record["event"].startswith("Transient error UNAVAILABLE")
    assert len(record["trace_id"]) == 32 and "timestamp" in record


def test_effective_settings_hide_secrets() -> None:
    """The start-up settings show every field but mask the token secret and URL passwords."""
    settings = Settings(
        redis_url="redis://:hunter2-pass@redis:6379/0",
        token_secret=b"sekrit-0123456789abcdef",
        token_secret_generated=False,
        webhooks=WebhookSettings("https://a.example/h", "whsec_c2VrcmV0LXNla3JldC0xMjM0"),
    )
    shown = effective_settings(settings)
    text = json.dumps(shown)
    assert "hunter2" not in text and "sekrit" not in text and "c2Vr" not in text
    assert shown["webhooks"]["secret"] == "***"
    assert shown["webhooks"]["url"] == "https://a.example/h"
    assert shown["redis_url"] == "redis://:***@redis:6379/0"
    assert shown["token_secret"] == "***"
    assert shown["token_secret_generated"] is False
    assert shown["port"] == settings.port
    assert set(shown) == {f.name for f in dataclasses.fields(Settings)}


def test_untraced_blocks_are_flagged_for_instrumentation() -> None:
    """untraced() sets OpenTelemetry's suppress-instrumentation flag, only inside the block."""
    key = otel_context._SUPPRESS_INSTRUMENTATION_KEY
    assert not otel_context.get_value(key)
    with untraced():
        assert otel_context.get_value(key) is True
    assert not otel_context.get_value(key)


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


def test_active_games_stay_bounded_without_a_reader() -> None:
    """Changes alone drop games out of the window: no reading is needed to bound the memory."""
    now = [0.0]
    active = ActiveGames(window_s=10, clock=lambda: now[0])
    for i in range(1000):
        now[0] = float(i)
        active.touch(f"g{i}", finished=False)
    assert len(active._seen) == 11  # the last 10 s: g989 .. g999
    assert active.count() == 11
