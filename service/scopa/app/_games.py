"""The read side every use case shares: load a game, decode it once per stored bytes, know
the latest version this replica saw, and refuse a stuck game.

The async shell's one home for what the collaborators (:mod:`._actions`, :mod:`._seating`,
:mod:`._turns`, :mod:`._lobby`, :mod:`._watching`) hold in common: the store, the clock, the
settings, the token authority, the identity verifier and the server's hooks.

Who a caller is (:meth:`Games.caller`): a bearer value that is a JWT
(:func:`scopa.identity.looks_like_jwt`) is a signed-in player, verified and then known only by
its owner digest; any other bearer value is a seat token; none is a spectator.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Final

import structlog

from scopa import rules
from scopa.identity import Identity, KeysUnavailable, TokenRejected, looks_like_jwt
from scopa.storage import GameNotFound, GameStore, Presence, Snapshot

from . import _due, _views
from ._checks import check_game_id
from ._clock import StoreClock
from ._commands import CoreSettings, GameSnapshot
from ._decoded import BoundedMap, DecodedCache
from ._errors import (
    GameNotFoundError,
    GameStuck,
    IdentityInvalid,
    IdentityUnavailable,
    PermissionDenied,
    SeatNotYours,
    SpectatorInviteRequired,
)
from ._eventlog import AppEvent, VersionedEvent, decode_log
from ._meta import GameMeta
from ._tokens import TokenAuthority

__all__ = ["ANONYMOUS", "Caller", "Games", "Hooks", "check_holder"]

_log = structlog.get_logger("scopa.app")

DECODED_CACHE_SIZE: Final = 2048
"""States (and metas) kept decoded per replica: a few KB each, the latest versions of the
games this replica served last."""


LOGS_KEPT: Final = 256
"""Log entries kept decoded per replica: the latest version's of the games moving now."""


def _decode_log(payload: bytes) -> tuple[AppEvent, ...]:
    return tuple(decode_log(payload))


def _nothing(*_: object) -> None:
    return None


@dataclass(frozen=True, slots=True)
class Caller:
    """Who sent a request: a seat token's bearer, a signed-in player, or neither (anonymous)."""

    token: str | None = field(default=None, repr=False)
    """The seat token, unverified (None: none sent, or a signed-in player)."""
    owner: str = field(default="", repr=False)
    """The signed-in player's owner digest (``TokenAuthority.owner_digest``), or empty."""


ANONYMOUS: Final = Caller()

_VERIFIED: ContextVar[tuple[str, Caller, float] | None] = ContextVar("scopa_verified", default=None)
"""An identity token the guard's rate limit verified for this request (a task), who it is and
until when (monotonic) the use case may take it unverified: once, within
:data:`VERIFIED_REUSE_S`, so a token is verified once per request and a long-lived stream's
later calls verify theirs again (an expired token is refused)."""
VERIFIED_REUSE_S: Final = 5.0


@dataclass(frozen=True, slots=True)
class Hooks:
    """What the server counts (metrics) or tells others of: each is called after the fact it
    names."""

    created: Callable[[str], None] = _nothing
    """(preset) once a game is stored."""
    finished: Callable[[str, str], None] = _nothing
    """(preset, finish reason) once a commit ends a game."""
    active: Callable[[str, bool], None] = _nothing
    """(game_id, finished) after each change this process commits."""
    watch: Callable[[int], None] = _nothing
    """+1 when a watch stream opens, -1 when it ends."""
    stuck: Callable[[str], None] = _nothing
    """(preset) once per game this replica finds stuck."""
    bot_queue: Callable[[str, int], None] = _nothing
    """(kind, delta): bot moves ``running`` and ``waiting`` (+1/-1), turns ``deferred`` (+1)."""
    rematch: Callable[[str, str], None] = _nothing
    """(finished game id, rematch game id) once a rematch is linked to its finished game (by
    the replica whose compare-and-set wrote the link: once per rematch)."""


class Games:
    """Loads and decodes games for every use case (shared by the collaborators)."""

    def __init__(
        self,
        store: GameStore,
        tokens: TokenAuthority,
        settings: CoreSettings,
        clock: StoreClock,
        hooks: Hooks,
        identity: Identity | None = None,
    ) -> None:
        self.store = store
        self.tokens = tokens
        self.identity = identity
        self.settings = settings
        self.clock = clock
        self.hooks = hooks
        # Decoded states and metas by their bytes: the read after this replica's own commit
        # (the next seat's move, a watcher) skips decoding (~10% of a PlayCard's CPU).
        self.states = DecodedCache(rules.load_state, DECODED_CACHE_SIZE)
        self.metas = DecodedCache(GameMeta.load, DECODED_CACHE_SIZE)
        # The latest version of each game this replica loaded or committed: a move is tried on
        # it first, in one round trip (see Actions.take_action).
        self.known: BoundedMap[str, Snapshot] = BoundedMap(DECODED_CACHE_SIZE)
        # Log entries' events by their bytes: the events this replica just committed are
        # those its watches of the game (the other seats' sessions) read back from the entry.
        self.logs: DecodedCache[tuple[AppEvent, ...]] = DecodedCache(_decode_log, LOGS_KEPT)
        self._stuck: BoundedMap[str, int] = BoundedMap(DECODED_CACHE_SIZE)
        # Decoded states found not stuck, by id (the state held beside it, so no other object
        # can have that id while the entry lasts): a move's state is looked at by its commit
        # and by every watch of its game, and the check lists the legal actions (~3% of a move).
        self._playable: BoundedMap[int, rules.MatchState] = BoundedMap(DECODED_CACHE_SIZE)

    async def load(
        self, game_id: str, request_id: str | None = None, slot: str | None = None
    ) -> Snapshot:
        """The stored game (with ``request_id``'s cached response in ``slot``, if any)."""
        check_game_id(game_id)
        try:
            snap = await self.store.load(game_id, request_id, slot)
        except GameNotFound:
            raise self._gone(game_id) from None
        self.note(game_id, snap)
        return snap

    async def load_with_presence(self, game_id: str) -> tuple[Snapshot, Presence]:
        """The stored game and its presence, read together (one round trip on Redis)."""
        check_game_id(game_id)
        try:
            snap, presence = await self.store.load_with_presence(game_id)
        except GameNotFound:
            raise self._gone(game_id) from None
        self.note(game_id, snap)
        return snap, presence

    def _gone(self, game_id: str) -> GameNotFoundError:
        """The error of a game the store does not hold (no longer known here either)."""
        self.known.discard(game_id)
        return GameNotFoundError(f"no game games/{game_id}")

    def state(self, game_id: str, snap: Snapshot) -> rules.MatchState:
        """The game's state, unless it is stuck (:func:`scopa.rules.is_stuck`): then
        :class:`GameStuck`, logged with the game and its version, and counted once."""
        state = self.states.load(snap.state)
        if self._playable.get(id(state)) is state:
            return state
        if rules.is_stuck(state):
            if self._stuck.get(game_id) != snap.version:
                self._stuck.put(game_id, snap.version)
                _log.error(
                    "game_stuck",
                    game_id=game_id,
                    version=snap.version,
                    preset=state.ruleset.preset,
                    seat=state.turn,
                )
                self.hooks.stuck(state.ruleset.preset)
            raise GameStuck(
                f"game games/{game_id} awaits seat {state.turn}, which has no legal action at"
                f" version {snap.version}; it cannot go on"
            )
        self._playable.put(id(state), state)
        return state

    def note(self, game_id: str, snap: Snapshot) -> None:
        """Keep ``snap`` as the latest version of the game this replica knows, unless it knows
        a later one (a load can return after this replica's own commit of the next version)."""
        known = self.known.get(game_id)
        if known is None or known.version <= snap.version:
            self.known.put(game_id, snap)

    async def caller(self, bearer: str | None, *, for_request: bool = False) -> Caller:
        """Who sent ``bearer``: a JWT is verified (IDENTITY_INVALID, IDENTITY_UNAVAILABLE),
        a seat token is verified where it is used. ``for_request``: the guard asks ahead of
        the use case, which then takes the verified caller once (see ``_VERIFIED``)."""
        if bearer is None:
            return ANONYMOUS
        if not looks_like_jwt(bearer):
            return Caller(bearer)
        if self.identity is None:
            raise IdentityInvalid("this server takes no identity tokens (no OIDC issuer is set)")
        verified = _VERIFIED.get()
        if verified is not None:
            _VERIFIED.set(None)
            if verified[0] == bearer and time.monotonic() < verified[2]:
                return verified[1]  # verified by this request's rate limit
        try:
            subject = await self.identity.verify(bearer)
        except KeysUnavailable as exc:
            raise IdentityUnavailable(exc.message) from None
        except TokenRejected as exc:
            raise IdentityInvalid(exc.message) from None
        caller = Caller(None, self.tokens.owner_digest(subject.issuer, subject.subject))
        if for_request:
            _VERIFIED.set((bearer, caller, time.monotonic() + VERIFIED_REUSE_S))
        return caller

    def seat_of(
        self, caller: Caller, game_id: str, state: rules.MatchState, meta: GameMeta
    ) -> int | None:
        """The caller's seat (None: a spectator; a signed-in player holding no seat is one)."""
        if caller.owner:
            return meta.owned_seat(caller.owner, state.turn)
        if caller.token is None:
            return None
        seat = self.tokens.verify(caller.token, game_id, meta.tokens_of)
        seat = check_seat(seat, state.ruleset.options.players)
        check_holder(meta, seat, "")
        return seat

    async def token_seat(self, token: str, game_id: str) -> int:
        """The seat ``token`` acts for in the game: no round trip for a token of the game
        itself; another game's token is looked up in the game's meta, which says whose tokens
        act for a rematch's seats (``GameMeta.tokens_of``: never changes once stored)."""
        token_game, seat = self.tokens.identify(token)
        if token_game == game_id:
            return seat
        known = self.known.get(game_id)
        snap = known if known is not None else await self.load(game_id)
        return self.tokens.verify(token, game_id, self.metas.load(snap.meta).tokens_of)

    def viewer_of(
        self, caller: Caller, game_id: str, state: rules.MatchState, meta: GameMeta
    ) -> int | None:
        """The seat a read is for (:meth:`seat_of`; None: a spectator). A spectator of a game
        whose spectators need an invite must bring its spectator token."""
        if caller.token is not None and self.tokens.spectates(caller.token, game_id):
            return None
        seat = self.seat_of(caller, game_id, state, meta)
        if seat is None and meta.spectators_invite:
            raise SpectatorInviteRequired(
                "this game's spectators need its spectator token (ask one of its players)"
            )
        return seat

    async def owned_seat(self, game_id: str, owner: str) -> int:
        """The seat the signed-in ``owner`` acts for in the game (SEAT_NOT_YOURS: none).

        A seat once bound stays its owner's, so the version this replica knows answers when it
        shows exactly one seat of the owner; else the game is loaded."""
        known = self.known.get(game_id)
        if known is not None:
            meta = self.metas.load(known.meta)
            if sum(s.owner == owner for s in meta.seats) == 1:
                return [s.owner for s in meta.seats].index(owner)
        snap = await self.load(game_id)
        meta = self.metas.load(snap.meta)
        seat = meta.owned_seat(owner, self.state(game_id, snap).turn)
        if seat is None:
            raise SeatNotYours("the signed-in player holds no seat of this game")
        return seat

    def is_due(self, state: rules.MatchState, meta: GameMeta) -> bool:
        """Whether the awaited action is due now (by the store's clock)."""
        return _due.is_due(state, meta, self.clock.now_ms())

    def deadline(self, state: rules.MatchState, meta: GameMeta) -> int:
        """When the action awaited in ``state`` is due (0: never), by the store's clock."""
        return _due.deadline(state, meta, self.clock.now_ms(), self.settings)

    def timeout_bot(self, meta: GameMeta) -> str:
        """The level that plays the game's run-out turns."""
        return _due.timeout_bot(meta, self.settings).value

    def snapshot(
        self,
        game_id: str,
        version: int,
        state: rules.MatchState,
        meta: GameMeta,
        seat: int | None,
        shown: tuple[VersionedEvent, ...] | None = None,
    ) -> GameSnapshot:
        """``seat``'s snapshot of the game (see :func:`._views.snapshot`)."""
        snapshot = _views.snapshot(
            game_id, version, state, meta, seat, self.timeout_bot(meta), shown
        )
        if meta.spectators_invite and seat is not None:
            return replace(snapshot, spectator_token=self.tokens.issue_spectator(game_id))
        return snapshot


def check_holder(meta: GameMeta, seat: int, owner: str) -> None:
    """SEAT_NOT_YOURS unless ``seat`` is held by ``owner`` ("": by a seat token)."""
    held_by = meta.seats[seat].owner
    if held_by == owner:
        return
    if owner:
        raise SeatNotYours("this seat belongs to another player")
    raise SeatNotYours("this seat belongs to a signed-in player: sign in as that player")


def check_seat(seat: int, players: int) -> int:
    """``seat``, if the game has it (PERMISSION_DENIED: a token of a larger game's seat)."""
    if seat >= players:
        raise PermissionDenied("this token does not act for this game")
    return seat
