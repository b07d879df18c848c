"""A game's seats (pure): how CreateGame seats its players, and which seat a join claims.

Tokens and invite codes are derived from the request id (:class:`._tokens.TokenAuthority`),
so nothing secret is stored and a retried request gets the same credentials.
"""

from __future__ import annotations

import hmac
import random
import secrets
from dataclasses import replace
from typing import Any, Final, NamedTuple

from scopa import rules

from ._checks import check_bot, check_clock, check_display_name, check_preset, check_webhook
from ._clock import TimeoutAction
from ._commands import CoreSettings, CreateGameCommand, SeatSpec
from ._due import deadline
from ._errors import (
    BotOnlyGamesDisabled,
    InvalidArgument,
    InviteInvalid,
    SeatTaken,
    StackedDecksDisabled,
)
from ._eventlog import encode_log
from ._meta import GameMeta, SeatMeta
from ._tokens import TokenAuthority

__all__ = ["BOT_ONLY_HAND_LIMIT", "NewGame", "invited_seat", "new_game", "open_seat"]

BOT_ONLY_HAND_LIMIT: Final = 20
"""The most hands a game without a person plays (its ``hand_limit`` unless a lower one is
given): nobody watches it end, so the server's work on it stays bounded."""


class NewGame(NamedTuple):
    """A game CreateGame is about to store, with the credentials it hands out."""

    game_id: str
    preset: str
    state: rules.MatchState
    meta: GameMeta
    tokens: tuple[tuple[int, str], ...]
    """(seat, token) of each seat the creator holds."""
    invites: tuple[tuple[int, str], ...]
    """(seat, invite code) of each open seat."""

    @property
    def first_seat(self) -> int | None:
        """The creator's first seat, whose view the response shows (None: a spectator's)."""
        return self.tokens[0][0] if self.tokens else None


def new_game(
    cmd: CreateGameCommand,
    request_id: str | None,
    settings: CoreSettings,
    tokens: TokenAuthority,
    rng: random.Random,
    now_ms: int,
    owner: str = "",
) -> NewGame:
    """Check ``cmd`` and deal its game (INVALID_ARGUMENT and kin name what is wrong).

    With ``owner`` (a signed-in creator, :meth:`TokenAuthority.owner_digest`) the seats the
    creator holds are bound to it and get no seat token (an empty one in ``tokens``)."""
    check_preset(cmd.preset)
    overrides: dict[str, Any] = dict(cmd.options)
    if cmd.first_dealer is not None:
        overrides["first_dealer"] = cmd.first_dealer
    if cmd.seats:
        overrides.setdefault("players", len(cmd.seats))
    if cmd.seats and all(spec.bot for spec in cmd.seats):
        _limit_bot_only(overrides)
    ruleset = rules.make_ruleset(cmd.preset, overrides)
    players = ruleset.options.players
    specs = list(cmd.seats) or [SeatSpec(f"Player {i + 1}") for i in range(players)]
    if len(specs) != players:
        raise InvalidArgument(f"this ruleset needs {players} seats", field="seats")
    for i, spec in enumerate(specs):
        check_display_name(spec.name, f"seats[{i}].display_name")
        check_bot(spec, f"seats[{i}].bot")
    if all(spec.bot for spec in specs) and not settings.allow_bot_only_games:
        raise BotOnlyGamesDisabled(
            "every seat is a bot, and this server does not host games without a person"
        )
    check_clock(cmd)
    check_webhook(cmd.webhook_url, settings.per_game_webhooks)
    if cmd.stacked_decks and not settings.allow_stacked_decks:
        raise StackedDecksDisabled("this server does not accept stacked decks")
    decks = tuple(
        rules.check_deck(d, f"stacked_decks[{i}]", ruleset.options.deck_size)
        for i, d in enumerate(cmd.stacked_decks)
    )
    state, events = rules.new_match(ruleset, rng=rng, decks=decks)

    game_id = tokens.derive_game_id(request_id) if request_id else secrets.token_urlsafe(16)
    seats: list[SeatMeta] = []
    invites: list[tuple[int, str]] = []
    for seat, spec in enumerate(specs):
        if spec.open:
            code, digest = tokens.new_invite(game_id, seat, request_id)
            invites.append((seat, code))
            seats.append(SeatMeta(spec.name, True, False, digest))
        elif spec.bot:
            seats.append(SeatMeta(spec.name or f"Bot {seat + 1}", False, True, bot=spec.bot))
        else:
            seats.append(SeatMeta(spec.name or f"Player {seat + 1}", False, True, owner=owner))
    meta = GameMeta(
        tuple(seats),
        last_events=encode_log(events),
        turn_timeout_s=cmd.turn_timeout_s,
        on_timeout=cmd.on_timeout or TimeoutAction.BOT,
        forfeit_after=cmd.forfeit_after,
        public=cmd.public,
        created_ms=now_ms,
        timeout_bot=cmd.timeout_bot,
        webhook_url=cmd.webhook_url or "",
        spectators_invite=cmd.spectators_invite,
    )
    meta = replace(meta, deadline_ms=deadline(state, meta, now_ms, settings))
    held = tuple(
        (s, "" if owner else tokens.issue(game_id, s, request_id))
        for s in range(players)
        if not specs[s].open and not specs[s].bot
    )
    return NewGame(game_id, ruleset.preset, state, meta, held, tuple(invites))


def _limit_bot_only(overrides: dict[str, Any]) -> None:
    """A game without a person plays at most :data:`BOT_ONLY_HAND_LIMIT` hands: its
    ``hand_limit`` unless a lower one is given (a value of the wrong type is the ruleset's to
    refuse)."""
    given = overrides.get("hand_limit")
    if given is None:
        overrides["hand_limit"] = BOT_ONLY_HAND_LIMIT
    elif isinstance(given, int) and not 0 < given <= BOT_ONLY_HAND_LIMIT:
        raise rules.InvalidOption(
            f"a game without a person plays at most {BOT_ONLY_HAND_LIMIT} hands:"
            f" give hand_limit 1-{BOT_ONLY_HAND_LIMIT}",
            field="hand_limit",
        )


def invited_seat(tokens: TokenAuthority, game_id: str, meta: GameMeta, code: str) -> int:
    """The open seat ``code`` was issued for (INVITE_INVALID when none)."""
    if not code:
        raise InvalidArgument("invite_code is required", field="invite_code")
    for seat, s in enumerate(meta.seats):
        if (
            s.open
            and s.invite_digest
            and hmac.compare_digest(
                s.invite_digest.encode(), tokens.invite_digest(game_id, seat, code).encode()
            )
        ):
            return seat
    raise InviteInvalid("this invite code opens no seat of this game")


def open_seat(meta: GameMeta, state: rules.MatchState) -> int:
    """The lowest open seat of a public game (SEAT_TAKEN when every seat is taken)."""
    if state.finished:
        raise rules.GameOver("the game is over")
    for seat, s in enumerate(meta.seats):
        if s.open and not s.joined:
            return seat
    raise SeatTaken("every seat of this game is taken")
