"""The checks of a request's input, before anything is loaded: each refuses with
:class:`InvalidArgument` naming the field, and changes nothing."""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from scopa import bots
from scopa.webhooks import check_url

from ._clock import TimeoutAction
from ._commands import CreateGameCommand, SeatSpec
from ._errors import InvalidArgument

__all__ = [
    "DEFAULT_FORFEIT_AFTER",
    "check_bot",
    "check_clock",
    "check_display_name",
    "check_game_id",
    "check_preset",
    "check_request_id",
    "check_webhook",
]

_REQUEST_ID: Final = re.compile(r"[A-Za-z0-9._:-]{1,128}")
GAME_ID_PATTERN: Final = "[A-Za-z0-9_-]{1,64}"
"""A game id (the part of a name after ``games/``); the OpenAPI document's path pattern."""
_GAME_ID: Final = re.compile(GAME_ID_PATTERN)
_NAME_LIMIT: Final = 64
_NAME_REFUSED: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Unicode categories a display name may not contain: control characters (NUL, ESC of ANSI
escapes), format characters (bidi overrides, zero-width), surrogates, private use, unassigned
code points and line/paragraph separators."""
_MAX_TURN_TIMEOUT_S: Final = 7 * 24 * 3600
DEFAULT_FORFEIT_AFTER: Final = 3
"""With ``on_timeout`` "forfeit" and no ``forfeit_after``: the third timeout resigns the seat."""
_MAX_FORFEIT_AFTER: Final = 100


def check_game_id(game_id: str) -> None:
    if not _GAME_ID.fullmatch(game_id):
        message = "a game id is 1-64 characters of A-Z a-z 0-9 _ -"
        if game_id.startswith("games/"):
            message += f" (not a name: the id of games/{game_id[6:]} is {game_id[6:]})"
        raise InvalidArgument(message, field="game_id")


def check_request_id(request_id: str) -> str | None:
    if not request_id:
        return None
    if not _REQUEST_ID.fullmatch(request_id):
        raise InvalidArgument(
            "request_id must be 1-128 characters of A-Z a-z 0-9 . _ : -", field="request_id"
        )
    return request_id


def check_display_name(name: str, field: str) -> None:
    if len(name) > _NAME_LIMIT:
        raise InvalidArgument(f"{field} is at most {_NAME_LIMIT} characters", field=field)
    if any(unicodedata.category(ch) in _NAME_REFUSED for ch in name):
        raise InvalidArgument(
            f"{field} may not contain control, format (e.g. bidi override) or unassigned"
            " characters",
            field=field,
        )


def check_preset(preset: str) -> None:
    if not preset:
        raise InvalidArgument("preset is required (e.g. scopa)", field="preset")


def check_bot(spec: SeatSpec, field: str) -> None:
    if not spec.bot:
        return
    if spec.bot not in set(bots.Level):
        levels = ", ".join(bots.Level)
        raise InvalidArgument(f"unknown bot level {spec.bot!r}; one of {levels}", field=field)
    if spec.open:
        raise InvalidArgument("a bot seat cannot also be open", field=field)


def check_webhook(url: str | None, allowed: bool) -> None:
    """A game's own webhook URL: only where the server allows them, and a URL it may call."""
    if url is None:
        return
    if not allowed:
        raise InvalidArgument(
            "this server does not accept a game's own webhook (SCOPA_WEBHOOK_ALLOW_PER_GAME)",
            field="webhook.url",
        )
    if not url:
        raise InvalidArgument("webhook.url is required with webhook", field="webhook.url")
    try:
        check_url(url)
    except ValueError as exc:
        raise InvalidArgument(str(exc), field="webhook.url") from None


def check_clock(cmd: CreateGameCommand) -> None:
    if not 0 <= cmd.turn_timeout_s <= _MAX_TURN_TIMEOUT_S:
        raise InvalidArgument(
            f"turn_timeout_s is 0 (no clock) to {_MAX_TURN_TIMEOUT_S}", field="turn_timeout_s"
        )
    if cmd.on_timeout and cmd.on_timeout not in set(TimeoutAction):
        raise InvalidArgument(
            f"unknown timeout action {cmd.on_timeout!r}; one of " + ", ".join(TimeoutAction),
            field="timeout_action",
        )
    if not 0 <= cmd.forfeit_after <= _MAX_FORFEIT_AFTER:
        raise InvalidArgument(
            f"forfeit_after is 0 (the default, {DEFAULT_FORFEIT_AFTER}) to {_MAX_FORFEIT_AFTER}",
            field="forfeit_after",
        )
    if cmd.timeout_bot and cmd.timeout_bot not in set(bots.Level):
        levels = ", ".join(bots.Level)
        raise InvalidArgument(
            f"unknown timeout bot level {cmd.timeout_bot!r}; one of {levels}",
            field="timeout_bot",
        )
    if (cmd.on_timeout or cmd.forfeit_after or cmd.timeout_bot) and not cmd.turn_timeout_s:
        raise InvalidArgument(
            "timeout_action, forfeit_after and timeout_bot need a turn clock (turn_timeout_s)",
            field="turn_timeout_s",
        )
