"""ListGames pages (pure): the page size and the opaque page token (AIP-158)."""

from __future__ import annotations

import base64
import json
from typing import Final

from scopa import rules

from ._errors import InvalidArgument

__all__ = ["page_size", "page_token", "read_page_token"]

DEFAULT_PAGE_SIZE: Final = 20
MAX_PAGE_SIZE: Final = 100
"""ListGames pages: 0 means the default; larger sizes are cut to the maximum (AIP-158)."""


def page_size(preset: str, size: int) -> int:
    """The rows a page of ``preset``'s listing holds; INVALID_ARGUMENT for a bad request."""
    if preset and preset not in rules.PRESETS:
        raise InvalidArgument(f"unknown preset {preset!r}", field="preset")
    if size < 0:
        raise InvalidArgument("page_size must not be negative", field="page_size")
    return min(size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)


def page_token(preset: str, created_ms: int, game_id: str) -> str:
    """An opaque ListGames page token: the filter and the last entry of the page."""
    text = json.dumps([preset, created_ms, game_id], separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def read_page_token(token: str, preset: str) -> tuple[int, str] | None:
    """The cursor of a page token; INVALID_ARGUMENT if malformed or from another filter."""
    if not token:
        return None
    try:
        padded = token + "=" * (-len(token) % 4)
        filtered, created_ms, game_id = json.loads(base64.urlsafe_b64decode(padded))
        if not isinstance(created_ms, int) or not isinstance(game_id, str):
            raise ValueError(token)
    except (ValueError, TypeError):
        raise InvalidArgument(
            "page_token is not a token of ListGames", field="page_token"
        ) from None
    if filtered != preset:
        raise InvalidArgument(
            "page_token belongs to a listing with another preset filter", field="page_token"
        )
    return created_ms, game_id
