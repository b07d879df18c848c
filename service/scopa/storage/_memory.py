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
from scopa.storage._fanout import PRESENCE, VersionQueue
from scopa.storage._index import deadline_shard
from scopa.storage._keys import check_game_id, check_ttl, request_field, slot_field
from scopa.storage._memory_outbox import MemoryOutbox
from scopa.storage._outbox import OutboxItem
from scopa.storage._owners import MemoryOwnerIndex
from scopa.storage._presence import PresenceBook
from scopa.storage._types import (
    INITIAL_VERSION,
    CreateResult,
    Event,
    Presence,
    PublicGame,
    Snapshot,
    basis_digest,
)

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


class MemoryStore(MemoryOutbox, MemoryOwnerIndex):
    """A GameStore kept in a dict; every operation is atomic because it never awaits."""

    def __init__(
        self, clock: Clock = time.monotonic, queue_size: int = 64, wall: Clock = time.time
    ) -> None:
        MemoryOutbox.__init__(self)
        MemoryOwnerIndex.__init__(self)
        self._clock = clock
        self._wall = wall
        self._deadlines: dict[str, tuple[int, int]] = {}
        """Game id -> (deadline ms, the version it was set for)."""
        self._lobby: dict[str, tuple[str, int, int, bytes]] = {}
        """Game id -> (preset, creation ms, expiry ms, summary) of the listed public games."""
        self._playing: dict[str, tuple[str, int, int, bytes]] = {}
        """The same of the second board (games being played)."""
        self._queue_size = queue_size
        self._games: dict[str, _Game] = {}
        self._expiries: list[tuple[float, str]] = []
        self._subscribers: dict[str, set[VersionQueue]] = {}
        self._presence = PresenceBook()
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
        outbox: Sequence[OutboxItem] = (),
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
        self._enqueue(game_id, INITIAL_VERSION, outbox)
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
        expected_digest: str | None = None,
        outbox: Sequence[OutboxItem] = (),
    ) -> int:
        """Compare-and-set the game and return its new version (see GameStore.commit)."""
        check_ttl(ttl_s)
        self._check_open()
        game = self._require(game_id)
        cached, cached_state = _cached(game, request_id, slot)
        if request_id is not None and cached is not None:
            raise DuplicateRequest(game_id, request_id, cached, cached_state)
        if game.version != expected_version or (
            expected_digest is not None and basis_digest(game.state, game.meta) != expected_digest
        ):
            stored = Snapshot(game.state, game.meta, game.version)
            raise VersionConflict(game_id, expected_version, game.version, stored)
        game.state, game.meta, game.version = state, meta, game.version + 1
        self._apply(game_id, game, events, ttl_s, request_id, response, state, slot)
        self._enqueue(game_id, game.version, outbox)
        for queue in self._subscribers.get(game_id, ()):
            queue.put(game.version)
        return game.version

    async def events_since(self, game_id: str, version: int) -> list[Event]:
        """Return the events tagged with a version greater than ``version``, oldest first."""
        self._check_open()
        game = self._require(game_id)
        return [event for event in game.events if event.version > version]

    @asynccontextmanager
    async def subscribe(
        self, game_id: str, skip: Callable[[int], bool] | None = None
    ) -> AsyncIterator[VersionQueue]:
        """Yield the stream of versions committed while the context is open, but those
        ``skip`` is true for."""
        self._check_open()
        queue = VersionQueue(self._queue_size, skip)
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
        self._deadlines.clear()
        self._lobby.clear()
        self._outboxes.clear()
        self._playing.clear()
        self._presence.clear()
        self._owned.clear()

    async def time(self) -> float:
        """The store's clock: this process's wall clock, seconds since the epoch."""
        self._check_open()
        return self._wall()

    async def set_deadline(self, game_id: str, version: int, deadline_ms: int | None) -> bool:
        """Index the deadline of ``version`` (None: it has none); False if a newer one is set."""
        self._check_open()
        stored = self._deadlines.get(game_id)
        if stored is not None and stored[1] > version:
            return False
        if deadline_ms is None:
            self._deadlines.pop(game_id, None)
        else:
            self._deadlines[game_id] = (deadline_ms, version)
        return True

    async def lower_deadline(self, game_id: str, deadline_ms: int) -> None:
        """Make the game's entry at most ``deadline_ms`` (before a commit that sets it)."""
        self._check_open()
        score, version = self._deadlines.get(game_id, (deadline_ms, 0))
        self._deadlines[game_id] = (min(score, deadline_ms), version)

    async def forget_deadline(self, game_id: str, deadline_ms: int) -> bool:
        """Drop the entry of a game that is gone, if its deadline is still ``deadline_ms``."""
        self._check_open()
        stored = self._deadlines.get(game_id)
        if stored is None or stored[0] != deadline_ms:
            return False
        del self._deadlines[game_id]
        return True

    async def due_games(self, shard: int, now_ms: int, limit: int) -> list[tuple[str, int]]:
        """Up to ``limit`` entries of ``shard`` due by ``now_ms``: (game id, deadline ms)."""
        self._check_open()
        due = sorted(
            (score, game)
            for game, (score, _) in self._deadlines.items()
            if score <= now_ms and deadline_shard(game) == shard
        )
        return [(game, score) for score, game in due[:limit]]

    async def list_public(
        self,
        game_id: str,
        preset: str,
        created_ms: int,
        expires_ms: int,
        summary: bytes = b"",
        *,
        live: bool = False,
    ) -> None:
        """List (or refresh) a public game in the lobby (``live``: on the second board)."""
        self._check_open()
        self._board(live)[game_id] = (preset, created_ms, expires_ms, summary)

    async def unlist_public(self, game_id: str, *, live: bool = False) -> None:
        """Take a game off the lobby."""
        self._check_open()
        self._board(live).pop(game_id, None)

    async def purge_public(self, now_ms: int, limit: int, *, live: bool = False) -> int:
        """Drop up to ``limit`` lobby entries expired by ``now_ms`` (oldest expiry first)."""
        self._check_open()
        board = self._board(live)
        expired = sorted((exp, game) for game, (_, _, exp, _) in board.items() if exp <= now_ms)
        for _, game in expired[:limit]:
            del board[game]
        return min(len(expired), limit)

    async def public_games(
        self,
        preset: str,
        now_ms: int,
        limit: int,
        before: tuple[int, str] | None = None,
        *,
        live: bool = False,
    ) -> list[PublicGame]:
        """Listed games, newest first, after the cursor ``before`` (see GameStore)."""
        self._check_open()
        board = self._board(live)
        for game, (_, _, expires, _) in list(board.items()):
            if expires <= now_ms:
                del board[game]
        rows = sorted(
            ((created, game) for game, (p, created, _, _) in board.items() if preset in ("", p)),
            reverse=True,
        )
        if before is not None:
            rows = [(c, g) for c, g in rows if (c, g) < before]
        return [PublicGame(game, created, board[game][3]) for created, game in rows[:limit]]

    def _board(self, live: bool) -> dict[str, tuple[str, int, int, bytes]]:
        return self._playing if live else self._lobby

    async def touch_presence(
        self, game_id: str, seat: int | None, connection: str, ttl_s: float, keep_s: float
    ) -> bool:
        """Add or refresh a stream's presence entry (see GameStore.touch_presence)."""
        self._check_open()
        return self._presence_changed(game_id, seat, connection, _ms(ttl_s), _ms(keep_s))

    async def drop_presence(
        self, game_id: str, seat: int | None, connection: str, keep_s: float
    ) -> bool:
        """Drop a closed stream's presence entry (see GameStore.drop_presence)."""
        self._check_open()
        return self._presence_changed(game_id, seat, connection, None, _ms(keep_s))

    async def presence(self, game_id: str) -> Presence:
        """The game's presence now (see GameStore.presence)."""
        self._check_open()
        return self._presence.read(game_id, round(self._wall() * 1000))

    async def load_with_presence(self, game_id: str) -> tuple[Snapshot, Presence]:
        """The game and its presence (see GameStore.load_with_presence)."""
        check_game_id(game_id)
        snap = await self.load(game_id)
        return snap, await self.presence(game_id)

    def _presence_changed(
        self, game_id: str, seat: int | None, connection: str, ttl_ms: int | None, keep_ms: int
    ) -> bool:
        now_ms = round(self._wall() * 1000)
        changed = self._presence.change(game_id, now_ms, seat, connection, ttl_ms, keep_ms)
        if changed:
            for queue in self._subscribers.get(game_id, ()):
                queue.put(PRESENCE)
        return changed

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


def _ms(seconds: float) -> int:
    check_ttl(seconds)
    return max(1, round(seconds * 1000))


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
