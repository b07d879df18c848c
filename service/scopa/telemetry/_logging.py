"""structlog set-up: JSON lines (or a pretty console) carrying the current OTel trace ids.

Records of the standard library's `logging` (the OpenTelemetry SDK's exporter warnings, grpc,
asyncio) go through the same processors and renderer, so every line of the process is one JSON
object in JSON mode.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import sys
import time
from collections.abc import MutableMapping
from typing import Any, TextIO

import orjson
import structlog
from opentelemetry import trace

from scopa.config import Settings

__all__ = ["add_trace_ids", "configure_logging", "effective_settings", "get_logger"]

_MASK = "***"
_SECRET_NAME = re.compile(r"secret|password|token|credential", re.I)
_URL_PASSWORD = re.compile(r"(?P<head>[a-z][a-z0-9+.-]*://[^:/@\s]*:)(?P<password>[^@\s]+)(?=@)")


def add_trace_ids(
    _logger: Any, _method: str, event: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """Add `trace_id` and `span_id` (lower-case hex) of the current valid span to a log event."""
    ctx = trace.get_current_span().get_span_context()
    if ctx.is_valid:
        event.setdefault("trace_id", format(ctx.trace_id, "032x"))
        event.setdefault("span_id", format(ctx.span_id, "016x"))
    return event


def _add_record_logger_name(
    _logger: Any, _method: str, event: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """Name a standard-library record's logger under the key structlog loggers use."""
    record = event.get("_record")
    if isinstance(record, logging.LogRecord):
        event.setdefault("logger_name", record.name)
    return event


class IsoTimeStamper:
    """``structlog.processors.TimeStamper(fmt="iso", utc=True)``'s ``timestamp`` key (UTC, ISO
    8601, microseconds, ``Z``), with each second's date and time formatted once, not per line."""

    __slots__ = ("_second", "_text")

    def __init__(self) -> None:
        self._second = -1
        self._text = ""

    def __call__(
        self, _logger: Any, _method: str, event: MutableMapping[str, Any]
    ) -> MutableMapping[str, Any]:
        """Add the current time to ``event``."""
        now = time.time()
        second = int(now)
        if second != self._second:
            self._text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
            self._second = second
        event["timestamp"] = f"{self._text}.{int((now - second) * 1_000_000):06d}Z"
        return event


def _json_default(value: Any) -> Any:
    """What JSON cannot hold as it is: its ``__structlog__()`` if it has one, else its repr (as
    structlog's JSONRenderer does)."""
    try:
        return value.__structlog__()
    except AttributeError:
        return repr(value)


_ENCODER = json.JSONEncoder(default=_json_default)


def _dumps(event: Any, **_kw: Any) -> str:
    """The line's JSON by orjson (non-ASCII text as UTF-8, not escaped); what orjson refuses
    (an integer beyond 64 bits) by the standard library's encoder."""
    try:
        return orjson.dumps(event, default=_json_default, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return _ENCODER.encode(event)


def _use_console(settings: Settings, stream: TextIO) -> bool:
    if settings.log_format == "auto":
        return stream.isatty()
    return settings.log_format == "console"


def _renderer(console: bool, out: TextIO) -> list[structlog.typing.Processor]:
    """Exception rendering and the final renderer, for console or JSON output."""
    if console:
        # Plain tracebacks: rich's would print every frame's locals (hands, tokens).
        return [
            structlog.dev.ConsoleRenderer(
                colors=out.isatty(), exception_formatter=structlog.dev.plain_traceback
            )
        ]
    # Frames without their local variables: those hold hands, decks and tokens.
    return [
        structlog.processors.ExceptionRenderer(
            structlog.tracebacks.ExceptionDictTransformer(show_locals=False)
        ),
        structlog.processors.JSONRenderer(serializer=_dumps),
    ]


def configure_logging(settings: Settings, stream: TextIO | None = None) -> None:
    """Configure structlog and the stdlib root logger to write to stderr as settings ask."""
    out = stream if stream is not None else sys.stderr
    level = logging.getLevelNamesMapping()[settings.log_level.upper()]
    shared: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        IsoTimeStamper(),
        add_trace_ids,
        structlog.processors.StackInfoRenderer(),
    ]
    rendering = _renderer(_use_console(settings, out), out)
    structlog.configure(
        processors=[*shared, *rendering],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.WriteLoggerFactory(file=out),
        cache_logger_on_first_use=False,
    )
    handler = logging.StreamHandler(out)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[_add_record_logger_name, *shared],
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *rendering],
        )
    )
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
        old.close()
    root.addHandler(handler)
    # Libraries are chatty at INFO (grpc, asyncio); their warnings and errors are what count.
    root.setLevel(max(level, logging.WARNING))


def get_logger(name: str) -> structlog.typing.FilteringBoundLogger:
    """Return a structlog logger bound to `logger_name=name`."""
    logger: structlog.typing.FilteringBoundLogger = structlog.get_logger(logger_name=name)
    return logger


def _masked(value: Any) -> Any:
    if isinstance(value, str):
        return _URL_PASSWORD.sub(rf"\g<head>{_MASK}", value)
    return value


def effective_settings(settings: Any) -> dict[str, Any]:
    """Every setting as a loggable value: secrets left out or masked, URL passwords masked.

    Fields declared with ``repr=False`` (the token secret) and fields whose name says secret,
    password, token or credential (except ``*_generated`` flags) are shown as ``"***"`` when
    set; a password inside any URL (``redis://:pw@host``) becomes ``***``. A group of settings
    (e.g. ``webhooks``) is shown the same way, field by field.
    """
    shown: dict[str, Any] = {}
    for field in dataclasses.fields(settings):
        value = getattr(settings, field.name)
        secret = _SECRET_NAME.search(field.name) and not field.name.endswith("_generated")
        if not field.repr or secret:
            shown[field.name] = _MASK if value else None
        elif isinstance(value, tuple | list):
            shown[field.name] = [_masked(item) for item in value]
        elif dataclasses.is_dataclass(value):
            shown[field.name] = effective_settings(value)
        else:
            shown[field.name] = _masked(value)
    return shown
