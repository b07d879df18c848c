"""Stored game states rewritten as an earlier release could have stored them."""

from __future__ import annotations

import json
import zlib
from typing import Any

__all__ = ["with_rules"]


def with_rules(blob: bytes, preset: str, overrides: dict[str, Any]) -> bytes:
    """``blob`` (a state of today's format) as if stored under ``preset`` and ``overrides``."""
    record = json.loads(zlib.decompress(blob[1:]))
    record["preset"], record["overrides"] = preset, overrides
    return blob[:1] + zlib.compress(json.dumps(record).encode())
