"""The application core of the game service: load, rules, save; auth, idempotency, updates.

It knows the rules (:mod:`scopa.rules`) and the store contract (:mod:`scopa.storage`), and no
transport: gRPC and REST only convert their messages into these calls.
"""

from ._archiving import RECORD_FORMAT, ArchiveUnavailable, GameNotFinished
from ._botsearch import BotSearches, ProcessSearches, ThreadSearches
from ._checks import DEFAULT_FORFEIT_AFTER
from ._clock import MAX_SYNC_RTT_S, StoreClock, TimeoutAction
from ._commands import (
    CoreSettings,
    CreateGameCommand,
    CreateResult,
    GameSnapshot,
    GameStatus,
    JoinResult,
    LobbyGame,
    PlayResult,
    PresenceChange,
    RematchResult,
    SeatSpec,
)
from ._core import GameCore
from ._errors import (
    AppError,
    BotOnlyGamesDisabled,
    ConcurrentUpdate,
    GameNotFoundError,
    GameStuck,
    IdentityInvalid,
    IdentityUnavailable,
    InvalidArgument,
    InviteInvalid,
    PermissionDenied,
    RequestIdReused,
    SeatNotYours,
    SeatTaken,
    SpectatorInviteRequired,
    StackedDecksDisabled,
    StaleEtag,
    TooManyWatches,
    Unauthenticated,
    WaitingForPlayers,
    WatchIdle,
)
from ._eventlog import AppEvent, SeatJoined, TurnTimedOut, VersionedEvent
from ._limits import RateLimited, RateLimits, client_key, parse_rate
from ._meta import GameMeta, SeatMeta
from ._rematch_setup import RematchUnavailable
from ._sweeper import Sweeper
from ._tokens import TokenAuthority
from ._wire import split_fields, varint

__all__ = [
    "DEFAULT_FORFEIT_AFTER",
    "MAX_SYNC_RTT_S",
    "RECORD_FORMAT",
    "AppError",
    "AppEvent",
    "ArchiveUnavailable",
    "BotOnlyGamesDisabled",
    "BotSearches",
    "ConcurrentUpdate",
    "CoreSettings",
    "CreateGameCommand",
    "CreateResult",
    "GameCore",
    "GameMeta",
    "GameNotFinished",
    "GameNotFoundError",
    "GameSnapshot",
    "GameStatus",
    "GameStuck",
    "IdentityInvalid",
    "IdentityUnavailable",
    "InvalidArgument",
    "InviteInvalid",
    "JoinResult",
    "LobbyGame",
    "PermissionDenied",
    "PlayResult",
    "PresenceChange",
    "ProcessSearches",
    "RateLimited",
    "RateLimits",
    "RematchResult",
    "RematchUnavailable",
    "RequestIdReused",
    "SeatJoined",
    "SeatMeta",
    "SeatNotYours",
    "SeatSpec",
    "SeatTaken",
    "SpectatorInviteRequired",
    "StackedDecksDisabled",
    "StaleEtag",
    "StoreClock",
    "Sweeper",
    "ThreadSearches",
    "TimeoutAction",
    "TokenAuthority",
    "TooManyWatches",
    "TurnTimedOut",
    "Unauthenticated",
    "VersionedEvent",
    "WaitingForPlayers",
    "WatchIdle",
    "client_key",
    "parse_rate",
    "split_fields",
    "varint",
]
