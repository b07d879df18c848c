"""The archive's table, as the migrations create it (migrations/versions)."""

from __future__ import annotations

from typing import Final

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
)

__all__ = ["METADATA", "OWNERS", "RECORDS"]

METADATA: Final = MetaData()

RECORDS: Final = Table(
    "game_records",
    METADATA,
    Column("game_id", String(64), primary_key=True),
    Column("preset", String(64), nullable=False),
    Column("public", Boolean, nullable=False),
    Column("created_ms", BigInteger, nullable=False),
    Column("finished_ms", BigInteger, nullable=False),
    Column("archived_ms", BigInteger, nullable=False),
    # What a list shows of the game (JSON, small): read without the record.
    Column("summary", LargeBinary, nullable=False),
    # The record's JSON (docs/api.md, "Game records"), a zstd frame (zlib in earlier releases,
    # still read).
    Column("record", LargeBinary, nullable=False),
    Index("game_records_finished", "finished_ms", "game_id"),
)
"""One row per finished game, keyed by its id: a second write of a game is a no-op."""

OWNERS: Final = Table(
    "game_record_owners",
    METADATA,
    # The owner digest of a signed-in player's seat (never a subject): "my finished games".
    Column("owner", String(128), primary_key=True),
    Column("game_id", String(64), primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("finished_ms", BigInteger, nullable=False),
    Index("game_record_owners_finished", "owner", "finished_ms", "game_id"),
)
"""One row per signed-in owner of an archived game (its lowest seat), written with the record
and deleted with it."""
