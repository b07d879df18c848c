"""What the archive's callers handle without its database code: a finished game's row and the
archive's one error (every replica imports them; SQLAlchemy and Alembic wait for an archive)."""

from __future__ import annotations

from dataclasses import dataclass


class ArchiveError(Exception):
    """The archive database failed or could not be reached; nothing is known to be written."""


class ArchiveCorrupt(Exception):
    """A stored record cannot be read back: its bytes are neither a zstd frame nor zlib (not an
    outage: reading it again gives the same bytes)."""


@dataclass(frozen=True)
class ArchivedGame:
    """A finished game's row: what lists show, and the record's JSON (empty in lists)."""

    game_id: str
    preset: str
    public: bool
    created_ms: int
    finished_ms: int
    record: bytes = b""
    summary: bytes = b""
    """What a list shows of the game (opaque, small), read without the record."""
    owners: tuple[tuple[str, int], ...] = ()
    """(owner digest, seat) of each signed-in player who held a seat (its lowest); in a
    list of one owner's games, that owner's only."""
