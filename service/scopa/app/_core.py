"""The application core: load, apply the rules, save; plus auth, idempotency and live updates.

No transport types here: the gRPC servicer (and later the REST gateway) only convert their
messages into these calls and the results back. Every write is one compare-and-set commit, so
two replicas racing for the same turn cannot both win, and a retried ``request_id`` returns the
first response instead of playing twice.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import random
import re
import secrets
import unicodedata
import zlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final, NamedTuple

import structlog
from opentelemetry import trace

from scopa import bots, rules
from scopa.storage import (
    RESYNC,
    DuplicateRequest,
    Event,
    GameExists,
    GameNotFound,
    GameStore,
    Snapshot,
    VersionConflict,
)

from ._codec import is_keyed, pack, unpack
from ._decoded import DecodedCache
from ._errors import (
    ConcurrentUpdate,
    GameNotFoundError,
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
from ._meta import GameMeta, SeatMeta
from ._tokens import TokenAuthority
from ._watch import SharedReads, WatchCounter

__all__ = [
    "AppEvent",
    "CoreSettings",
    "CreateGameCommand",
    "CreateResult",
    "GameCore",
    "GameSnapshot",
    "GameStatus",
    "JoinResult",
    "PlayResult",
    "SeatJoined",
    "SeatSpec",
    "VersionedEvent",
]

_log = structlog.get_logger("scopa.app")
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_NAME_LIMIT = 64
_NAME_REFUSED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Unicode categories a display name may not contain: control characters (NUL, ESC of ANSI
escapes), format characters (bidi overrides, zero-width), surrogates, private use, unassigned
code points and line/paragraph separators."""


class GameStatus(StrEnum):
    """Where a game stands."""

    WAITING_FOR_PLAYERS = "waiting_for_players"
    ACTIVE = "active"
    FINISHED = "finished"


class SeatJoined(NamedTuple):
    """An open seat was claimed."""

    seat: int
    name: str


AppEvent = rules.Event | SeatJoined


class VersionedEvent(NamedTuple):
    """An event as the caller may see it, with the game version that produced it."""

    version: int
    event: AppEvent


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """A seat at creation: held by the creator, open for an invite, or played by a bot."""

    name: str
    open: bool = False
    bot: str = ""
    """A bot level (``random``, ``greedy``, ``ismcts``) to play this seat; empty: a person."""


@dataclass(frozen=True, slots=True)
class CreateGameCommand:
    """Everything CreateGame needs."""

    preset: str
    options: Mapping[str, bool | int | str]
    seats: Sequence[SeatSpec]
    first_dealer: int | None = None
    stacked_decks: Sequence[Sequence[int]] = ()
    request_id: str = ""


@dataclass(frozen=True, slots=True)
class CoreSettings:
    """Policy knobs of the core."""

    allow_stacked_decks: bool = False
    active_ttl_s: float = 7 * 24 * 3600
    finished_ttl_s: float = 24 * 3600
    waiting_ttl_s: float = 3600.0
    """Expiry of a game still waiting for players to join (refreshed by every join)."""
    watch_idle_s: float = 600.0
    """A WatchGame stream with no new version for this long ends with WATCH_IDLE."""
    watch_per_client: int = 100
    """Open WatchGame streams one client address may hold on one replica."""
    watch_probe_s: float = 30.0
    """How often a quiet stream checks that its game still exists (and missed nothing)."""
    watch_read_concurrency: int = 8
    """Game reads for watch streams running at once on one replica (shared per version)."""
    bot_budget: bots.Budget = bots.DEFAULT_BUDGET
    """How long an ``ismcts`` bot seat thinks per move."""


@dataclass(frozen=True, slots=True)
class GameSnapshot:
    """A game as one caller may see it."""

    game_id: str
    version: int
    status: GameStatus
    seats: tuple[SeatMeta, ...]
    view: rules.SeatView
    last_events: tuple[VersionedEvent, ...] = ()
    """The events of the latest version, as this caller may see them."""
    resigned: int = -1

    @property
    def etag(self) -> str:
        """Opaque tag of this version, for optimistic concurrency."""
        return f"v{self.version}"


@dataclass(frozen=True, slots=True)
class CreateResult:
    """A created game: the creator's seat tokens, the invite codes and the first view."""

    game_id: str
    tokens: tuple[tuple[int, str], ...]
    invites: tuple[tuple[int, str], ...]
    snapshot: GameSnapshot


@dataclass(frozen=True, slots=True)
class PlayResult:
    """What a move (or a watch update) returns: the events it caused and the new view."""

    events: tuple[VersionedEvent, ...]
    snapshot: GameSnapshot
    truncated: bool = False
    """Watch only: some events since the requested version are no longer kept."""


@dataclass(frozen=True, slots=True)
class JoinResult:
    """A claimed seat and its token."""

    seat: int
    token: str
    snapshot: GameSnapshot


# --- event log payloads --------------------------------------------------------------------


_LOG: Final = b"B"
"""Log entries since the compact format: ``B`` + raw deflate (no zlib header or checksum), with
the preset dictionary :data:`_LOG_DICT`, of the JSON ``{"v": <rules format>, "e": [records]}``:
the engine's records (``rules.event_records``) and ``seat_joined`` records in the order they
happened. Still read: ``A`` + zlib of the same JSON (the keyed format, without a dictionary) and
format 1 (``J`` + joins, ``R`` + ``rules.dump_events``)."""

_LOG_ZLIB: Final = b"A"

_LOG_DICT: Final = (
    b'{"t":"seat_resigned","seat":0}'
    b'{"t":"redealt","hand_number":1,"reason":"kings","table":[]}'
    b'{"t":"ace_returned","card":0}'
    b'{"t":"declared","seat":0,"name":"","cards":[],"points":0}'
    b'{"t":"game_finished","winners":[0],"reason":"target","scores":[0,0]}'
    b'{"t":"hand_scored","result":{"hand_number":1,"components":[["sweeps",[0,1],[0.0,0.0]],'
    b'["cards",[0,1],[20.0,20.0]],["denari",[0,1],[5.0,5.0]],["primiera",[0,1],[0.0,0.0]],'
    b'["settebello",[0,1],[0.0,1.0]]],"hand_totals":[0,1],"napoleone":[false,false],'
    b'"totals":[0,1]}}'
    b'{"t":"leftover_taken","seat":0,"cards":[]}'
    b'{"v":3,"e":[{"t":"hand_started","hand_number":1,"dealer":1,"table":[]},'
    b'{"t":"cards_dealt","seat":0,"n_cards":3,"cards":[]},'
    b'{"t":"cards_dealt","seat":1,"n_cards":3,"cards":[]}]}'
    b'{"v":3,"e":[{"t":"seat_joined","seat":1,"name":""}]}'
    b'{"v":3,"e":[{"t":"card_played","seat":1,"card":0,"captured":[],"taken":false,'
    b'"sweep":false,"specials":[]}]}'
    b'{"v":3,"e":[{"t":"card_played","seat":0,"card":0,"captured":[],"taken":true,'
    b'"sweep":false,"specials":[]}]}'
)
"""The preset dictionary of ``B`` entries: the records' usual text, the most frequent last. It is
part of the format: changing it needs a new entry prefix (old entries keep theirs)."""


def _encode_log(events: Sequence[AppEvent]) -> bytes:
    """One log entry holding ``events`` in order, joins and engine events alike."""
    records: list[dict[str, Any]] = []
    for event in events:
        if isinstance(event, SeatJoined):
            records.append({"t": "seat_joined", "seat": event.seat, "name": event.name})
        else:
            records.extend(rules.event_records([event]))
    body = json.dumps({"v": rules.FORMAT_VERSION, "e": records}, separators=(",", ":"))
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS, zdict=_LOG_DICT)
    return _LOG + deflate.compress(body.encode()) + deflate.flush()


def _inflate_log(payload: bytes) -> bytes:
    """The JSON of a ``B`` (or ``A``) entry."""
    if payload[:1] == _LOG_ZLIB:
        return zlib.decompress(payload[1:])
    inflate = zlib.decompressobj(-zlib.MAX_WBITS, zdict=_LOG_DICT)
    body = inflate.decompress(payload[1:]) + inflate.flush()
    if not inflate.eof:
        raise zlib.error("truncated log entry")
    return body


def _decode_log(payload: bytes) -> list[AppEvent]:
    """The events of one log entry, of this or an earlier format."""
    kind = payload[:1]
    if kind == b"J":
        return [SeatJoined(seat, name) for seat, name in json.loads(payload[1:])]
    if kind == b"R":
        return list(rules.load_events(payload[1:]))
    if kind not in (_LOG, _LOG_ZLIB):
        raise rules.InvalidState("unknown log entry format")
    try:
        body = json.loads(_inflate_log(payload))
        records, version = body["e"], body["v"]
        engine = [r for r in records if r["t"] != "seat_joined"]
    except (zlib.error, ValueError, TypeError, KeyError) as exc:
        raise rules.InvalidState("corrupt log entry") from exc
    decoded = iter(rules.events_from_records(engine, version))
    return [
        SeatJoined(r["seat"], r["name"]) if r["t"] == "seat_joined" else next(decoded)
        for r in records
    ]


def _visible(events: Sequence[AppEvent], seat: int | None) -> list[AppEvent]:
    """``events`` as ``seat`` may see them: a join is public, the rules hide the rest."""
    return [e if isinstance(e, SeatJoined) else rules.visible_event(e, seat) for e in events]


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
        tracer_provider: trace.TracerProvider | None = None,
    ) -> None:
        self._store = store
        self._tokens = tokens
        self._settings = settings or CoreSettings()
        self._rng = rng or random.SystemRandom()
        self._on_created = on_game_created or (lambda preset: None)
        self._on_finished = on_game_finished or (lambda preset, reason: None)
        # (game_id, finished) after each change this process commits; +1/-1 per watch stream.
        self._on_active = on_game_active or (lambda game_id, finished: None)
        self._on_watch = on_watch or (lambda delta: None)
        self._tracer = trace.get_tracer("scopa.app", tracer_provider=tracer_provider)
        self._watchers = WatchCounter(self._settings.watch_per_client)
        self._watch_reads: SharedReads[tuple[Snapshot, list[Event]]] = SharedReads(
            self._settings.watch_read_concurrency
        )
        # Decoded states and metas by their bytes: the read after this replica's own commit
        # (the next seat's move, a watcher) skips decoding (~10% of a PlayCard's CPU).
        self._states = DecodedCache(rules.load_state, _DECODED_CACHE_SIZE)
        self._metas = DecodedCache(GameMeta.load, _DECODED_CACHE_SIZE)

    # -- helpers --

    @staticmethod
    def _check_game_id(game_id: str) -> None:
        if not _GAME_ID.fullmatch(game_id):
            raise InvalidArgument(
                "a game id is 1-64 characters of A-Z a-z 0-9 _ -", field="game_id"
            )

    @staticmethod
    def _check_request_id(request_id: str) -> str | None:
        if not request_id:
            return None
        if not _REQUEST_ID.fullmatch(request_id):
            raise InvalidArgument(
                "request_id must be 1-128 characters of A-Z a-z 0-9 . _ : -", field="request_id"
            )
        return request_id

    @staticmethod
    def _check_display_name(name: str, field: str) -> None:
        if len(name) > _NAME_LIMIT:
            raise InvalidArgument(f"{field} is at most {_NAME_LIMIT} characters", field=field)
        if any(unicodedata.category(ch) in _NAME_REFUSED for ch in name):
            raise InvalidArgument(
                f"{field} may not contain control, format (e.g. bidi override) or unassigned"
                " characters",
                field=field,
            )

    @staticmethod
    def _check_preset(preset: str) -> None:
        if not preset:
            raise InvalidArgument("preset is required (e.g. scopa)", field="preset")

    @staticmethod
    def _check_bot(spec: SeatSpec, field: str) -> None:
        if not spec.bot:
            return
        if spec.bot not in set(bots.Level):
            levels = ", ".join(bots.Level)
            raise InvalidArgument(f"unknown bot level {spec.bot!r}; one of {levels}", field=field)
        if spec.open:
            raise InvalidArgument("a bot seat cannot also be open", field=field)

    async def _play_bots(
        self, game_id: str, version: int, state: rules.MatchState, meta: GameMeta
    ) -> tuple[int, rules.MatchState, GameMeta]:
        """Play every bot turn now due, each one load-free commit (compare-and-set) after the last.

        A lost race means another replica played the turn: stop, its commit stands. Returns the
        last version, state and meta this call knows of.
        """
        for _ in range(_MAX_BOT_TURNS):
            if state.finished or meta.waiting:
                break
            seat = state.turn
            level = meta.seats[seat].bot
            if not level:
                break
            new_state, events = await self._bot_turn(game_id, state, seat, bots.Level(level))
            try:
                result = await self._commit(
                    game_id, version, new_state, meta, seat, events, None, b""
                )
            except ConcurrentUpdate:
                break
            version, state = result.snapshot.version, new_state
        return version, state, meta

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
        self._check_game_id(game_id)
        try:
            return await self._store.load(game_id, request_id, slot)
        except GameNotFound:
            raise GameNotFoundError(f"no game games/{game_id}") from None

    @staticmethod
    def _snapshot(
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
        public = tuple(SeatMeta(s.name, s.open, s.joined, bot=s.bot) for s in meta.seats)
        last: tuple[VersionedEvent, ...] = () if shown is None else shown
        if meta.last_events and shown is None:
            last = tuple(
                VersionedEvent(version, e) for e in _visible(_decode_log(meta.last_events), seat)
            )
        return GameSnapshot(game_id, version, status, public, view, last, meta.resigned)

    # -- use cases --

    @staticmethod
    def list_rulesets() -> tuple[tuple[rules.Preset, ...], tuple[rules.OptionInfo, ...]]:
        """Every preset and every option, for a "new game" form."""
        return tuple(rules.PRESETS.values()), rules.list_options()

    async def create_game(self, cmd: CreateGameCommand) -> CreateResult:
        """Create a game; seats not marked open are held by the creator and get tokens."""
        request_id = self._check_request_id(cmd.request_id)
        self._check_preset(cmd.preset)
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
            self._check_display_name(spec.name, f"seats[{i}].display_name")
            self._check_bot(spec, f"seats[{i}].bot")
        if cmd.stacked_decks and not self._settings.allow_stacked_decks:
            raise StackedDecksDisabled("this server does not accept stacked decks")
        decks = tuple(
            rules.check_deck(d, f"stacked_decks[{i}]") for i, d in enumerate(cmd.stacked_decks)
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
        meta = GameMeta(tuple(seats), last_events=_encode_log(events))
        tokens = tuple(
            (s, self._tokens.issue(game_id, s, request_id))
            for s in range(players)
            if not specs[s].open and not specs[s].bot
        )
        # Tokens and invites are derived from the request_id, so nothing secret is stored; the
        # first request's digest lets a retry prove it is the same request.
        response = _create_digest(cmd)
        with self._tracer.start_as_current_span("scopa.create_game") as span:
            span.set_attribute("scopa.game_id", game_id)
            span.set_attribute("scopa.preset", ruleset.preset)
            span.set_attribute("scopa.players", players)
            try:
                result = await self._store.create(
                    game_id,
                    rules.dump_state(state),
                    meta.dump(),
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
            stored_state = self._states.load(snap.state)
            stored_meta = self._metas.load(snap.meta)
            first_seat = tokens[0][0] if tokens else None
            return CreateResult(
                game_id,
                tokens,
                tuple(invites),
                self._snapshot(game_id, snap.version, stored_state, stored_meta, first_seat),
            )
        self._on_created(ruleset.preset)
        self._on_active(game_id, False)
        _log.info("game_created", game_id=game_id, preset=ruleset.preset, players=players)
        first_seat = tokens[0][0] if tokens else None
        version, state, meta = await self._play_bots(game_id, result.version, state, meta)
        return CreateResult(
            game_id,
            tokens,
            tuple(invites),
            self._snapshot(game_id, version, state, meta, first_seat),
        )

    async def get_state(self, game_id: str, token: str | None) -> GameSnapshot:
        """The game as the token's seat (or a spectator, without a token) may see it."""
        snap = await self._load(game_id)
        state = self._states.load(snap.state)
        seat = self._seat_of(token, game_id, state.ruleset.options.players)
        meta = self._metas.load(snap.meta)
        version, state, meta = await self._play_bots(game_id, snap.version, state, meta)
        return self._snapshot(game_id, version, state, meta, seat)

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
        loaded = await self._seat_write(game_id, token, request_id, doing, fingerprint)
        if isinstance(loaded, PlayResult):
            return loaded
        snap, state, meta, seat, rid = loaded
        if etag and etag != f"v{snap.version}":
            raise StaleEtag(f"etag {etag} is stale; the game is at v{snap.version}")
        if meta.waiting and not state.finished:
            raise WaitingForPlayers("the game is waiting for players to join")
        name = "scopa.engine.apply_move" if playing else "scopa.engine.apply_action"
        attributes: dict[str, str | int] = {
            "scopa.game_id": game_id,
            "scopa.preset": state.ruleset.preset,
            "scopa.seat": seat,
            "scopa.hand_number": state.hand_number,
        }
        with self._tracer.start_as_current_span(name, attributes=attributes) as span:
            new_state, events = rules.apply_action(state, seat, action, self._rng)
            first = events[0]
            if isinstance(first, rules.CardPlayed):
                span.set_attribute("scopa.cards_captured", len(first.captured))
                span.set_attribute("scopa.sweep", first.sweep)
            elif isinstance(first, rules.Declared):
                span.set_attribute("scopa.declaration", first.name)
            span.set_attribute("scopa.game_over", new_state.finished)
        result = await self._commit(
            game_id, snap.version, new_state, meta, seat, events, rid, fingerprint, str(seat)
        )
        await self._play_bots(game_id, result.snapshot.version, new_state, meta)
        return result

    async def resign(self, game_id: str, token: str | None, request_id: str = "") -> PlayResult:
        """The token's seat resigns: the game ends and the other sides win."""
        fingerprint = _fingerprint("ResignGame")
        loaded = await self._seat_write(game_id, token, request_id, "resigning", fingerprint)
        if isinstance(loaded, PlayResult):
            return loaded
        snap, state, meta, seat, rid = loaded
        new_state, events = rules.resign(state, seat)
        meta = replace(meta, resigned=seat)
        return await self._commit(
            game_id, snap.version, new_state, meta, seat, events, rid, fingerprint, str(seat)
        )

    async def _seat_write(
        self, game_id: str, token: str | None, request_id: str, action: str, fingerprint: bytes
    ) -> PlayResult | tuple[Snapshot, rules.MatchState, GameMeta, int, str | None]:
        """Load the game for a write by the token's seat (one round trip).

        Returns the first response when ``request_id`` is the seat's latest request (each seat
        keeps one cached response), else what the write needs: the snapshot, the state, the
        meta, the seat and the checked request id.
        """
        rid = self._check_request_id(request_id)
        if token is None:
            raise Unauthenticated(f"{action} needs a seat token")
        self._check_game_id(game_id)
        seat = self._tokens.verify(token, game_id)
        snap = await self._load(game_id, rid, str(seat) if rid else None)
        state = self._states.load(snap.state)
        self._check_seat(seat, state.ruleset.options.players)
        meta = self._metas.load(snap.meta)
        if snap.cached_response is not None:
            return self._replayed(
                game_id, seat, snap.cached_response, snap.cached_state, meta, fingerprint
            )
        return snap, state, meta, seat, rid

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
    ) -> PlayResult:
        new_version = version + 1
        blob = rules.dump_state(state)
        log = _encode_log(events)
        meta = replace(meta, last_events=log)
        meta_blob = meta.dump()
        response = None
        if request_id:
            # Without the state: the store keeps the state of this version for as long as it
            # keeps the response (Snapshot.cached_state, DuplicateRequest.state).
            response = _FINGERPRINTED + fingerprint + _encode_response(seat, new_version, log)
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
            )
        except VersionConflict:
            raise ConcurrentUpdate("another move was made at the same time; reload") from None
        except DuplicateRequest as dup:
            return self._replayed(game_id, seat, dup.response, dup.state, meta, fingerprint)
        except GameNotFound:
            raise GameNotFoundError(f"no game games/{game_id}") from None
        self._states.remember(blob, state)
        self._metas.remember(meta_blob, meta)
        if state.finished:
            self._on_finished(state.ruleset.preset, state.finish_reason.value)
        self._on_active(game_id, state.finished)
        return self._result(game_id, seat, new_version, state, meta, events)

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
        shown = tuple(VersionedEvent(version, e) for e in _visible(events, seat))
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
        first_seat, version, state_blob, events = _decode_response(cached)
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
        """Claim the open seat that ``invite_code`` was issued for."""
        rid = self._check_request_id(request_id)
        self._check_display_name(name, "display_name")
        snap = await self._load(game_id, rid)
        state = self._states.load(snap.state)
        meta = self._metas.load(snap.meta)
        seat = self._invited_seat(game_id, meta, invite_code)
        fingerprint = _fingerprint("JoinGame", invite_code, name)
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
        result = await self._commit(
            game_id, snap.version, state, meta, seat, events, rid, fingerprint
        )
        await self._play_bots(game_id, result.snapshot.version, state, meta)
        return JoinResult(seat, self._tokens.issue(game_id, seat, rid), result.snapshot)

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
        self._check_game_id(game_id)
        snap, _ = await self._watch_reads.read(
            (game_id, None, RESYNC), _now(), lambda: self._watched(game_id, None)
        )
        state = self._states.load(snap.state)
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
                update, last, done = first
                yield update
                if done:
                    return
                notices = aiter(versions)
                idle_until = _now() + self._settings.watch_idle_s
                while True:
                    version = await self._next_notice(notices, idle_until)
                    if version is None:
                        return  # the store is closing
                    if version != RESYNC and version <= last:
                        continue
                    caught = await self._catch_up(game_id, seat, last, version)
                    if caught is None:
                        if _now() >= idle_until:
                            raise WatchIdle(
                                f"no new version for {self._settings.watch_idle_s:g} s; "
                                f"watch again from version {last} to resume"
                            )
                        continue
                    update, last, done = caught
                    yield update
                    if done:
                        return
                    idle_until = _now() + self._settings.watch_idle_s

    async def _next_notice(self, notices: AsyncIterator[int], idle_until: float) -> int | None:
        """The next notified version; RESYNC when a probe is due; None once the store closed."""
        wait = max(0.0, min(self._settings.watch_probe_s, idle_until - _now()))
        try:
            return await asyncio.wait_for(anext(notices), wait)
        except TimeoutError:
            return RESYNC
        except StopAsyncIteration:
            return None

    async def _watched(self, game_id: str, last: int | None) -> tuple[Snapshot, list[Event]]:
        """The game and its logged events after ``last`` (none when None), for watch streams."""
        snap = await self._load(game_id)
        if last is None or snap.version <= last:
            return snap, []
        try:
            return snap, await self._store.events_since(game_id, last)
        except GameNotFound:
            raise GameNotFoundError(f"no game games/{game_id}") from None

    async def _catch_up(
        self, game_id: str, seat: int | None, last: int | None, notice: int, first: bool = False
    ) -> tuple[PlayResult, int, bool] | None:
        """The current view and the events after ``last``; None when nothing is new.

        ``last`` None means the current view with no past events. The ``first`` message always
        carries the view. The read is shared with the streams of this game told of the same
        ``notice`` (a version; RESYNC shares only reads started from now on).
        """

        since = _now() if notice == RESYNC else float("-inf")
        snap, logged = await self._watch_reads.read(
            (game_id, last, notice), since, lambda: self._watched(game_id, last)
        )
        state = self._states.load(snap.state)
        meta = self._metas.load(snap.meta)
        if not first and (last is None or snap.version <= last):
            return None
        snapshot = self._snapshot(game_id, snap.version, state, meta, seat)
        if last is None or snap.version <= last:
            return PlayResult((), snapshot), snap.version, state.finished
        truncated = not logged or logged[0].version > last + 1
        shown: list[VersionedEvent] = []
        for entry in logged:
            if entry.version > snap.version:
                break
            events = _visible(_decode_log(entry.payload), seat)
            shown.extend(VersionedEvent(entry.version, e) for e in events)
        return PlayResult(tuple(shown), snapshot, truncated), snap.version, state.finished


_DECODED_CACHE_SIZE: Final = 2048
"""States (and metas) kept decoded per replica: a few KB each, the latest versions of the
games this replica served last."""

_MAX_BOT_TURNS: Final = 1000
"""Bot turns one call plays at most (a game of bots only is played out in one call)."""


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
        ],
        separators=(",", ":"),
    )
    return b"create:" + hashlib.sha256(canonical.encode()).hexdigest().encode()


_FINGERPRINTED = b"F"
"""Marks a cached response that starts with the fingerprint of its request (16 bytes)."""


def _fingerprint(rpc: str, *arguments: str) -> bytes:
    """A digest of a mutating request (the RPC and its arguments), stored with its response."""
    text = json.dumps([rpc, *arguments], separators=(",", ":"))
    return hashlib.sha256(text.encode()).digest()[:16]


def _canonical(action: rules.Action) -> str:
    """An action as text, the capture order normalised (it is a set of table cards)."""
    if isinstance(action, rules.Move):
        capture = None if action.capture is None else sorted(action.capture)
        return json.dumps(["move", action.card, capture])
    return repr(action)


def _new_id() -> str:
    return secrets.token_urlsafe(16)


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


def _encode_response(seat: int, version: int, log: bytes) -> bytes:
    """The cached answer to a request_id: seat, version and the encoded events (the state of
    that version is the store's to keep: ``Snapshot.cached_state``)."""
    return pack({"seat": seat, "version": version}, {"log": log})


def _decode_response(blob: bytes) -> tuple[int, int, bytes | None, list[AppEvent]]:
    """Seat, version, the state if the response carries it (earlier builds' do), events."""
    if not is_keyed(blob):  # format 1: a 2-byte length, a JSON head, the state, the log
        size = int.from_bytes(blob[:2], "big")
        seat, version, state_len = json.loads(blob[2 : 2 + size])
        rest = blob[2 + size :]
        return seat, version, rest[:state_len], _decode_log(rest[state_len:])
    record, blobs = unpack(blob)
    try:
        return record["seat"], record["version"], blobs.get("state"), _decode_log(blobs["log"])
    except KeyError as exc:
        raise rules.InvalidState("corrupt cached response") from exc
