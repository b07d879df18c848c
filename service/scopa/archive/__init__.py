"""The archive of finished games: one SQL database (SQLite by default, PostgreSQL in production)
reached through SQLAlchemy, its schema kept by Alembic migrations. Redis keeps live games only.

SQLAlchemy and Alembic are imported when an archive opens (or ``GameArchive`` is first named),
not with this package: a replica without an archive, or before it opens one, does not load them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scopa.archive._types import ArchiveCorrupt, ArchivedGame, ArchiveError

if TYPE_CHECKING:
    from scopa.archive._archive import GameArchive

__all__ = ["ArchiveCorrupt", "ArchiveError", "ArchivedGame", "GameArchive", "open_archive"]


async def open_archive(url: str, timeout_s: float = 5.0) -> GameArchive:
    """The archive at the SQLAlchemy URL ``url``, its schema migrated (see ``_archive``)."""
    from scopa.archive import _archive  # noqa: PLC0415 - the database libraries, on first use

    return await _archive.open_archive(url, timeout_s)


def __getattr__(name: str) -> Any:
    if name == "GameArchive":
        from scopa.archive import _archive  # noqa: PLC0415 - the database libraries, on first use

        return _archive.GameArchive
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
