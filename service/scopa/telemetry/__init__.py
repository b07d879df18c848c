"""Logging, tracing and metrics set-up for the scopa service."""

from scopa.telemetry._logging import add_trace_ids, configure_logging, get_logger
from scopa.telemetry._metrics import (
    ScopaMetrics,
    record_game_created,
    record_game_finished,
    scopa_metrics,
)
from scopa.telemetry._tracing import configure_tracing, make_resource

__all__ = [
    "ScopaMetrics",
    "add_trace_ids",
    "configure_logging",
    "configure_tracing",
    "get_logger",
    "make_resource",
    "record_game_created",
    "record_game_finished",
    "scopa_metrics",
]
