"""The application core: load, apply the rules, save; plus auth, idempotency and live updates.

No transport types here: the gRPC servicer (and later the REST gateway) only convert their
messages into these calls and the results back. Every write is one compare-and-set commit, so
two replicas racing for the same turn cannot both win, and a retried ``request_id`` returns the
first response instead of playing twice.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import hashlib
import hmac
import json
import math
import random
import secrets
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import Any, Final

import structlog
from opentelemetry import trace
from opentelemetry.trace import SpanKind

from scopa import bots, rules
from scopa._spans import LeafSpans
from scopa.storage import (
    DEADLINE_SHARDS,
    RESYNC,
    DuplicateRequest,
    Event,
    GameExists,
    GameNotFound,
    GameStore,
    Snapshot,
    StorageError,
    VersionConflict,
    basis_digest,
)

from ._checks import (
    DEFAULT_FORFEIT_AFTER,
    check_bot,
    check_clock,
    check_display_name,
    check_game_id,
    check_preset,
    check_request_id,
)
from ._clock import StoreClock, TimeoutAction
from ._commands import (
    CoreSettings,
    CreateGameCommand,
    CreateResult,
    GameSnapshot,
    GameStatus,
    JoinResult,
    PlayResult,
    SeatSpec,
)
from ._decoded import BoundedMap, DecodedCache
from ._errors import (
    ConcurrentUpdate,
    GameNotFoundError,
    GameStuck,
    InvalidArgument,
    InviteInvalid,
    PermissionDenied,
    RequestIdReused,
    SeatTaken,
    StackedDecksDisabled,
    StaleEtag,
    Unauthenticated,
    WaitingForPlayers,
    WatchIdle,
)
from ._eventlog import (
    COMPACT,
    AppEvent,
    SeatJoined,
    TurnTimedOut,
    VersionedEvent,
    decode_log,
    decode_response,
    encode_log,
    encode_response,
    visible,
)
from ._meta import GameMeta, SeatMeta
from ._tokens import TokenAuthority
from ._watch import SharedReads, WatchCounter

__all__ = ["GameCore"]

_log = structlog.get_logger("scopa.app")
# --- the core ------------------------------------------------------------------------------


class GameCore:
    """Use cases of the game service, on top of a :class:`GameStore` and the rules."""

    def __init__(
        self,
        store: GameStore,
        tokens: TokenAuthority,
        settings: CoreSettings | None = None,
        rng: random.Random | None = None,
        on_game_created: Callable[[str], None] | None = None,
        on_game_finished: Callable[[str, str], None] | None = None,
        on_game_active: Callable[[str, bool], None] | None = None,
        on_watch: Callable[[int], None] | None = None,
        on_game_stuck: Callable[[str], None] | None = None,
        tracer_provider: trace.TracerProvider | None = None,
        clock: StoreClock | None = None,
    ) -> None:
        self._store = store
        self._clock = clock or StoreClock()
        self._tokens = tokens
        self._settings = settings or CoreSettings()
        self._rng = rng or random.SystemRandom()
        self._on_created = on_game_created or (lambda preset: None)
        self._on_finished = on_game_finished or (lambda preset, reason: None)
        # (game_id, finished) after each change this process commits; +1/-1 per watch stream.
        self._on_active = on_game_active or (lambda game_id, finished: None)
        self._on_watch = on_watch or (lambda delta: None)
        # (preset) once per game this replica finds stuck (see _state).
        self._on_stuck = on_game_stuck or (lambda preset: None)
        self._stuck: BoundedMap[str, int] = BoundedMap(_DECODED_CACHE_SIZE)
        self._tracer = trace.get_tracer("scopa.app", tracer_provider=tracer_provider)
        self._leaves = LeafSpans(self._tracer)
        self._watchers = WatchCounter(self._settings.watch_per_client)
        self._watch_reads: SharedReads[tuple[Snapshot, list[Event]]] = SharedReads(
            self._settings.watch_read_concurrency
        )
        # Decoded states and metas by their bytes: the read after this replica's own commit
        # (the next seat's move, a watcher) skips decoding (~10% of a PlayCard's CPU).
        self._states = DecodedCache(rules.load_state, _DECODED_CACHE_SIZE)
        self._metas = DecodedCache(GameMeta.load, _DECODED_CACHE_SIZE)
        # The latest version of each game this replica loaded or committed: a move is tried on
        # it first, in one round trip (see _take_on_known).
        self._known: BoundedMap[str, Snapshot] = BoundedMap(_DECODED_CACHE_SIZE)
        # A seat's snapshot by everything it is derived from (see get_state).
        self._snapshots: BoundedMap[_SnapshotKey, GameSnapshot] = BoundedMap(_DECODED_CACHE_SIZE)

    # -- helpers --

    def _due(self, state: rules.MatchState, meta: GameMeta) -> bool:
        """Whether the awaited action is due now: a bot's turn, or a person's run-out clock."""
        if state.finished or meta.waiting:
            return False
        if meta.seats[_awaited_seat(state)].bot:
            return True
        return bool(meta.deadline_ms) and self._clock.now_ms() >= meta.deadline_ms

    def _deadline(self, state: rules.MatchState, meta: GameMeta) -> int:
        """When the action awaited in ``state`` is due (0: never): a bot's turn after the grace
        (should its replica die before playing), a person's when the turn clock runs out."""
        if state.finished or meta.waiting:
            return 0
        if meta.seats[_awaited_seat(state)].bot:
            wait = self._settings.bot_budget.seconds + self._settings.bot_grace_s
            return self._clock.now_ms() + round(wait * 1000)
        if meta.turn_timeout_s:
            return self._clock.now_ms() + meta.turn_timeout_s * 1000
        return 0

    async def _advance(
        self, game_id: str, version: int, state: rules.MatchState, meta: GameMeta
    ) -> tuple[int, rules.MatchState, GameMeta]:
        """Take every action now due, each one commit (compare-and-set) after the last.

        Due are a bot seat's turn, and a person's turn whose clock ran out (the timeout bot
        plays it, or the seat forfeits). A lost race means another replica acted: stop, its
        commit stands, and the game is read again. Returns the game's latest version, state
        and meta.
        """
        for _ in range(_MAX_BOT_TURNS):
            if not self._due(state, meta):
                break
            seat = _awaited_seat(state)
            level = meta.seats[seat].bot
            events: list[AppEvent]
            if level:
                new_state, played = await self._bot_turn(game_id, state, seat, bots.Level(level))
                events, new_meta = list(played), meta
            else:
                new_state, events, new_meta = await self._time_out(game_id, state, meta, seat)
            try:
                result, committed = await self._commit(
                    game_id, version, new_state, new_meta, seat, events, None, b""
                )
            except ConcurrentUpdate:
                snap = await self._load(game_id)
                return snap.version, self._state(game_id, snap), self._metas.load(snap.meta)
            assert committed is not None  # no request_id, so never a replay
            version, state, meta = result.snapshot.version, new_state, committed
            counter = _ACTED.get()
            if counter is not None:
                counter[0] += 1
            if not level:  # logged once committed: a replica that lost the race took nothing
                timeouts = meta.seats[seat].timeouts
                forfeit = meta.resigned == seat
                _log.info(
                    "turn_timed_out", game_id=game_id, seat=seat, timeouts=timeouts, forfeit=forfeit
                )
        return version, state, meta

    async def _time_out(
        self, game_id: str, state: rules.MatchState, meta: GameMeta, seat: int
    ) -> tuple[rules.MatchState, list[AppEvent], GameMeta]:
        """A person's clock ran out: the timeout bot plays for the seat, or the seat forfeits."""
        meta = meta.with_timeout(seat)
        count = meta.seats[seat].timeouts
        limit = meta.forfeit_after or DEFAULT_FORFEIT_AFTER
        if meta.on_timeout == TimeoutAction.FORFEIT and count >= limit:
            new_state, events = rules.resign(state, seat)
            timed_out = TurnTimedOut(seat, count, True, "")
            return new_state, [timed_out, *events], replace(meta, resigned=seat)
        level = self._timeout_bot(meta)
        new_state, events = await self._bot_turn(game_id, state, seat, level)
        return new_state, [TurnTimedOut(seat, count, False, level.value), *events], meta

    def _timeout_bot(self, meta: GameMeta) -> bots.Level:
        """The bot that plays a timed-out person's turn: the game's own, else the server's."""
        return bots.Level(meta.timeout_bot) if meta.timeout_bot else self._settings.timeout_bot

    async def _bot_turn(
        self, game_id: str, state: rules.MatchState, seat: int, level: bots.Level
    ) -> tuple[rules.MatchState, list[rules.Event]]:
        """The bot's action, chosen from its seat's view only, applied by the rules."""
        with self._tracer.start_as_current_span("scopa.bot.choose") as span:
            span.set_attribute("scopa.game_id", game_id)
            span.set_attribute("scopa.seat", seat)
            span.set_attribute("scopa.bot", level.value)
            rng = random.Random(self._rng.getrandbits(64))
            view = rules.observe(state, seat)
            budget = self._settings.bot_budget
            try:
                action = await asyncio.to_thread(bots.choose, view, rng, budget, level)
            except Exception:
                # A bot's fault must not fail the person's request nor stall the game: play a
                # random legal action instead (logged without locals, so without cards).
                _log.exception("bot_failed", game_id=game_id, seat=seat, level=level.value)
                action = bots.choose(view, rng, budget, bots.Level.RANDOM)
            return rules.apply_action(state, seat, action, self._rng)

    def _seat_of(self, token: str | None, game_id: str, players: int) -> int | None:
        if token is None:
            return None
        return self._check_seat(self._tokens.verify(token, game_id), players)

    @staticmethod
    def _check_seat(seat: int, players: int) -> int:
        if seat >= players:
            raise PermissionDenied("this token does not act for this game")
        return seat

    def _ttl(self, state: rules.MatchState, meta: GameMeta) -> float:
        s = self._settings
        if state.finished:
            return s.finished_ttl_s
        return s.waiting_ttl_s if meta.waiting else s.active_ttl_s

    async def _load(
        self, game_id: str, request_id: str | None = None, slot: str | None = None
    ) -> Snapshot:
        check_game_id(game_id)
        try:
            snap = await self._store.load(game_id, request_id, slot)
        except GameNotFound:
            self._known.discard(game_id)
            raise GameNotFoundError(f"no game games/{game_id}") from None
        self._note(game_id, snap)
        return snap

    def _state(self, game_id: str, snap: Snapshot) -> rules.MatchState:
        """The game's state, unless it is stuck (:func:`scopa.rules.is_stuck`): then
        :class:`GameStuck`, logged with the game and its version, and counted once."""
        state = self._states.load(snap.state)
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
                self._on_stuck(state.ruleset.preset)
            raise GameStuck(
                f"game games/{game_id} awaits seat {state.turn}, which has no legal action at"
                f" version {snap.version}; it cannot go on"
            )
        return state

    def _note(self, game_id: str, snap: Snapshot) -> None:
        """Keep ``snap`` as the latest version of the game this replica knows, unless it knows
        a later one (a load can return after this replica's own commit of the next version)."""
        known = self._known.get(game_id)
        if known is None or known.version <= snap.version:
            self._known.put(game_id, snap)

    def _snapshot(
        self,
        game_id: str,
        version: int,
        state: rules.MatchState,
        meta: GameMeta,
        seat: int | None,
        shown: tuple[VersionedEvent, ...] | None = None,
    ) -> GameSnapshot:
        """The caller's snapshot; ``shown``: meta.last_events already decoded for ``seat``."""
        if state.finished:
            status = GameStatus.FINISHED
        elif meta.waiting:
            status = GameStatus.WAITING_FOR_PLAYERS
        else:
            status = GameStatus.ACTIVE
        view = rules.observe(state, seat)
        if status is GameStatus.WAITING_FOR_PLAYERS:
            view = view._replace(legal_moves=())
        public = tuple(
            SeatMeta(s.name, s.open, s.joined, bot=s.bot, timeouts=s.timeouts) for s in meta.seats
        )
        last: tuple[VersionedEvent, ...] = () if shown is None else shown
        if meta.last_events and shown is None:
            last = tuple(
                VersionedEvent(version, e) for e in visible(decode_log(meta.last_events), seat)
            )
        clocked = status is GameStatus.ACTIVE and meta.turn_timeout_s > 0
        return GameSnapshot(
            game_id,
            version,
            status,
            public,
            view,
            last,
            meta.resigned,
            deadline_ms=meta.deadline_ms if clocked else 0,
            turn_timeout_s=meta.turn_timeout_s,
            public=meta.public,
            created_ms=meta.created_ms,
            timeout_bot=self._timeout_bot(meta).value if meta.turn_timeout_s else "",
        )

    # -- use cases --

    @staticmethod
    def list_rulesets() -> tuple[tuple[rules.Preset, ...], tuple[rules.OptionInfo, ...]]:
        """Every preset and every option, for a "new game" form."""
        return tuple(rules.PRESETS.values()), rules.list_options()

    async def create_game(self, cmd: CreateGameCommand) -> CreateResult:
        """Create a game; seats not marked open are held by the creator and get tokens."""
        request_id = check_request_id(cmd.request_id)
        check_preset(cmd.preset)
        overrides: dict[str, Any] = dict(cmd.options)
        if cmd.first_dealer is not None:
            overrides["first_dealer"] = cmd.first_dealer
        if cmd.seats:
            overrides.setdefault("players", len(cmd.seats))
        ruleset = rules.make_ruleset(cmd.preset, overrides)
        players = ruleset.options.players
        specs = list(cmd.seats) or [SeatSpec(f"Player {i + 1}") for i in range(players)]
        if len(specs) != players:
            raise InvalidArgument(f"this ruleset needs {players} seats", field="seats")
        for i, spec in enumerate(specs):
            check_display_name(spec.name, f"seats[{i}].display_name")
            check_bot(spec, f"seats[{i}].bot")
        check_clock(cmd)
        if cmd.stacked_decks and not self._settings.allow_stacked_decks:
            raise StackedDecksDisabled("this server does not accept stacked decks")
        decks = tuple(
            rules.check_deck(d, f"stacked_decks[{i}]", ruleset.options.deck_size)
            for i, d in enumerate(cmd.stacked_decks)
        )
        state, events = rules.new_match(ruleset, rng=self._rng, decks=decks)

        game_id = self._tokens.derive_game_id(request_id) if request_id else _new_id()
        seats: list[SeatMeta] = []
        invites: list[tuple[int, str]] = []
        for seat, spec in enumerate(specs):
            if spec.open:
                code, digest = self._tokens.new_invite(game_id, seat, request_id)
                invites.append((seat, code))
                seats.append(SeatMeta(spec.name, True, False, digest))
            elif spec.bot:
                seats.append(SeatMeta(spec.name or f"Bot {seat + 1}", False, True, bot=spec.bot))
            else:
                seats.append(SeatMeta(spec.name or f"Player {seat + 1}", False, True))
        meta = GameMeta(
            tuple(seats),
            last_events=encode_log(events),
            turn_timeout_s=cmd.turn_timeout_s,
            on_timeout=cmd.on_timeout or TimeoutAction.BOT,
            forfeit_after=cmd.forfeit_after,
            public=cmd.public,
            created_ms=self._clock.now_ms(),
            timeout_bot=cmd.timeout_bot,
        )
        meta = replace(meta, deadline_ms=self._deadline(state, meta))
        tokens = tuple(
            (s, self._tokens.issue(game_id, s, request_id))
            for s in range(players)
            if not specs[s].open and not specs[s].bot
        )
        # Tokens and invites are derived from the request_id, so nothing secret is stored; the
        # first request's digest lets a retry prove it is the same request.
        response = _create_digest(cmd)
        state_blob, meta_blob = rules.dump_state(state), meta.dump()
        with self._tracer.start_as_current_span("scopa.create_game") as span:
            span.set_attribute("scopa.game_id", game_id)
            span.set_attribute("scopa.preset", ruleset.preset)
            span.set_attribute("scopa.players", players)
            if meta.deadline_ms:
                await self._store.lower_deadline(game_id, meta.deadline_ms)
            try:
                result = await self._store.create(
                    game_id,
                    state_blob,
                    meta_blob,
                    [meta.last_events],
                    self._ttl(state, meta),
                    request_id,
                    response,
                )
            except GameExists:
                raise ConcurrentUpdate("a game with this id already exists; retry") from None
        if not result.created:
            # A retried create: the same request gets the same game, credentials and invites.
            if not hmac.compare_digest(result.response or b"", response):
                raise RequestIdReused("request_id was already used for a different CreateGame")
            snap = await self._load(game_id)
            stored_state = self._state(game_id, snap)
            stored_meta = self._metas.load(snap.meta)
            first_seat = tokens[0][0] if tokens else None
            return CreateResult(
                game_id,
                tokens,
                tuple(invites),
                self._snapshot(game_id, snap.version, stored_state, stored_meta, first_seat),
            )
        self._states.remember(state_blob, state)
        self._metas.remember(meta_blob, meta)
        self._note(game_id, Snapshot(state_blob, meta_blob, result.version))
        self._on_created(ruleset.preset)
        self._on_active(game_id, False)
        _log.info("game_created", game_id=game_id, preset=ruleset.preset, players=players)
        await self._indexed(game_id, result.version, GameMeta(()), state, meta)
        first_seat = tokens[0][0] if tokens else None
        version, state, meta = await self._advance(game_id, result.version, state, meta)
        return CreateResult(
            game_id,
            tokens,
            tuple(invites),
            self._snapshot(game_id, version, state, meta, first_seat),
        )

    async def get_state(self, game_id: str, token: str | None) -> GameSnapshot:
        """The game as the token's seat (or a spectator, without a token) may see it.

        A snapshot depends only on the stored state and meta bytes, the version and the seat,
        so a read of an unchanged game by the same seat (a client polling between moves) gets
        the snapshot built for the first one, the very same object (transports may then reuse
        what they built from it) while nothing is due; a read that takes a due turn (a bot's,
        a run-out clock's) is never kept.
        """
        snap = await self._load(game_id)
        state = self._state(game_id, snap)
        seat = self._seat_of(token, game_id, state.ruleset.options.players)
        meta = self._metas.load(snap.meta)
        key = (game_id, seat, snap.version, snap.state, snap.meta)
        if not self._due(state, meta):
            kept = self._snapshots.get(key)
            if kept is not None:
                return kept
        version, state, meta = await self._advance(game_id, snap.version, state, meta)
        snapshot = self._snapshot(game_id, version, state, meta, seat)
        if version == snap.version:
            self._snapshots.put(key, snapshot)
        return snapshot

    async def play_card(
        self,
        game_id: str,
        token: str | None,
        move: rules.Move,
        etag: str = "",
        request_id: str = "",
    ) -> PlayResult:
        """Play ``move`` for the token's seat (the common case of :meth:`take_action`)."""
        return await self.take_action(game_id, token, move, etag, request_id)

    async def take_action(
        self,
        game_id: str,
        token: str | None,
        action: rules.Action,
        etag: str = "",
        request_id: str = "",
    ) -> PlayResult:
        """Take ``action`` (a play, a declaration, ...) for the token's seat: one load, the
        rules' action table, one compare-and-set."""
        playing = isinstance(action, rules.Move)
        doing = "playing a card" if playing else "taking an action"
        fingerprint = _fingerprint("TakeAction", _canonical(action), etag)
        name = "scopa.engine.apply_move" if playing else "scopa.engine.apply_action"
        seat, rid = self._writer(game_id, token, request_id, doing)
        known: Snapshot | None = self._known.get(game_id)
        if known is not None:
            taken = await self._take_on_known(
                known, game_id, seat, action, name, etag, rid, fingerprint
            )
            if isinstance(taken, PlayResult):
                return taken
            known = taken
        loaded = await self._seat_write(game_id, seat, rid, fingerprint, known)
        if isinstance(loaded, PlayResult):
            return loaded
        if self._due(loaded[1], loaded[2]):
            # An overdue turn (a clock that ran out, an unplayed bot turn) is taken first; the
            # action then meets the game as it is after it (e.g. NOT_YOUR_TURN).
            await self._advance(game_id, loaded[0].version, loaded[1], loaded[2])
            loaded = await self._seat_write(game_id, seat, rid, fingerprint)
            if isinstance(loaded, PlayResult):
                return loaded
        snap, state, meta = loaded
        if etag and etag != f"v{snap.version}":
            raise StaleEtag(f"etag {etag} is stale; the game is at v{snap.version}")
        if meta.waiting and not state.finished:
            raise WaitingForPlayers("the game is waiting for players to join")
        return await self._take(snap, state, meta, game_id, seat, action, name, rid, fingerprint)

    async def _take_on_known(
        self,
        known: Snapshot,
        game_id: str,
        seat: int,
        action: rules.Action,
        name: str,
        etag: str,
        rid: str | None,
        fingerprint: bytes,
    ) -> PlayResult | Snapshot | None:
        """Take the action on the latest version of the game this replica knows, without a
        load: its commit names that version and the digest of its bytes, so it applies only
        if that version is still the game's, and the outcome is the one a load would have led
        to. Returns the result; else (nothing written) the game as the failed commit found it,
        or None where the caller must load it (a refusal, a retried request, an action due
        first: the usual path decides those, on the game as stored).
        """
        state = self._state(game_id, known)
        meta = self._metas.load(known.meta)
        if (
            seat >= state.ruleset.options.players
            or (etag and etag != f"v{known.version}")
            or (meta.waiting and not state.finished)
            or self._due(state, meta)
        ):
            return None
        try:
            return await self._take(
                known, state, meta, game_id, seat, action, name, rid, fingerprint, basis=known
            )
        except _NotLatest as stale:
            return stale.stored

    async def _take(
        self,
        snap: Snapshot,
        state: rules.MatchState,
        meta: GameMeta,
        game_id: str,
        seat: int,
        action: rules.Action,
        name: str,
        rid: str | None,
        fingerprint: bytes,
        basis: Snapshot | None = None,
    ) -> PlayResult:
        """Apply the action to ``state`` (of ``snap``), commit it, then take what is due.

        With ``basis`` (the known version, not loaded for this request) nothing but a commit
        that applied counts: a refusal by the rules or a failed commit raises _NotLatest, and
        the engine span is recorded only once the commit applied (the usual path records its
        own). Without, a refused action gets its span from the tracer, with the exception
        event and the error status.
        """
        attributes = _engine_attributes(game_id, state, seat)
        start = time.time_ns()
        try:
            new_state, events = rules.apply_action(state, seat, action, self._rng)
        except Exception as exc:
            if basis is not None:  # refused on the known copy: decided again on the stored game
                raise _NotLatest(None) from None
            _failed(self._tracer.start_span(name, attributes=attributes, start_time=start), exc)
            raise
        end = time.time_ns()
        _engine_outcome(attributes, events, new_state)
        if basis is None:  # a leaf span, recorded once the engine is done (LeafSpans)
            self._leaves.ended(name, SpanKind.INTERNAL, attributes, start, end)
        result, committed = await self._commit(
            game_id, snap.version, new_state, meta, seat, events, rid, fingerprint, str(seat), basis
        )
        if basis is not None:
            self._leaves.ended(name, SpanKind.INTERNAL, attributes, start, end)
        if committed is not None:  # None: a replay, which never comes with a basis
            await self._advance(game_id, result.snapshot.version, new_state, committed)
        return result

    async def resign(self, game_id: str, token: str | None, request_id: str = "") -> PlayResult:
        """The token's seat resigns: the game ends and the other sides win."""
        fingerprint = _fingerprint("ResignGame")
        seat, rid = self._writer(game_id, token, request_id, "resigning")
        loaded = await self._seat_write(game_id, seat, rid, fingerprint)
        if isinstance(loaded, PlayResult):
            return loaded
        snap, state, meta = loaded
        new_state, events = rules.resign(state, seat)
        meta = replace(meta, resigned=seat)
        result, _ = await self._commit(
            game_id, snap.version, new_state, meta, seat, events, rid, fingerprint, str(seat)
        )
        return result

    def _writer(
        self, game_id: str, token: str | None, request_id: str, action: str
    ) -> tuple[int, str | None]:
        """The token's seat and the checked request id of a write (no round trip)."""
        rid = check_request_id(request_id)
        if token is None:
            raise Unauthenticated(f"{action} needs a seat token")
        check_game_id(game_id)
        return self._tokens.verify(token, game_id), rid

    async def _seat_write(
        self,
        game_id: str,
        seat: int,
        rid: str | None,
        fingerprint: bytes,
        stored: Snapshot | None = None,
    ) -> PlayResult | tuple[Snapshot, rules.MatchState, GameMeta]:
        """Load the game for a write by ``seat`` (one round trip; none when ``stored`` is the
        game as a failed commit of this request found it, so not a retry of it).

        Returns the first response when ``rid`` is the seat's latest request (each seat keeps
        one cached response), else what the write needs: the snapshot, the state and the meta.
        """
        snap = stored or await self._load(game_id, rid, str(seat) if rid else None)
        state = self._state(game_id, snap)
        self._check_seat(seat, state.ruleset.options.players)
        meta = self._metas.load(snap.meta)
        if snap.cached_response is not None:
            return self._replayed(
                game_id, seat, snap.cached_response, snap.cached_state, meta, fingerprint
            )
        return snap, state, meta

    async def _commit(
        self,
        game_id: str,
        version: int,
        state: rules.MatchState,
        meta: GameMeta,
        seat: int,
        events: Sequence[AppEvent],
        request_id: str | None,
        fingerprint: bytes,
        slot: str | None = None,
        basis: Snapshot | None = None,
    ) -> tuple[PlayResult, GameMeta | None]:
        """Compare-and-set ``state`` at ``version`` + 1; the result and the meta as committed
        (None when ``request_id`` was committed already: the result is the first response, and
        ``state`` is not the game's, so nothing may be built on it).

        ``basis``: the stored game ``state`` was derived from, as this replica last knew it
        (not loaded for this request): the commit names its digest too, and raises _NotLatest
        instead of a conflict or a replay (the caller decides again on the stored game).

        The meta gets the new version's deadline; the deadline index is lowered before the
        commit when the deadline comes sooner (so no process death leaves it late) and set
        exactly after it.
        """
        new_version = version + 1
        blob = rules.dump_state(state)
        log = encode_log(events)
        before = meta
        meta = replace(meta, last_events=log, deadline_ms=self._deadline(state, meta))
        if meta.deadline_ms and not 0 < before.deadline_ms <= meta.deadline_ms:
            await self._store.lower_deadline(game_id, meta.deadline_ms)
        meta_blob = meta.dump()
        response = None
        if request_id:
            # Without the state: the store keeps the state of this version for as long as it
            # keeps the response (Snapshot.cached_state, DuplicateRequest.state).
            response = _FINGERPRINTED + fingerprint + encode_response(seat, new_version, log)
        try:
            await self._store.commit(
                game_id,
                version,
                blob,
                meta_blob,
                [log],
                self._ttl(state, meta),
                request_id,
                response,
                slot,
                None if basis is None else basis_digest(basis.state, basis.meta),
            )
        except VersionConflict as conflict:
            if conflict.stored is not None:
                self._note(game_id, conflict.stored)
            if basis is not None:
                raise _NotLatest(conflict.stored) from None
            raise ConcurrentUpdate("another move was made at the same time; reload") from None
        except DuplicateRequest as dup:
            if basis is not None:
                raise _NotLatest(None) from None
            replayed = self._replayed(game_id, seat, dup.response, dup.state, before, fingerprint)
            return replayed, None
        except GameNotFound:
            self._known.discard(game_id)
            raise GameNotFoundError(f"no game games/{game_id}") from None
        self._states.remember(blob, state)
        self._metas.remember(meta_blob, meta)
        self._known.put(game_id, Snapshot(blob, meta_blob, new_version))
        if state.finished:
            self._on_finished(state.ruleset.preset, state.finish_reason.value)
        self._on_active(game_id, state.finished)
        await self._indexed(game_id, new_version, before, state, meta)
        return self._result(game_id, seat, new_version, state, meta, events), meta

    async def _indexed(
        self,
        game_id: str,
        version: int,
        before: GameMeta,
        state: rules.MatchState,
        meta: GameMeta,
    ) -> None:
        """Bring the deadline index and the lobby up to a committed version (best effort).

        The commit stands whatever happens here: a failed deadline update leaves an entry that
        is never later than the game's deadline (``lower_deadline`` ran before the commit), which
        the sweeper then corrects; a lobby entry of a game no longer waiting is dropped when
        ListGames meets it.
        """
        try:
            if before.deadline_ms or meta.deadline_ms:
                await self._store.set_deadline(game_id, version, meta.deadline_ms or None)
            if meta.public and (before.waiting or not before.seats):
                if meta.waiting and not state.finished:
                    expires = self._clock.now_ms() + round(self._settings.waiting_ttl_s * 1000)
                    await self._store.list_public(
                        game_id, state.ruleset.preset, meta.created_ms, expires
                    )
                else:
                    await self._store.unlist_public(game_id)
        except StorageError:
            _log.warning("index_update_failed", game_id=game_id, version=version)

    def _result(
        self,
        game_id: str,
        seat: int,
        version: int,
        state: rules.MatchState,
        meta: GameMeta,
        events: Sequence[AppEvent],
    ) -> PlayResult:
        # meta.last_events is the log entry of ``events``: no need to decode it again.
        shown = tuple(VersionedEvent(version, e) for e in visible(events, seat))
        return PlayResult(shown, self._snapshot(game_id, version, state, meta, seat, shown))

    def _replayed(
        self,
        game_id: str,
        seat: int,
        cached: bytes,
        cached_state: bytes | None,
        meta: GameMeta,
        fingerprint: bytes,
    ) -> PlayResult:
        """The first response to a retried request, rebuilt from the cached response and the
        state of its version (kept by the store, or inside a response of an earlier build)."""
        if cached.startswith(_FINGERPRINTED):
            size = len(_FINGERPRINTED) + len(fingerprint)
            if not hmac.compare_digest(cached[len(_FINGERPRINTED) : size], fingerprint):
                raise RequestIdReused("request_id was already used for another request")
            cached = cached[size:]
        first_seat, version, state_blob, events = decode_response(cached)
        if first_seat != seat:
            raise InvalidArgument("request_id was already used by another seat", field="request_id")
        state_blob = state_blob if state_blob is not None else cached_state
        if state_blob is None:
            raise rules.InvalidState("a cached response without the state of its version")
        state = rules.load_state(state_blob)
        # _result shows the replayed version's events as last_events, not the latest version's.
        return self._result(game_id, seat, version, state, meta, events)

    async def join_game(
        self, game_id: str, invite_code: str, name: str, request_id: str = ""
    ) -> JoinResult:
        """Claim the open seat that ``invite_code`` was issued for (of a public game: without a
        code, its lowest open seat)."""
        rid = check_request_id(request_id)
        check_display_name(name, "display_name")
        snap = await self._load(game_id, rid)
        state = self._state(game_id, snap)
        meta = self._metas.load(snap.meta)
        fingerprint = _fingerprint("JoinGame", invite_code, name)
        if invite_code or not meta.public:
            seat = self._invited_seat(game_id, meta, invite_code)
        elif snap.cached_response is not None:
            seat = _cached_seat(snap.cached_response, fingerprint)
        else:
            seat = _open_seat(meta, state)
        if snap.cached_response is not None:
            # Before the GAME_OVER check: a retry after the game ended gets its first response.
            replay = self._replayed(
                game_id, seat, snap.cached_response, snap.cached_state, meta, fingerprint
            )
            return JoinResult(seat, self._tokens.issue(game_id, seat, rid), replay.snapshot)
        if state.finished:
            raise rules.GameOver("the game is over")
        if meta.seats[seat].joined:
            raise SeatTaken("that seat was already claimed")
        meta = meta.with_joined(seat, name)
        events: list[AppEvent] = [SeatJoined(seat, meta.seats[seat].name)]
        result, committed = await self._commit(
            game_id, snap.version, state, meta, seat, events, rid, fingerprint
        )
        if committed is not None:
            await self._advance(game_id, result.snapshot.version, state, committed)
        return JoinResult(seat, self._tokens.issue(game_id, seat, rid), result.snapshot)

    async def sweep_game(self, game_id: str, deadline_ms: int) -> bool:
        """Take a game's overdue action if it still is due (a sweeper found its index entry).

        Every replica's sweeper may find the same entry: the commit is a compare-and-set, so
        exactly one of them acts. A game that is gone loses its entry; one not due (the entry
        was early) gets its entry set to its real deadline. Returns whether this call acted.
        """
        try:
            snap = await self._store.load(game_id)
        except GameNotFound:
            await self._store.forget_deadline(game_id, deadline_ms)
            return False
        try:
            state = self._state(game_id, snap)
        except GameStuck:  # logged and counted: no sweep can take a turn that has no action
            await self._store.forget_deadline(game_id, deadline_ms)
            return False
        meta = self._metas.load(snap.meta)
        acted = [0]
        reset = _ACTED.set(acted)
        try:
            version, _, meta = await self._advance(game_id, snap.version, state, meta)
        finally:
            _ACTED.reset(reset)
        if version == snap.version:
            await self._store.set_deadline(game_id, version, meta.deadline_ms or None)
        return acted[0] > 0

    async def sync_clock(self) -> bool:
        """Measure the offset of this replica's clock to the store's (see :class:`StoreClock`)."""
        return await self._clock.sync(self._store)

    async def due_games(self, limit: int) -> list[tuple[str, int]]:
        """Index entries due by the store's clock now, from every deadline shard (for a sweep)."""
        now = self._clock.now_ms()
        shards = list(range(DEADLINE_SHARDS))
        self._rng.shuffle(shards)  # replicas start their scans at different shards
        due: list[tuple[str, int]] = []
        for shard in shards:
            due += await self._store.due_games(shard, now, limit)
        return due

    async def list_games(
        self, preset: str, page_size: int, page_token: str
    ) -> tuple[list[GameSnapshot], str]:
        """Public games waiting for players, newest first, as a spectator sees them (AIP-158).

        Returns one page and the token of the next ("" on the last page). A listed game that is
        gone or no longer waiting leaves the lobby here.
        """
        if preset and preset not in rules.PRESETS:
            raise InvalidArgument(f"unknown preset {preset!r}", field="preset")
        if page_size < 0:
            raise InvalidArgument("page_size must not be negative", field="page_size")
        size = min(page_size or _DEFAULT_PAGE_SIZE, _MAX_PAGE_SIZE)
        cursor = _read_page_token(page_token, preset)
        rows = await self._store.public_games(preset, self._clock.now_ms(), size + 1, cursor)
        more = len(rows) > size
        rows = rows[:size]
        loaded = await asyncio.gather(*(self._listed(game_id) for game_id, _ in rows))
        games = [game for game in loaded if game is not None]
        token = _page_token(preset, rows[-1][1], rows[-1][0]) if more and rows else ""
        return games, token

    async def _listed(self, game_id: str) -> GameSnapshot | None:
        """A lobby entry's spectator snapshot; None (and off the lobby) when no longer open."""
        try:
            snap = await self._store.load(game_id)
        except GameNotFound:
            await self._store.unlist_public(game_id)
            return None
        state = self._states.load(snap.state)
        meta = self._metas.load(snap.meta)
        if state.finished or not meta.waiting:
            await self._store.unlist_public(game_id)
            return None
        return self._snapshot(game_id, snap.version, state, meta, None)

    def _invited_seat(self, game_id: str, meta: GameMeta, code: str) -> int:
        if not code:
            raise InvalidArgument("invite_code is required", field="invite_code")
        for seat, s in enumerate(meta.seats):
            if (
                s.open
                and s.invite_digest
                and _same(s.invite_digest, self._tokens.invite_digest(game_id, seat, code))
            ):
                return seat
        raise InviteInvalid("this invite code opens no seat of this game")

    @asynccontextmanager
    async def _watching(self) -> AsyncIterator[None]:
        """Count one open watch stream (``on_watch``) for as long as the block runs."""
        self._on_watch(1)
        try:
            yield
        finally:
            self._on_watch(-1)

    async def watch(
        self, game_id: str, token: str | None, from_version: int = 0, client: str = ""
    ) -> AsyncGenerator[PlayResult, None]:
        """Updates after ``from_version``: first what was missed, then each new version live.

        ``from_version`` 0 starts from the current state with no past events; the first
        message always carries the current view. The stream ends after the game is over; it
        fails with WATCH_IDLE after ``watch_idle_s`` without a new version, with
        GAME_NOT_FOUND once the game expired, and ``client`` (its address) may hold at most
        ``watch_per_client`` streams (TOO_MANY_WATCHES).
        """
        check_game_id(game_id)
        snap, _ = await self._watch_reads.read(
            (game_id, None, RESYNC), _now(), lambda: self._watched(game_id, None)
        )
        state = self._state(game_id, snap)
        seat = self._seat_of(token, game_id, state.ruleset.options.players)
        if not 0 <= from_version <= snap.version:
            raise InvalidArgument(
                f"from_version must be between 0 and the game's version {snap.version}",
                field="from_version",
            )
        with self._watchers.admit(client):
            async with self._watching(), self._store.subscribe(game_id) as versions:
                first = await self._catch_up(game_id, seat, from_version or None, RESYNC, True)
                assert first is not None
                update, last, done, due_at = first
                yield update
                if done:
                    return
                notices = aiter(versions)
                idle_until = _now() + self._settings.watch_idle_s
                while True:
                    version = await self._next_notice(notices, min(idle_until, due_at))
                    if version is None:
                        return  # the store is closing
                    if version != RESYNC and version <= last:
                        continue
                    caught = await self._catch_up(game_id, seat, last, version)
                    if caught is None:
                        if _now() >= due_at:  # not taken yet (a rounding early): look again soon
                            due_at = _now() + _DUE_RETRY_S
                        if _now() >= idle_until:
                            raise WatchIdle(
                                f"no new version for {self._settings.watch_idle_s:g} s; "
                                f"watch again from version {last} to resume"
                            )
                        continue
                    update, last, done, due_at = caught
                    yield update
                    if done:
                        return
                    idle_until = _now() + self._settings.watch_idle_s

    async def _next_notice(self, notices: AsyncIterator[int], probe_by: float) -> int | None:
        """The next notified version; RESYNC when a probe is due (every ``watch_probe_s``, and
        at ``probe_by``: the stream's idle limit or its game's deadline); None once the store
        closed."""
        wait = max(0.0, min(self._settings.watch_probe_s, probe_by - _now()))
        try:
            return await asyncio.wait_for(anext(notices), wait)
        except TimeoutError:
            return RESYNC
        except StopAsyncIteration:
            return None

    async def _watched(self, game_id: str, last: int | None) -> tuple[Snapshot, list[Event]]:
        """The game and its logged events after ``last`` (none when None), for watch streams.

        A read that finds an action due (a run-out turn clock, a bot turn left by a dead
        replica) takes it first, as GetState does, and reads the game again.
        """
        snap = await self._load(game_id)
        state = self._state(game_id, snap)
        meta = self._metas.load(snap.meta)
        if self._due(state, meta):
            await self._advance(game_id, snap.version, state, meta)
            snap = await self._load(game_id)
        if last is None or snap.version <= last:
            return snap, []
        try:
            return snap, await self._store.events_since(game_id, last)
        except GameNotFound:
            raise GameNotFoundError(f"no game games/{game_id}") from None

    async def _catch_up(
        self, game_id: str, seat: int | None, last: int | None, notice: int, first: bool = False
    ) -> tuple[PlayResult, int, bool, float] | None:
        """The current view and the events after ``last``, the version, whether the game is
        over and when (on the ``_now`` clock) its awaited action is due; None when nothing is
        new.

        ``last`` None means the current view with no past events. The ``first`` message always
        carries the view. The read is shared with the streams of this game told of the same
        ``notice`` (a version; RESYNC shares only reads started from now on).
        """

        since = _now() if notice == RESYNC else float("-inf")
        snap, logged = await self._watch_reads.read(
            (game_id, last, notice), since, lambda: self._watched(game_id, last)
        )
        state = self._state(game_id, snap)
        meta = self._metas.load(snap.meta)
        if not first and (last is None or snap.version <= last):
            return None
        snapshot = self._snapshot(game_id, snap.version, state, meta, seat)
        due_at = math.inf
        if meta.deadline_ms:  # store-clock ms to this process's monotonic clock
            wait_ms = max(0, meta.deadline_ms - self._clock.now_ms()) + _DUE_MARGIN_MS
            due_at = _now() + wait_ms / 1000
        if last is None or snap.version <= last:
            return PlayResult((), snapshot), snap.version, state.finished, due_at
        truncated = not logged or logged[0].version > last + 1
        shown: list[VersionedEvent] = []
        for entry in logged:
            if entry.version > snap.version:
                break
            events = visible(decode_log(entry.payload), seat)
            shown.extend(VersionedEvent(entry.version, e) for e in events)
        return PlayResult(tuple(shown), snapshot, truncated), snap.version, state.finished, due_at


_SnapshotKey = tuple[str, int | None, int, bytes, bytes]
"""game id, seat (None: a spectator), version, stored state bytes, stored meta bytes."""

_DECODED_CACHE_SIZE: Final = 2048
"""States (and metas) kept decoded per replica: a few KB each, the latest versions of the
games this replica served last."""

_ACTED: ContextVar[list[int] | None] = ContextVar("scopa_app_acted", default=None)
"""While a sweep takes a game's due actions: how many this task committed (other tasks, e.g.
concurrent requests on the same core, count in their own context)."""

_DUE_MARGIN_MS: Final = 5
"""A watch stream looks at its game this long after the deadline (clock rounding)."""
_DUE_RETRY_S: Final = 0.5
"""A watch stream that found its game's due action not taken yet looks again this much later."""

_MAX_BOT_TURNS: Final = 1000
"""Bot turns one call plays at most (a game of bots only is played out in one call)."""


class _NotLatest(Exception):
    """A commit on the version this replica knew found the game elsewhere; nothing written."""

    def __init__(self, stored: Snapshot | None) -> None:
        super().__init__("the known version is not the game's")
        self.stored = stored
        """The game as the commit found it; None: not known (a retried request), load it."""


def _engine_attributes(
    game_id: str, state: rules.MatchState, seat: int
) -> dict[str, str | int | bool]:
    """The engine span's attributes known before the rules run."""
    return {
        "scopa.game_id": game_id,
        "scopa.preset": state.ruleset.preset,
        "scopa.seat": seat,
        "scopa.hand_number": state.hand_number,
    }


def _engine_outcome(
    attributes: dict[str, str | int | bool],
    events: Sequence[rules.Event],
    new_state: rules.MatchState,
) -> None:
    """Add what the rules did (a capture, a sweep, a declaration, the end) to the attributes."""
    first = events[0]
    if isinstance(first, rules.CardPlayed):
        attributes["scopa.cards_captured"] = len(first.captured)
        attributes["scopa.sweep"] = first.sweep
    elif isinstance(first, rules.Declared):
        attributes["scopa.declaration"] = first.name
    attributes["scopa.game_over"] = new_state.finished


def _failed(span: trace.Span, exc: Exception) -> None:
    """End the span of a refused action as ``start_as_current_span`` would: the exception as an
    event, the error status."""
    if span.is_recording():
        span.record_exception(exc)
        span.set_status(trace.Status(trace.StatusCode.ERROR, f"{type(exc).__name__}: {exc}"))
    span.end()


def _awaited_seat(state: rules.MatchState) -> int:
    """The seat whose action the game awaits, in whatever phase it is.

    ``apply_action`` takes an action only from ``state.turn`` (the seat ``legal_actions``
    lists actions for), so the turn clock and the bots follow it, not a "current player"
    of the play phase: a phase that awaits another seat's answer hands ``turn`` to that seat.
    """
    return state.turn


def _now() -> float:
    return asyncio.get_running_loop().time()


def _create_digest(cmd: CreateGameCommand) -> bytes:
    """A digest of everything a CreateGame asked for, to recognise its retries."""
    canonical = json.dumps(
        [
            cmd.preset,
            sorted(cmd.options.items()),
            # A bot level only when set, so digests of person-only creates stay as they were.
            [[seat.name, seat.open, *([seat.bot] if seat.bot else [])] for seat in cmd.seats],
            cmd.first_dealer,
            [list(deck) for deck in cmd.stacked_decks],
            # The clock and the lobby only when set, so earlier digests stay as they were.
            *(
                [[cmd.turn_timeout_s, cmd.on_timeout, cmd.forfeit_after, cmd.public]]
                if cmd.turn_timeout_s or cmd.public
                else []
            ),
            *([cmd.timeout_bot] if cmd.timeout_bot else []),
        ],
        separators=(",", ":"),
    )
    return b"create:" + hashlib.sha256(canonical.encode()).hexdigest().encode()


_FINGERPRINTED = b"F"
"""Marks a cached response that starts with the fingerprint of its request (16 bytes)."""


def _fingerprint(rpc: str, *arguments: str) -> bytes:
    """A digest of a mutating request (the RPC and its arguments), stored with its response."""
    text = COMPACT.encode([rpc, *arguments])
    return hashlib.sha256(text.encode()).digest()[:16]


@functools.lru_cache(maxsize=4096, typed=True)  # typed: a Move and a Steal may be equal tuples
def _canonical(action: rules.Action) -> str:
    """An action as text, the capture order normalised (it is a set of table cards); kept per
    distinct action (a game's moves repeat across games: one card, one capture)."""
    if isinstance(action, rules.Move):
        capture = None if action.capture is None else sorted(action.capture)
        return json.dumps(["move", action.card, capture])
    return repr(action)


_DEFAULT_PAGE_SIZE: Final = 20
_MAX_PAGE_SIZE: Final = 100
"""ListGames pages: 0 means the default; larger sizes are cut to the maximum (AIP-158)."""


def _page_token(preset: str, created_ms: int, game_id: str) -> str:
    """An opaque ListGames page token: the filter and the last entry of the page."""
    text = json.dumps([preset, created_ms, game_id], separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def _read_page_token(token: str, preset: str) -> tuple[int, str] | None:
    """The cursor of a page token; INVALID_ARGUMENT if malformed or from another filter."""
    if not token:
        return None
    try:
        padded = token + "=" * (-len(token) % 4)
        filtered, created_ms, game_id = json.loads(base64.urlsafe_b64decode(padded))
        if not isinstance(created_ms, int) or not isinstance(game_id, str):
            raise ValueError(token)
    except (ValueError, TypeError):
        raise InvalidArgument(
            "page_token is not a token of ListGames", field="page_token"
        ) from None
    if filtered != preset:
        raise InvalidArgument(
            "page_token belongs to a listing with another preset filter", field="page_token"
        )
    return created_ms, game_id


def _open_seat(meta: GameMeta, state: rules.MatchState) -> int:
    """The lowest open seat of a public game (SEAT_TAKEN when every seat is taken)."""
    if state.finished:
        raise rules.GameOver("the game is over")
    for seat, s in enumerate(meta.seats):
        if s.open and not s.joined:
            return seat
    raise SeatTaken("every seat of this game is taken")


def _cached_seat(cached: bytes, fingerprint: bytes) -> int:
    """The seat a cached JoinGame response was for (REQUEST_ID_REUSED for another request)."""
    if cached.startswith(_FINGERPRINTED):
        size = len(_FINGERPRINTED) + len(fingerprint)
        if not hmac.compare_digest(cached[len(_FINGERPRINTED) : size], fingerprint):
            raise RequestIdReused("request_id was already used for another request")
        cached = cached[size:]
    return decode_response(cached)[0]


def _new_id() -> str:
    return secrets.token_urlsafe(16)


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())
