"""The webhook settings (``SCOPA_WEBHOOK_*``), read with the others by ``scopa.config``."""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from scopa.webhooks._urls import check_url

__all__ = ["WEBHOOK_ENV_VARS", "WebhookSettings", "webhook_settings"]

_MIN_SECRET_BYTES: Final = 16

WEBHOOK_ENV_VARS: Final = (
    (
        "SCOPA_WEBHOOK_URL",
        "unset",
        "Where game notifications (your turn, a seat joined, a turn timed out, the game "
        "finished) are POSTed, signed per Standard Webhooks (docs/api.md, Webhooks): an "
        "`https://` or `http://` URL. Unset: no webhooks.",
    ),
    (
        "SCOPA_WEBHOOK_SECRET",
        "unset",
        "The signing secret, `whsec_` + base64 of at least 16 bytes; required with "
        "`SCOPA_WEBHOOK_URL`.",
    ),
    (
        "SCOPA_WEBHOOK_ALLOW_PER_GAME",
        "`off`",
        "Accept a game's own webhook URL at creation (CreateGame `webhook.url`), signed with "
        "`SCOPA_WEBHOOK_SECRET` (required with it). Off: such a request is "
        "`INVALID_ARGUMENT`. Turn it on only where players may make this server call URLs of "
        "their choosing (server-side request forgery: see docs/operations.md, Webhooks).",
    ),
    (
        "SCOPA_WEBHOOK_MAX_ATTEMPTS",
        "`8`",
        "Attempts per notification before it is dead-lettered (dropped, logged, counted).",
    ),
    (
        "SCOPA_WEBHOOK_TIMEOUT_S",
        "`5`",
        "Seconds one delivery attempt may take; a worker leases a claim for five times this.",
    ),
    (
        "SCOPA_WEBHOOK_BACKOFF_S",
        "`1`",
        "Delay before the first retry; each next one doubles (at most 300 s), with jitter.",
    ),
)


@dataclass(frozen=True)
class WebhookSettings:
    """Validated webhook settings (``url`` "" : webhooks off)."""

    url: str = ""
    secret: str = field(default="", repr=False)
    allow_per_game: bool = False
    max_attempts: int = 8
    timeout_s: float = 5.0
    backoff_s: float = 1.0

    @property
    def enabled(self) -> bool:
        """Whether the deployment sends webhooks (to its URL)."""
        return bool(self.url)

    @property
    def worker(self) -> bool:
        """Whether a delivery worker runs (a deployment URL, or per-game URLs)."""
        return bool(self.secret) and (self.enabled or self.allow_per_game)


def _secret(text: str) -> str:
    if not text.startswith("whsec_"):
        raise ValueError("SCOPA_WEBHOOK_SECRET must start with whsec_")
    try:
        raw = base64.b64decode(text[len("whsec_") :], validate=True)
    except binascii.Error:
        raise ValueError("SCOPA_WEBHOOK_SECRET must be whsec_ + base64") from None
    if len(raw) < _MIN_SECRET_BYTES:
        raise ValueError(f"SCOPA_WEBHOOK_SECRET must hold at least {_MIN_SECRET_BYTES} bytes")
    return text


def _number(environ: Mapping[str, str], name: str, default: float, whole: bool) -> float:
    text = environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = int(text) if whole else float(text)
    except ValueError:
        raise ValueError(f"{name} must be a positive number, got {text!r}") from None
    if not value > 0 or not math.isfinite(value):
        raise ValueError(f"{name} must be a positive number, got {text!r}")
    return value


def webhook_settings(environ: Mapping[str, str]) -> WebhookSettings:
    """Parse the ``SCOPA_WEBHOOK_*`` variables; ValueError names the variable at fault."""
    url = environ.get("SCOPA_WEBHOOK_URL", "").strip()
    secret = environ.get("SCOPA_WEBHOOK_SECRET", "").strip()
    if url:
        try:
            check_url(url)
        except ValueError as exc:
            raise ValueError(f"SCOPA_WEBHOOK_URL: {exc}") from None
        if not secret:
            raise ValueError("SCOPA_WEBHOOK_SECRET must be set with SCOPA_WEBHOOK_URL")
    allow = environ.get("SCOPA_WEBHOOK_ALLOW_PER_GAME", "").strip().lower()
    if allow not in ("", "1", "true", "yes", "on", "0", "false", "no", "off"):
        raise ValueError(f"SCOPA_WEBHOOK_ALLOW_PER_GAME must be on or off, got {allow!r}")
    per_game = allow in ("1", "true", "yes", "on")
    if per_game and not secret:
        raise ValueError("SCOPA_WEBHOOK_SECRET must be set with SCOPA_WEBHOOK_ALLOW_PER_GAME")
    return WebhookSettings(
        url=url,
        secret=_secret(secret) if secret else "",
        allow_per_game=per_game,
        max_attempts=int(_number(environ, "SCOPA_WEBHOOK_MAX_ATTEMPTS", 8, whole=True)),
        timeout_s=_number(environ, "SCOPA_WEBHOOK_TIMEOUT_S", 5.0, whole=False),
        backoff_s=_number(environ, "SCOPA_WEBHOOK_BACKOFF_S", 1.0, whole=False),
    )
