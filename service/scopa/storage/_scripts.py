"""The Lua scripts of the Redis stores: files shipped in ``scopa.storage.lua``, run by SHA1.

Redis runs a script as one text, so a script shares code with another by a line
``-- include: <file>.lua``, which :func:`script_text` replaces by that file's text (one level):
the store loads, and names by SHA1, the whole.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import re
from typing import Final

__all__ = ["Script", "script_text"]

_INCLUDE: Final = re.compile(r"^-- include: ([\w.-]+\.lua)$", re.MULTILINE)


def _file_text(name: str) -> str:
    return importlib.resources.files("scopa.storage.lua").joinpath(name).read_text("utf-8")


def script_text(name: str) -> str:
    """Return the text of a Lua script shipped in ``scopa.storage.lua``, its include lines
    replaced by the files they name."""
    return _INCLUDE.sub(lambda found: _file_text(found.group(1)), _file_text(name))


class Script:
    """A Lua script file and its SHA1, run with EVALSHA (loaded again after a SCRIPT FLUSH)."""

    def __init__(self, name: str) -> None:
        self.text = script_text(name)
        self.sha = hashlib.sha1(self.text.encode(), usedforsecurity=False).hexdigest()
