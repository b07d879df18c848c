"""structlog set-up: JSON lines (or a pretty console) carrying the current OTel trace ids."""

from __future__ import annotations

import logging
import sys
from collections.abc import MutableMapping
from typing import Any, TextIO

import structlog
from opentelemetry import trace

from scopa.config import Settings

__all__ = ["add_trace_ids", "configure_logging", "get_logger"]


def add_trace_ids(
    _logger: Any, _method: str, event: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """Add `trace_id` and `span_id` (lower-case hex) of the current valid span to a log event."""
    ctx = trace.get_current_span().get_span_context()
    if ctx.is_valid:
        event.setdefault("trace_id", format(ctx.trace_id, "032x"))
        event.setdefault("span_id", format(ctx.span_id, "016x"))
    return event


def _use_console(settings: Settings, stream: TextIO) -> bool:
    if settings.log_format == "auto":
        return stream.isatty()
    return settings.log_format == "console"


def configure_logging(settings: Settings, stream: TextIO | None = None) -> None:
    """Configure structlog (and the stdlib root logger) to write to stderr as settings ask."""
    out = stream if stream is not None else sys.stderr
    level = logging.getLevelNamesMapping()[settings.log_level.upper()]
    renderer: structlog.typing.Processor
    tail: list[structlog.typing.Processor]
    if _use_console(settings, out):
        # Plain tracebacks: rich's would print every frame's locals (hands, tokens).
        renderer = structlog.dev.ConsoleRenderer(
            colors=out.isatty(), exception_formatter=structlog.dev.plain_traceback
        )
        tail = []
    else:
        renderer = structlog.processors.JSONRenderer()
        # Frames without their local variables: those hold hands, decks and tokens.
        tail = [
            structlog.processors.ExceptionRenderer(
                structlog.tracebacks.ExceptionDictTransformer(show_locals=False)
            )
        ]
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            add_trace_ids,
            structlog.processors.StackInfoRenderer(),
            *tail,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.WriteLoggerFactory(file=out),
        cache_logger_on_first_use=False,
    )
    logging.basicConfig(
        stream=out,
        level=max(level, logging.WARNING),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        force=True,
    )


def get_logger(name: str) -> structlog.typing.FilteringBoundLogger:
    """Return a structlog logger bound to `logger_name=name`."""
    logger: structlog.typing.FilteringBoundLogger = structlog.get_logger(logger_name=name)
    return logger
