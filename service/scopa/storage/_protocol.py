"""The contract every game store implements."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Protocol, runtime_checkable

from scopa.storage._fanout import VersionQueue
from scopa.storage._outbox import OutboxClaim, OutboxItem
from scopa.storage._types import CreateResult, Event, Presence, PublicGame, Snapshot


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
        outbox: Sequence[OutboxItem] = (),
    ) -> CreateResult:
        """Atomically create a game at version 1 (with its webhook ``outbox`` entries).

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
        expected_digest: str | None = None,
        outbox: Sequence[OutboxItem] = (),
    ) -> int:
        """Compare-and-set the game and return its new version.

        ``outbox``: webhook entries (id, payload) written atomically with the game, due at once
        (call :meth:`touch_outbox` before the commit).

        With a ``slot``, ``response`` replaces the slot's cached response (see :meth:`load`).
        The store keeps ``state`` for as long as a cached response recorded with it is kept.
        With ``expected_digest`` (:func:`basis_digest` of the state and meta the caller holds for
        ``expected_version``), a game whose stored bytes differ at that version is a conflict
        too: the caller's copy may be of an expired game recreated under the same id.

        Raises GameNotFound, DuplicateRequest (request already applied, with the response and
        the state of its commit; checked before the version) or VersionConflict (with the
        game as stored, ``VersionConflict.stored``).
        """
        ...

    async def events_since(self, game_id: str, version: int) -> list[Event]:
        """Return the events tagged with a version greater than ``version``, oldest first."""
        ...

    def subscribe(
        self, game_id: str, skip: Callable[[int], bool] | None = None
    ) -> AbstractAsyncContextManager[VersionQueue]:
        """Return a context manager yielding the stream of newly committed versions.

        The subscription is active once the context is entered, so a caller can enter it, then
        read ``events_since`` and never miss a version. ``skip``, asked as each version is
        published, leaves out those it is true for: the caller has them by other means and is
        not woken for them.
        """
        ...

    async def time(self) -> float:
        """The store's clock in seconds since the epoch (Redis TIME of one fixed node).

        Every replica reads the same clock, so turn deadlines agree across replicas.
        """
        ...

    async def set_deadline(self, game_id: str, version: int, deadline_ms: int | None) -> bool:
        """Index the turn deadline of ``version`` of a game (None: it has none).

        Applied unless the entry was set for a newer version already (then False).
        """
        ...

    async def lower_deadline(self, game_id: str, deadline_ms: int) -> None:
        """Make the game's deadline entry at most ``deadline_ms``, adding it if missing.

        Called before a commit that sets an earlier deadline than the game had, so the index
        never holds a later deadline than the game even if the process dies after the commit.
        """
        ...

    async def forget_deadline(self, game_id: str, deadline_ms: int) -> bool:
        """Drop a vanished game's deadline entry if it still is ``deadline_ms`` (True if so)."""
        ...

    async def due_games(self, shard: int, now_ms: int, limit: int) -> list[tuple[str, int]]:
        """Up to ``limit`` (game id, deadline ms) of deadline shard ``shard`` due by ``now_ms``.

        Shards are ``0 .. DEADLINE_SHARDS - 1``; a game's is ``deadline_shard(game_id)``.
        """
        ...

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
        """List (or refresh) a public game in the lobby until ``expires_ms``, with ``summary``
        (opaque, small): what a lobby page shows of it, so a page reads no game.

        ``live``: on the lobby's second board, of games being played (to watch), kept apart
        from the games waiting for players; every lobby call takes the same flag."""
        ...

    async def unlist_public(self, game_id: str, *, live: bool = False) -> None:
        """Take a game off the lobby (a no-op if it is not listed)."""
        ...

    async def purge_public(self, now_ms: int, limit: int, *, live: bool = False) -> int:
        """Drop up to ``limit`` lobby entries expired by ``now_ms``, oldest expiry first, and
        return how many: the sweepers call it, so the lobby stays bounded with no reader."""
        ...

    async def public_games(
        self,
        preset: str,
        now_ms: int,
        limit: int,
        before: tuple[int, str] | None = None,
        *,
        live: bool = False,
    ) -> list[PublicGame]:
        """Up to ``limit`` listed games (game id, creation ms, summary), newest first, in one
        round trip.

        ``preset`` "" lists all presets; ``before`` is the (creation ms, game id) of the last
        entry of the previous page. Entries expired by ``now_ms`` are never returned nor
        counted, however many there are: the page is short only when no more live entries
        exist (those met may be dropped on the way).
        """
        ...

    async def touch_outbox(self, game_id: str, now_ms: int) -> None:
        """Index the game's webhook outbox as due: before a commit that writes entries, so no
        process death between the two leaves entries nobody looks for."""
        ...

    async def due_outboxes(self, shard: int, now_ms: int, limit: int) -> list[str]:
        """Up to ``limit`` games of outbox shard ``shard`` (``0 .. OUTBOX_SHARDS - 1``) to
        look at by ``now_ms``."""
        ...

    async def claim_outbox(
        self, game_id: str, now_ms: int, lease_ms: int, limit: int, lease: str
    ) -> OutboxClaim:
        """Lease up to ``limit`` of the game's entries due by ``now_ms`` for ``lease_ms`` under
        the token ``lease`` (each claim counts an attempt); and the outbox's next due time."""
        ...

    async def finish_outbox(
        self, game_id: str, entry_id: str, lease: str, retry_at_ms: int | None
    ) -> int | None:
        """Drop a leased entry (``retry_at_ms`` None) or make its next attempt due then; a
        no-op unless the entry is still leased under ``lease``. Returns the next due time."""
        ...

    async def settle_outbox(
        self, game_id: str, next_due_ms: int | None, claimed_ms: int, grace_ms: int
    ) -> None:
        """After a worker's pass over the game (claimed at ``claimed_ms``): index it for
        ``next_due_ms``, or drop it when none is left and no commit touched it within
        ``grace_ms`` before the claim."""

    async def touch_presence(
        self, game_id: str, seat: int | None, connection: str, ttl_s: float, keep_s: float
    ) -> bool:
        """Add or refresh the presence entry of one open stream of ``seat`` (None: of a
        spectator), ``connection`` naming the stream (unique across replicas), until ``ttl_s``
        from now by the store's clock; the game's presence keys live ``keep_s`` after their
        last write. Entries that lapsed are dropped on the way. Returns whether the connected
        seats or the number of spectators changed (a lapsed entry counts); a change is
        announced to the game's subscribers as :data:`~scopa.storage.PRESENCE` (never a
        version: presence does not write the game)."""
        ...

    async def drop_presence(
        self, game_id: str, seat: int | None, connection: str, keep_s: float
    ) -> bool:
        """Drop the entry of a stream that closed (the seat's last-seen time is now); as
        :meth:`touch_presence`, whether that changed the game's presence (then announced)."""
        ...

    async def presence(self, game_id: str) -> Presence:
        """Which seats have an entry that has not lapsed, when each seat was last seen, and
        how many spectators' entries have not lapsed (all empty for an unknown game)."""

    async def load_with_presence(self, game_id: str) -> tuple[Snapshot, Presence]:
        """:meth:`load` (without a request) and :meth:`presence` of the game, read together
        in one round trip (GetState's read; on Redis one script call, the presence keys
        sharing the game's hash tag). Raises GameNotFound as :meth:`load` does."""
        ...

    async def index_owned(
        self,
        owner: str,
        game_id: str,
        status: str,
        created_ms: int,
        expires_ms: int,
        summary: bytes,
    ) -> None:
        """Add (or refresh) a game in ``owner``'s index (a signed-in player's games) until
        ``expires_ms`` (the game's own expiry), with its ``status`` (one of
        ``OWNED_STATUSES``) and ``summary`` (opaque, small). Written beside the game's commit,
        not inside it: on a Redis Cluster each owner's index has its own slot."""
        ...

    async def unindex_owned(self, owner: str, game_id: str) -> None:
        """Drop a game from ``owner``'s index (a no-op if it is not there)."""
        ...

    async def owned_games(
        self,
        owner: str,
        status: str,
        now_ms: int,
        limit: int,
        before: tuple[int, str] | None = None,
    ) -> list[PublicGame]:
        """Up to ``limit`` entries of ``owner``'s index (of ``status``; "" every status),
        newest first, after ``before`` (the (creation ms, game id) of the previous page's last
        entry), in one round trip. Entries expired by ``now_ms`` (their game is gone) are
        never returned nor counted, and are dropped when met."""
        ...

    async def ping(self) -> None:
        """Raise StorageError unless the store is ready."""
        ...

    async def close(self) -> None:
        """Release connections and wake up subscribers."""
        ...
