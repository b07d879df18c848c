"""Alembic's migrations of the archive's schema, applied at start-up (``open_archive``)."""
