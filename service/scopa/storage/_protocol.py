"""The contract every game store implements."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Protocol, runtime_checkable

from scopa.storage._types import CreateResult, Event, Snapshot


@runtime_checkable
class GameStore(Protocol):
    """Versioned, TTL-bound storage of opaque game blobs with compare-and-set commits."""

    async def create(
        self,
        game_id: str,
        state: bytes,
        meta: bytes,
        events: Sequence[bytes],
        ttl_s: float,
        request_id: str | None = None,
        response: bytes | None = None,
    ) -> CreateResult:
        """Atomically create a game at version 1.

        Raises GameExists if the game exists, unless ``request_id`` was recorded on it, in
        which case the recorded response is returned with ``created=False``.
        """
        ...

    async def load(
        self, game_id: str, request_id: str | None = None, slot: str | None = None
    ) -> Snapshot:
        """Return the game (and the response cached for ``request_id``); raise GameNotFound.

        With a ``slot`` (e.g. a seat) the request is looked up in that slot, which keeps only
        the latest request committed with it: older requests of the slot are no longer known.
        A response recorded by :meth:`commit` comes with ``cached_state``, the state the game
        had at that commit, so the response itself need not carry it.
        """
        ...

    async def commit(
        self,
        game_id: str,
        expected_version: int,
        state: bytes,
        meta: bytes,
        events: Sequence[bytes],
        ttl_s: float,
        request_id: str | None = None,
        response: bytes | None = None,
        slot: str | None = None,
    ) -> int:
        """Compare-and-set the game and return its new version.

        With a ``slot``, ``response`` replaces the slot's cached response (see :meth:`load`).
        The store keeps ``state`` for as long as a cached response recorded with it is kept.

        Raises GameNotFound, DuplicateRequest (request already applied, with the response and
        the state of its commit) or VersionConflict.
        """
        ...

    async def events_since(self, game_id: str, version: int) -> list[Event]:
        """Return the events tagged with a version greater than ``version``, oldest first."""
        ...

    def subscribe(self, game_id: str) -> AbstractAsyncContextManager[AsyncIterator[int]]:
        """Return a context manager yielding the stream of newly committed versions.

        The subscription is active once the context is entered, so a caller can enter it, then
        read ``events_since`` and never miss a version.
        """
        ...

    async def ping(self) -> None:
        """Raise StorageError unless the store is ready."""
        ...

    async def close(self) -> None:
        """Release connections and wake up subscribers."""
        ...
