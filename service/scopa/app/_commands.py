"""What the core takes and gives: commands, settings, snapshots and results (plain data)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from scopa import bots, rules
from scopa._frozen import frozen_init
from scopa.storage import Presence

from ._eventlog import VersionedEvent
from ._meta import SeatMeta

__all__ = [
    "CoreSettings",
    "CreateGameCommand",
    "CreateResult",
    "GameSnapshot",
    "GameStatus",
    "JoinResult",
    "LobbyGame",
    "PlayResult",
    "PresenceChange",
    "RematchResult",
    "SeatSpec",
]


class GameStatus(StrEnum):
    """Where a game stands."""

    WAITING_FOR_PLAYERS = "waiting_for_players"
    ACTIVE = "active"
    FINISHED = "finished"


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
    turn_timeout_s: int = 0
    """Seconds a person's seat has for each action; 0: no turn clock."""
    on_timeout: str = ""
    """What a timeout does: ``bot`` (the default) or ``forfeit`` (see :class:`TimeoutAction`)."""
    forfeit_after: int = 0
    """With ``forfeit``: the seat's timeout that resigns it (0: ``DEFAULT_FORFEIT_AFTER``)."""
    public: bool = False
    """List the game in the lobby while it waits for players; its open seats need no invite."""
    timeout_bot: str = ""
    """The bot level that plays a person's turn when its clock runs out (empty: the server's
    ``CoreSettings.timeout_bot``); needs a turn clock."""
    webhook_url: str | None = None
    """The game's own webhook URL (None: the deployment's, if any)."""
    spectators_invite: bool = False
    """Spectators need the game's spectator token."""


@dataclass(frozen=True, slots=True)
class CoreSettings:
    """Policy knobs of the core."""

    allow_stacked_decks: bool = False
    active_ttl_s: float = 7 * 24 * 3600
    finished_ttl_s: float = 24 * 3600
    archive_retention_days: int = 365
    """Finished games' records older than this are deleted from the archive."""
    waiting_ttl_s: float = 3600.0
    """Expiry of a game still waiting for players to join (refreshed by every join)."""
    watch_idle_s: float = 600.0
    """A WatchGame stream with no new version for this long ends with WATCH_IDLE."""
    watch_per_client: int = 100
    """Open WatchGame streams one client address may hold on one replica."""
    watch_probe_s: float = 30.0
    """How often a quiet stream checks that its game still exists (and missed nothing)."""
    presence_ttl_s: float = 15.0
    """A stream's presence entry lapses this long after its last refresh (every third of it)."""
    watch_read_concurrency: int = 8
    """Game reads for watch streams running at once on one replica (shared per version)."""
    bot_budget: bots.Budget = bots.DEFAULT_BUDGET
    """How long an ``ismcts`` bot seat thinks per move."""
    bot_grace_s: float = 2.0
    """A bot turn still unplayed this long after its thinking time (``bot_budget``) is played
    by the sweeper (the replica that should have played it died)."""
    timeout_bot: bots.Level = bots.Level.GREEDY
    """The bot that plays a person's turn when its clock runs out."""
    allow_bot_only_games: bool = False
    """Accept games without a person's seat (every seat a bot): off, so that one call cannot
    set the server playing a whole match on its own."""
    bot_running: int = 2
    """Bot moves this replica chooses at once (each search holds a core for its budget)."""
    bot_waiting: int = 32
    """Bot turns that may wait for a slot; a turn beyond them is deferred to the sweeper."""
    webhooks: bool = False
    """The deployment has a webhook URL: commits write their notices into the outbox."""
    per_game_webhooks: bool = False
    """CreateGame may name the game's own webhook URL (``SCOPA_WEBHOOK_ALLOW_PER_GAME``)."""
    take_due_actions: bool = True
    """Whether this replica takes the actions due in a game (a bot's turn, a run-out clock's)
    itself; off, it commits the requested writes only and leaves what is due to other replicas
    (e.g. a replica that must stay out of the bots' way; the tests' replica that dies before
    acting)."""


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
    deadline_ms: int = 0
    """When the awaited action is due (turn clock), ms since the epoch; 0: no deadline."""
    turn_timeout_s: int = 0
    """The game's turn clock in seconds (0: none)."""
    public: bool = False
    """Whether the game is listed in the lobby while waiting for players."""
    created_ms: int = 0
    """When the game was created, ms since the epoch (0: unknown, games before the lobby)."""
    timeout_bot: str = ""
    """The bot level that plays a person's turn when its clock runs out (empty: no clock)."""
    rematch_game_id: str = ""
    """The finished game's rematch, once a seat asked for one (empty: none yet)."""
    previous_game_id: str = ""
    """The finished game this one is the rematch of (empty: none)."""
    presence: Presence | None = None
    """Who watches the game (GetState, WatchGame, sessions); None where it was not read."""
    spectators_invite: bool = False
    """Spectators need the game's spectator token."""
    spectator_token: str = ""
    """The spectator token, in a seat's view of a game with ``spectators_invite``."""

    def __init__(  # compiled by mypyc, unlike the generated one (scopa._frozen)
        self,
        game_id: str,
        version: int,
        status: GameStatus,
        seats: tuple[SeatMeta, ...],
        view: rules.SeatView,
        last_events: tuple[VersionedEvent, ...] = (),
        resigned: int = -1,
        deadline_ms: int = 0,
        turn_timeout_s: int = 0,
        public: bool = False,
        created_ms: int = 0,
        timeout_bot: str = "",
        rematch_game_id: str = "",
        previous_game_id: str = "",
        presence: Presence | None = None,
        spectators_invite: bool = False,
        spectator_token: str = "",
    ) -> None:
        (
            self.game_id,  # type: ignore[misc]
            self.version,  # type: ignore[misc]
            self.status,  # type: ignore[misc]
            self.seats,  # type: ignore[misc]
            self.view,  # type: ignore[misc]
            self.last_events,  # type: ignore[misc]
            self.resigned,  # type: ignore[misc]
            self.deadline_ms,  # type: ignore[misc]
            self.turn_timeout_s,  # type: ignore[misc]
            self.public,  # type: ignore[misc]
            self.created_ms,  # type: ignore[misc]
            self.timeout_bot,  # type: ignore[misc]
            self.rematch_game_id,  # type: ignore[misc]
            self.previous_game_id,  # type: ignore[misc]
            self.presence,  # type: ignore[misc]
            self.spectators_invite,  # type: ignore[misc]
            self.spectator_token,  # type: ignore[misc]
        ) = (
            game_id,
            version,
            status,
            seats,
            view,
            last_events,
            resigned,
            deadline_ms,
            turn_timeout_s,
            public,
            created_ms,
            timeout_bot,
            rematch_game_id,
            previous_game_id,
            presence,
            spectators_invite,
            spectator_token,
        )

    @property
    def etag(self) -> str:
        """Opaque tag of this version, for optimistic concurrency."""
        return f"v{self.version}"

    def with_presence(self, presence: Presence | None) -> GameSnapshot:
        """This snapshot with ``presence``: ``dataclasses.replace(self, presence=...)``, without
        its field-by-field introspection (a watch and a session do it on every version)."""
        return GameSnapshot(
            self.game_id,
            self.version,
            self.status,
            self.seats,
            self.view,
            self.last_events,
            self.resigned,
            self.deadline_ms,
            self.turn_timeout_s,
            self.public,
            self.created_ms,
            self.timeout_bot,
            self.rematch_game_id,
            self.previous_game_id,
            presence,
            self.spectators_invite,
            self.spectator_token,
        )


@dataclass(frozen=True, slots=True)
class LobbyGame:
    """A public game waiting for players as a lobby page lists it: its summary, kept in the
    lobby beside its entry (no state is read), so no table, hand or score."""

    game_id: str
    version: int
    """The version the summary was written at."""
    preset: str
    seats: tuple[SeatMeta, ...]
    """Names, open seats (``open`` and not ``joined``) and bots; no invite digest."""
    created_ms: int
    turn_timeout_s: int = 0
    timeout_bot: str = ""
    status: GameStatus = GameStatus.WAITING_FOR_PLAYERS
    public: bool = True
    spectator_count: int | None = None
    """Open spectators' streams now (None: not read)."""
    seat: int | None = None
    """The caller's seat (ListMyGames); None in the lobby."""
    turn: int | None = None
    """The seat to play (ListMyGames; None when no one can: waiting or finished)."""

    @property
    def etag(self) -> str:
        """Opaque tag of the summary's version (as :attr:`GameSnapshot.etag`)."""
        return f"v{self.version}"


@dataclass(frozen=True, slots=True)
class CreateResult:
    """A created game: the creator's seat tokens, the invite codes and the first view."""

    game_id: str
    tokens: tuple[tuple[int, str], ...]
    invites: tuple[tuple[int, str], ...]
    snapshot: GameSnapshot
    spectator_token: str = ""
    """The game's spectator token when its spectators need one."""


@dataclass(frozen=True, slots=True)
class PlayResult:
    """What a move (or a watch update) returns: the events it caused and the new view."""

    events: tuple[VersionedEvent, ...]
    snapshot: GameSnapshot
    truncated: bool = False
    """Watch only: some events since the requested version are no longer kept."""
    presence: tuple[PresenceChange, ...] | None = None
    """Watch only: set on a presence message (no new version; a seat connected or left): the
    seats that did."""

    def __init__(  # compiled by mypyc, unlike the generated one (scopa._frozen)
        self,
        events: tuple[VersionedEvent, ...],
        snapshot: GameSnapshot,
        truncated: bool = False,
        presence: tuple[PresenceChange, ...] | None = None,
    ) -> None:
        (self.events, self.snapshot, self.truncated, self.presence) = (  # type: ignore[misc]
            events,
            snapshot,
            truncated,
            presence,
        )

    def with_snapshot(self, snapshot: GameSnapshot) -> PlayResult:
        """This result with ``snapshot`` instead (as ``dataclasses.replace``, without its
        introspection)."""
        return PlayResult(self.events, snapshot, self.truncated, self.presence)


@dataclass(frozen=True, slots=True)
class PresenceChange:
    """A seat connected or left (see :mod:`._presence`)."""

    seat: int
    connected: bool
    last_seen_ms: int


@dataclass(frozen=True, slots=True)
class RematchResult:
    """A finished game's rematch and the asking seat's view of it."""

    game_id: str
    snapshot: GameSnapshot


@dataclass(frozen=True, slots=True)
class JoinResult:
    """A claimed seat and its token."""

    seat: int
    token: str
    snapshot: GameSnapshot


frozen_init(GameSnapshot)
frozen_init(PlayResult)
