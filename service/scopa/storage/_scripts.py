"""The Lua scripts of the Redis stores: files shipped in ``scopa.storage.lua``, run by SHA1."""

from __future__ import annotations

import hashlib
import importlib.resources

__all__ = ["Script", "script_text"]


def script_text(name: str) -> str:
    """Return the text of a Lua script shipped in ``scopa.storage.lua``."""
    return importlib.resources.files("scopa.storage.lua").joinpath(name).read_text("utf-8")


class Script:
    """A Lua script file and its SHA1, run with EVALSHA (loaded again after a SCRIPT FLUSH)."""

    def __init__(self, name: str) -> None:
        self.text = script_text(name)
        self.sha = hashlib.sha1(self.text.encode(), usedforsecurity=False).hexdigest()
