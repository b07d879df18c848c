"""The game_record_owners table: the signed-in owners of each archived game.

Revision ID: r0002
Revises: r0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "r0002"
down_revision = "r0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the table of archived games' owners and its index by owner and finish time
    (records archived before it have no rows: they list for nobody)."""
    op.create_table(
        "game_record_owners",
        sa.Column("owner", sa.String(128), primary_key=True),
        sa.Column("game_id", sa.String(64), primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("finished_ms", sa.BigInteger, nullable=False),
    )
    op.create_index(
        "game_record_owners_finished",
        "game_record_owners",
        ["owner", "finished_ms", "game_id"],
    )


def downgrade() -> None:
    """Drop the table."""
    op.drop_index("game_record_owners_finished", "game_record_owners")
    op.drop_table("game_record_owners")
