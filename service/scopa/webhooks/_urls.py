"""Which URLs a webhook may be sent to (the deployment's, and a game's own)."""

from __future__ import annotations

import urllib.parse
from typing import Final

__all__ = ["MAX_URL_LENGTH", "check_url"]

MAX_URL_LENGTH: Final = 2048


def check_url(url: str) -> str:
    """Return ``url`` if a webhook may be sent to it, else raise ValueError with the reason:
    an ``https://`` or ``http://`` URL with a host, at most :data:`MAX_URL_LENGTH` characters,
    without spaces, control characters or credentials."""
    if len(url) > MAX_URL_LENGTH:
        raise ValueError(f"a webhook URL is at most {MAX_URL_LENGTH} characters")
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
        raise ValueError("a webhook URL has no spaces or control characters")
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname
    except ValueError:
        raise ValueError("a webhook URL is an https:// or http:// URL with a host") from None
    if parts.scheme not in ("https", "http") or not host:
        raise ValueError("a webhook URL is an https:// or http:// URL with a host")
    if parts.username or parts.password:
        raise ValueError("a webhook URL has no credentials")
    return url
