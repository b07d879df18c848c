"""Errors of the application core, each with a stable machine-readable reason.

Like :class:`scopa.rules.RulesError`, every error has ``reason``, ``message`` and ``field``;
the transports map them to status codes in one place.
"""

from __future__ import annotations

from typing import ClassVar

__all__ = [
    "AppError",
    "ConcurrentUpdate",
    "GameNotFoundError",
    "GameStuck",
    "IdentityInvalid",
    "IdentityRequired",
    "IdentityUnavailable",
    "InvalidArgument",
    "InviteInvalid",
    "PermissionDenied",
    "RequestIdReused",
    "SeatNotYours",
    "SeatTaken",
    "SpectatorInviteRequired",
    "StackedDecksDisabled",
    "StaleEtag",
    "TooManyWatches",
    "Unauthenticated",
    "WaitingForPlayers",
    "WatchIdle",
]


class AppError(Exception):
    """A request the application core refuses. Nothing was changed."""

    reason: ClassVar[str] = "APP_ERROR"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class InvalidArgument(AppError):
    """A malformed request field; ``field`` names it."""

    reason = "INVALID_ARGUMENT"


class GameNotFoundError(AppError):
    """No game of that name (or it expired)."""

    reason = "GAME_NOT_FOUND"


class Unauthenticated(AppError):
    """No token where one is required, or a token that does not verify."""

    reason = "UNAUTHENTICATED"


class PermissionDenied(AppError):
    """A valid token for another game."""

    reason = "PERMISSION_DENIED"


class IdentityInvalid(Unauthenticated):
    """A bearer value that is a JWT and does not verify (or the server takes no identity
    tokens: no ``SCOPA_OIDC_ISSUER``)."""

    reason = "IDENTITY_INVALID"


class IdentityRequired(Unauthenticated):
    """A call about the signed-in player (ListMyGames) without an identity token: none at
    all, or a seat token."""

    reason = "IDENTITY_REQUIRED"


class IdentityUnavailable(AppError):
    """The identity provider's keys cannot be fetched and none are kept: identity tokens fail
    closed until they can (anonymous play goes on)."""

    reason = "IDENTITY_UNAVAILABLE"


class SeatNotYours(PermissionDenied):
    """The seat belongs to a signed-in player, and the caller is someone else (another subject,
    a seat token), or the signed-in caller holds no seat of the game."""

    reason = "SEAT_NOT_YOURS"


class SpectatorInviteRequired(PermissionDenied):
    """A spectator without the spectator token of a game whose spectators need one."""

    reason = "SPECTATOR_INVITE_REQUIRED"


class StaleEtag(AppError):
    """The request's etag is not the game's current one (one wording, whichever call: a write's
    ``etag`` or a REST GET's ``If-Match``)."""

    reason = "STALE_ETAG"

    def __init__(self, sent: str, current: str, *, field: str = "etag") -> None:
        super().__init__(f"etag {sent} is stale: the game's current etag is {current}", field=field)


class ConcurrentUpdate(AppError):
    """Another write to the same game won the race; retry with the same request_id."""

    reason = "CONCURRENT_UPDATE"


class StackedDecksDisabled(AppError):
    """Stacked decks were sent to a server that does not allow them."""

    reason = "STACKED_DECKS_DISABLED"


class InviteInvalid(AppError):
    """The invite code does not open any seat of this game."""

    reason = "INVITE_INVALID"


class SeatTaken(AppError):
    """The invited seat was already claimed."""

    reason = "SEAT_TAKEN"


class WaitingForPlayers(AppError):
    """The game cannot start until every open seat is claimed."""

    reason = "WAITING_FOR_PLAYERS"


class GameStuck(AppError):
    """The game awaits a seat that has no legal action (a rules-engine fault): it cannot go on,
    so no request on it is served. The server logs it (``game_stuck``, with the game and its
    version) and counts it (``scopa.games.stuck``)."""

    reason = "GAME_STUCK"


class BotOnlyGamesDisabled(AppError):
    """Every seat of the new game is a bot, and this server does not accept such games
    (``SCOPA_BOT_ONLY_GAMES``)."""

    reason = "BOT_ONLY_GAMES_DISABLED"


class TooManyWatches(AppError):
    """The client already holds as many WatchGame streams as one client may."""

    reason = "TOO_MANY_WATCHES"


class WatchIdle(AppError):
    """A WatchGame stream saw no new version for the idle limit; watch again to resume."""

    reason = "WATCH_IDLE"


class RequestIdReused(InvalidArgument):
    """A request_id already used (and still cached) for another request or other arguments."""

    reason = "REQUEST_ID_REUSED"

    def __init__(self, message: str) -> None:
        super().__init__(message, field="request_id")
