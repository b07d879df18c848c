"""The game_records table.

Revision ID: r0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "r0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the table of finished games and its index by finish time."""
    op.create_table(
        "game_records",
        sa.Column("game_id", sa.String(64), primary_key=True),
        sa.Column("preset", sa.String(64), nullable=False),
        sa.Column("public", sa.Boolean, nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.Column("finished_ms", sa.BigInteger, nullable=False),
        sa.Column("archived_ms", sa.BigInteger, nullable=False),
        sa.Column("summary", sa.LargeBinary, nullable=False),
        sa.Column("record", sa.LargeBinary, nullable=False),
    )
    op.create_index("game_records_finished", "game_records", ["finished_ms", "game_id"])


def downgrade() -> None:
    """Drop the table."""
    op.drop_index("game_records_finished", "game_records")
    op.drop_table("game_records")
