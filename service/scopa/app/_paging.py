"""Listing pages (pure): the page size and the opaque page token (AIP-158) of ListGames, and
the page tokens of the other listings (ListMyGames, the archive's)."""

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


def page_token(key: str, created_ms: int, game_id: str, *, method: str = "") -> str:
    """An opaque page token: the filter ``key`` and the last entry of the page. ``method``: a
    listing other than ListGames, named in its tokens."""
    fields: list[str | int] = [key, created_ms, game_id]
    if method:
        fields.insert(0, method)
    text = json.dumps(fields, separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def read_page_token(
    token: str, key: str, *, method: str = "", filter_name: str = "preset"
) -> tuple[int, str] | None:
    """The cursor of a page token of :func:`page_token` (same ``method``); INVALID_ARGUMENT if
    malformed, of another listing or of another filter (the ``filter_name`` filter)."""
    if not token:
        return None
    listing = method or "ListGames"
    try:
        padded = token + "=" * (-len(token) % 4)
        fields = json.loads(base64.urlsafe_b64decode(padded))
        if method:
            tag, *fields = fields
            if tag != method:
                raise ValueError(token)
        filtered, created_ms, game_id = fields
        if not isinstance(created_ms, int) or not isinstance(game_id, str):
            raise ValueError(token)
    except (ValueError, TypeError, RecursionError):  # RecursionError: nested too deep
        raise InvalidArgument(
            f"page_token is not a token of {listing}", field="page_token"
        ) from None
    if filtered != key:
        raise InvalidArgument(
            f"page_token belongs to a listing with another {filter_name} filter",
            field="page_token",
        )
    return created_ms, game_id
