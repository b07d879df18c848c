"""Stored game states rewritten as an earlier release could have stored them."""

from __future__ import annotations

import json
from typing import Any

from scopa.rules._compress import compress, decompress

__all__ = ["with_rules"]


def with_rules(blob: bytes, preset: str, overrides: dict[str, Any]) -> bytes:
    """``blob`` (a state of today's format) as if stored under ``preset`` and ``overrides``."""
    record = json.loads(decompress(blob[1:], blob[0]))
    record["preset"], record["overrides"] = preset, overrides
    return blob[:1] + compress(json.dumps(record).encode(), blob[0])
