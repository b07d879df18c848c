"""Typed failures raised by every game store."""

from __future__ import annotations

from scopa.storage._types import Snapshot


class StorageError(Exception):
    """Base class of all storage failures."""


class StorageUnavailable(StorageError):
    """The backend could not be reached or timed out."""

    reason = "STORAGE_UNAVAILABLE"
    message = "the game store is unavailable; retry with the same request_id"
    """What a client is told; the backend's own error (addresses included) stays in the server."""


class OutcomeUnknown(StorageUnavailable):
    """A write was sent but its reply never came: it may or may not have been applied."""

    reason = "OUTCOME_UNKNOWN"
    message = (
        "the game store did not confirm the write, which may have been applied; retry with the "
        "same request_id to learn its outcome"
    )


class StorageFull(StorageError):
    """The backend refused a write because it is out of memory (Redis maxmemory)."""

    reason = "STORAGE_FULL"
    message = "the game store is full; nothing was changed, retry later with the same request_id"


class GameNotFound(StorageError):
    """The game does not exist (never created, or expired)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id!r} not found")
        self.game_id = game_id


class GameExists(StorageError):
    """A game with this id already exists."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id!r} already exists")
        self.game_id = game_id


class VersionConflict(StorageError):
    """The stored game is not the one the caller expected: another version (or, with an
    expected digest, other bytes at that version).

    ``stored`` is the game as the commit found it (state, meta and version, no cached
    response), so the caller can decide again without a load; None where a store has not read it.
    """

    def __init__(
        self, game_id: str, expected: int, current: int, stored: Snapshot | None = None
    ) -> None:
        super().__init__(f"game {game_id!r} is at version {current}, expected {expected}")
        self.game_id = game_id
        self.expected = expected
        self.current = current
        self.stored = stored


class DuplicateRequest(StorageError):
    """The request id was already applied to this game; carries the stored response and the
    state the game had when it was recorded (see ``Snapshot.cached_state``)."""

    def __init__(
        self, game_id: str, request_id: str, response: bytes, state: bytes | None = None
    ) -> None:
        super().__init__(f"request {request_id!r} already applied to game {game_id!r}")
        self.game_id = game_id
        self.request_id = request_id
        self.response = response
        self.state = state
