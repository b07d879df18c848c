"""Embedded asyncio game store, for development runs without Redis and for unit tests."""

from __future__ import annotations

import heapq
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from scopa.storage._errors import (
    DuplicateRequest,
    GameExists,
    GameNotFound,
    StorageError,
    VersionConflict,
)
from scopa.storage._fanout import VersionQueue
from scopa.storage._keys import check_game_id, check_ttl, request_field, slot_field
from scopa.storage._types import INITIAL_VERSION, CreateResult, Event, Snapshot

Clock = Callable[[], float]


@dataclass(slots=True)
class _Game:
    state: bytes
    meta: bytes
    version: int
    expires_at: float
    requests: dict[str, tuple[bytes, bytes | None]] = field(default_factory=dict)
    """field -> (tag + response, the state committed with it; None for a create's)."""
    events: list[Event] = field(default_factory=list)


class MemoryStore:
    """A GameStore kept in a dict; every operation is atomic because it never awaits."""

    def __init__(self, clock: Clock = time.monotonic, queue_size: int = 64) -> None:
        self._clock = clock
        self._queue_size = queue_size
        self._games: dict[str, _Game] = {}
        self._expiries: list[tuple[float, str]] = []
        self._subscribers: dict[str, set[VersionQueue]] = {}
        self._closed = False

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
        """Atomically create a game at version 1 (see GameStore.create)."""
        check_game_id(game_id)
        check_ttl(ttl_s)
        self._check_open()
        existing = self._live(game_id)
        if existing is not None:
            cached, _ = _cached(existing, request_id, None)
            if cached is None:
                raise GameExists(game_id)
            return CreateResult(version=existing.version, created=False, response=cached)
        game = _Game(state, meta, INITIAL_VERSION, expires_at=0.0)
        self._games[game_id] = game
        self._apply(game_id, game, events, ttl_s, request_id, response, kept=None)
        return CreateResult(version=INITIAL_VERSION, created=True, response=response)

    async def load(
        self, game_id: str, request_id: str | None = None, slot: str | None = None
    ) -> Snapshot:
        """Return the game and the response cached for ``request_id``."""
        self._check_open()
        game = self._require(game_id)
        response, state = _cached(game, request_id, slot)
        return Snapshot(game.state, game.meta, game.version, response, state)

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
        """Compare-and-set the game and return its new version (see GameStore.commit)."""
        check_ttl(ttl_s)
        self._check_open()
        game = self._require(game_id)
        cached, cached_state = _cached(game, request_id, slot)
        if request_id is not None and cached is not None:
            raise DuplicateRequest(game_id, request_id, cached, cached_state)
        if game.version != expected_version:
            raise VersionConflict(game_id, expected_version, game.version)
        game.state, game.meta, game.version = state, meta, game.version + 1
        self._apply(game_id, game, events, ttl_s, request_id, response, state, slot)
        for queue in self._subscribers.get(game_id, ()):
            queue.put(game.version)
        return game.version

    async def events_since(self, game_id: str, version: int) -> list[Event]:
        """Return the events tagged with a version greater than ``version``, oldest first."""
        self._check_open()
        game = self._require(game_id)
        return [event for event in game.events if event.version > version]

    @asynccontextmanager
    async def subscribe(self, game_id: str) -> AsyncIterator[AsyncIterator[int]]:
        """Yield the stream of versions committed while the context is open."""
        self._check_open()
        queue = VersionQueue(self._queue_size)
        queues = self._subscribers.setdefault(game_id, set())
        queues.add(queue)
        try:
            yield queue
        finally:
            queues.discard(queue)
            if not queues and self._subscribers.get(game_id) is queues:
                del self._subscribers[game_id]

    async def ping(self) -> None:
        """Raise StorageError once the store is closed."""
        self._check_open()

    async def close(self) -> None:
        """Drop all games and end every subscription."""
        self._closed = True
        for queues in self._subscribers.values():
            for queue in queues:
                queue.close()
        self._games.clear()
        self._expiries.clear()

    def _check_open(self) -> None:
        if self._closed:
            raise StorageError("store is closed")

    def _apply(
        self,
        game_id: str,
        game: _Game,
        events: Sequence[bytes],
        ttl_s: float,
        request_id: str | None,
        response: bytes | None,
        kept: bytes | None,
        slot: str | None = None,
    ) -> None:
        game.events.extend(Event(game.version, payload) for payload in events)
        if request_id is not None and response is not None:
            field, tag = _request_key(request_id, slot)
            game.requests[field] = (tag.encode() + response, kept)
        game.expires_at = self._clock() + ttl_s
        heapq.heappush(self._expiries, (game.expires_at, game_id))
        self._sweep()

    def _require(self, game_id: str) -> _Game:
        game = self._live(game_id)
        if game is None:
            raise GameNotFound(game_id)
        return game

    def _live(self, game_id: str) -> _Game | None:
        game = self._games.get(game_id)
        if game is not None and game.expires_at <= self._clock():
            del self._games[game_id]
            return None
        return game

    def _sweep(self) -> None:
        """Forget expired games whose expiry reached the top of the heap."""
        now = self._clock()
        while self._expiries and self._expiries[0][0] <= now:
            _, game_id = heapq.heappop(self._expiries)
            self._live(game_id)


def _request_key(request_id: str, slot: str | None) -> tuple[str, str]:
    if slot is None:
        return request_field(request_id), ""
    return slot_field(slot), f"{request_id}\n"


def _cached(
    game: _Game, request_id: str | None, slot: str | None
) -> tuple[bytes | None, bytes | None]:
    """The response cached for ``request_id`` (in its slot, if any) and the state committed
    with it, or (None, None)."""
    if request_id is None:
        return None, None
    field, tag = _request_key(request_id, slot)
    stored, state = game.requests.get(field, (None, None))
    if stored is None or not stored.startswith(tag.encode()):
        return None, None
    return stored[len(tag) :], state
