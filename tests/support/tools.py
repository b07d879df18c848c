"""System tools the tests start (redis-server, nginx, openssl, ...), found or skipped for.

A test that needs a tool this machine lacks is skipped with one line naming the tool and the
command that installs it; with ``SCOPA_REQUIRE_ALL=1`` (``.ci/run`` sets it) it fails instead,
so CI runs everything. ``make test`` lists every skip at its end (tools/skipped.py).
"""

from __future__ import annotations

import os
import shutil
from typing import Final

import pytest

INSTALL: Final[dict[str, str]] = {
    "redis-server": "apt-get install redis-server",
    "redis-cli": "apt-get install redis-tools",
    "openssl": "apt-get install openssl",
    "nginx": "apt-get install nginx-light",
    "gcc": "apt-get install gcc",
    "node": "apt-get install nodejs npm",
    "initdb": "apt-get install postgresql",
    "postgres": "apt-get install postgresql",
    "runuser": "apt-get install util-linux",
}
"""How each tool is installed on Debian (what .ci/run runs)."""

_PLACES: Final = ("/usr/sbin", "/usr/bin")


def require_all() -> bool:
    """Whether a missing tool fails the run (``SCOPA_REQUIRE_ALL=1``) rather than skipping."""
    return os.environ.get("SCOPA_REQUIRE_ALL", "") == "1"


def find_tool(name: str) -> str | None:
    """The path of ``name`` on the PATH or in the system directories, or None."""
    found = shutil.which(name)
    if found:
        return found
    for place in _PLACES:
        path = os.path.join(place, name)
        if os.access(path, os.X_OK):
            return path
    return None


def system_tool(name: str) -> str:
    """The path of ``name``; the calling test is skipped (failed under SCOPA_REQUIRE_ALL) when
    the machine lacks it."""
    path = find_tool(name)
    if path is not None:
        return path
    why = f"needs {name}, which this machine lacks: install it with `{INSTALL[name]}`"
    if require_all():
        pytest.fail(f"{why} (SCOPA_REQUIRE_ALL=1 runs every test)", pytrace=False)
    pytest.skip(why)
