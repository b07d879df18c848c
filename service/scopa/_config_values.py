"""The parsers of the service's environment variables' values (:mod:`scopa.config`).

Each takes the variable's non-blank text and returns its value, or raises ``ValueError`` saying
what is expected; :mod:`scopa.config` names the variable in the ``ConfigError`` it raises.
"""

from __future__ import annotations

import math
import urllib.parse
from typing import Literal

import limits

from scopa.storage import parse_redis_url

LogFormat = Literal["json", "console", "auto"]
Exporter = Literal["otlp", "console", "none"]

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
_LOG_LEVELS = ("debug", "info", "warning", "error", "critical")


def _non_empty(value: str) -> str:
    return value


_LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})


def _issuer(value: str) -> str:
    """An OIDC issuer URL: https, or http on a loopback host (a provider beside the service)."""
    parts = urllib.parse.urlsplit(value)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise ValueError("must be an https:// URL")
    if parts.scheme == "http" and parts.hostname not in _LOOPBACK:
        raise ValueError("must be an https:// URL (http:// only for localhost)")
    if parts.query or parts.fragment:
        raise ValueError("must have no query or fragment")
    return value.rstrip("/")


_FLOW_PARAMS = frozenset(
    {
        "client_id",
        "redirect_uri",
        "response_type",
        "response_mode",
        "scope",
        "state",
        "nonce",
        "code_challenge",
        "code_challenge_method",
    }
)
"""The authorization request parameters the web client's sign-in flow sets itself."""


def _scope(value: str) -> str:
    """OAuth scopes, space-separated, with ``openid`` (an OpenID Connect sign-in)."""
    scopes = value.split()
    if "openid" not in scopes:
        raise ValueError("must include openid")
    if not all(s.isprintable() and '"' not in s and "\\" not in s for s in scopes):
        raise ValueError("expected space-separated scopes")
    return " ".join(scopes)


def _auth_params(value: str) -> tuple[tuple[str, str], ...]:
    """Extra authorization request parameters: ``name=value&...``, URL-encoded."""
    try:
        pairs = urllib.parse.parse_qsl(value, strict_parsing=True)
    except ValueError:
        raise ValueError("expected URL-encoded name=value pairs joined by &") from None
    taken = sorted({name for name, _ in pairs} & _FLOW_PARAMS)
    if taken:
        raise ValueError(f"the sign-in flow sets {', '.join(taken)} itself")
    return tuple(pairs)


def _bool(value: str) -> bool:
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError("expected one of true/false, on/off, yes/no, 1/0")


def _int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ValueError("expected an integer") from None


def _archive_url(value: str) -> str | None:
    if value.lower() == "off":
        return None
    if not value.startswith(("sqlite:///", "postgresql://", "postgres://")):
        raise ValueError("expected sqlite:///PATH, postgresql://... or off")
    return value


def _redis_url(value: str) -> str | None:
    parse_redis_url(value)
    return value


def _port(value: str) -> int:
    port = _int(value)
    if not 0 <= port <= 65535:
        raise ValueError("expected a port number between 0 and 65535")
    return port


def _optional_port(value: str) -> int | None:
    if value.lower() == "off":
        return None
    return _port(value)


def _origins(value: str) -> tuple[str, ...]:
    origins = tuple(o.strip().rstrip("/") for o in value.split(",") if o.strip())
    for origin in origins:
        if origin != "*" and not origin.startswith(("http://", "https://")):
            raise ValueError("expected * or origins like https://example.com, comma-separated")
    return origins


def _positive_int(value: str) -> int:
    number = _int(value)
    if number <= 0:
        raise ValueError("expected a positive number of seconds")
    return number


def _byte_count(value: str) -> int:
    number = _int(value)
    if number < 1024:
        raise ValueError("expected a number of bytes >= 1024")
    return number


def _hops(value: str) -> int:
    number = _int(value)
    if number < 1:
        raise ValueError("expected a number of proxies >= 1")
    return number


def _header_name(value: str) -> str | None:
    lowered = value.lower()
    if not all(ch.isalnum() or ch in "-_" for ch in lowered):
        raise ValueError("expected a header name such as x-forwarded-for")
    return lowered


def _rate(value: str) -> str:
    if value.lower() in _FALSE or value.lower() == "none":
        return "off"
    try:
        limits.parse(value)
    except ValueError:
        raise ValueError("expected a rate such as 60/minute or 10 per second, or off") from None
    return value


def _float(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise ValueError("expected a number of seconds") from None
    if not math.isfinite(number):
        raise ValueError("expected a finite number of seconds")
    return number


def _positive_float(value: str) -> float:
    number = _float(value)
    if number <= 0:
        raise ValueError("expected a positive number of seconds")
    return number


def _positive_count(value: str) -> int:
    number = _int(value)
    if number <= 0:
        raise ValueError("expected a positive number")
    return number


def _non_negative_int(value: str) -> int:
    number = _int(value)
    if number < 0:
        raise ValueError("expected a non-negative number")
    return number


def _non_negative_float(value: str) -> float:
    number = _float(value)
    if number < 0:
        raise ValueError("expected a non-negative number of seconds")
    return number


def _optional_seconds(value: str) -> float | None:
    if value.lower() in _FALSE:
        return None
    number = _float(value)
    if number < 0:
        raise ValueError("expected a positive number of seconds, or 0/off to disable")
    return number or None


def _log_format(value: str) -> LogFormat:
    lowered = value.lower()
    if lowered == "json":
        return "json"
    if lowered == "console":
        return "console"
    if lowered == "auto":
        return "auto"
    raise ValueError("expected json, console or auto")


def _log_level(value: str) -> str:
    lowered = value.lower()
    if lowered not in _LOG_LEVELS:
        raise ValueError(f"expected one of {', '.join(_LOG_LEVELS)}")
    return lowered


def _exporter(value: str) -> Exporter:
    lowered = value.lower()
    if lowered == "otlp":
        return "otlp"
    if lowered == "console":
        return "console"
    if lowered == "none":
        return "none"
    raise ValueError("expected otlp, console or none")
