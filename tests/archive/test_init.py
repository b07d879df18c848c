"""The archive package's face: its database libraries load only when an archive opens."""

from __future__ import annotations

import subprocess
import sys

import pytest

import scopa.archive

_PROBE = """
import sys
import scopa.server._main
from scopa.archive import ArchivedGame, ArchiveError
loaded = sorted(m for m in ("sqlalchemy", "alembic", "aiosqlite") if m in sys.modules)
assert not loaded, f"loaded without an archive: {loaded}"
from scopa.archive import GameArchive
assert GameArchive.__module__ == "scopa.archive._archive"
assert "sqlalchemy" in sys.modules
"""


def test_a_replica_without_an_archive_loads_no_database_library() -> None:
    probe = subprocess.run(
        [sys.executable, "-c", _PROBE], check=False, capture_output=True, text=True
    )
    assert probe.returncode == 0, probe.stderr


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="NoSuchThing"):
        scopa.archive.NoSuchThing  # noqa: B018
