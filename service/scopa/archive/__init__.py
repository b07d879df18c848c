"""The archive of finished games: one SQL database (SQLite by default, PostgreSQL in production)
reached through SQLAlchemy, its schema kept by Alembic migrations. Redis keeps live games only."""

from scopa.archive._archive import ArchivedGame, ArchiveError, GameArchive, open_archive

__all__ = ["ArchiveError", "ArchivedGame", "GameArchive", "open_archive"]
