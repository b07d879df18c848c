"""Logging, tracing and metrics set-up for the scopa service, and its instrumentation points."""

from scopa.telemetry._calls import HttpCall, RpcCall, ServerTelemetry
from scopa.telemetry._logging import (
    add_trace_ids,
    configure_logging,
    effective_settings,
    get_logger,
)
from scopa.telemetry._metrics import (
    ACTIVE_WINDOW_S,
    ActiveGames,
    ScopaMetrics,
    record_bot_queue,
    record_game_active,
    record_game_created,
    record_game_finished,
    record_game_stuck,
    record_watch_streams,
    record_webhook,
    scopa_metrics,
)
from scopa.telemetry._semconv import DURATION_BUCKETS_S, peer_attributes
from scopa.telemetry._tracing import K8S_ENV_ATTRIBUTES, configure_tracing, make_resource, untraced

__all__ = [
    "ACTIVE_WINDOW_S",
    "DURATION_BUCKETS_S",
    "K8S_ENV_ATTRIBUTES",
    "ActiveGames",
    "HttpCall",
    "RpcCall",
    "ScopaMetrics",
    "ServerTelemetry",
    "add_trace_ids",
    "configure_logging",
    "configure_tracing",
    "effective_settings",
    "get_logger",
    "make_resource",
    "peer_attributes",
    "record_bot_queue",
    "record_game_active",
    "record_game_created",
    "record_game_finished",
    "record_game_stuck",
    "record_watch_streams",
    "record_webhook",
    "scopa_metrics",
    "untraced",
]
