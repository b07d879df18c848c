"""Alembic's environment: runs the migrations on the connection ``open_archive`` passes in."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=None)
    with context.begin_transaction():
        context.run_migrations()


_run(context.config.attributes["connection"])
