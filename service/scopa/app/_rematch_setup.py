"""How a finished game's rematch is set up (pure): its ruleset, with the first deal moved on
to the next seat, and its meta, with the finished game's seats and settings."""

from __future__ import annotations

from scopa import rules

from ._errors import AppError
from ._meta import GameMeta, SeatMeta

__all__ = ["RematchUnavailable", "rematch_meta", "rematch_ruleset"]


class RematchUnavailable(AppError):
    """The finished game cannot have a rematch (a seat nobody took, rules no longer offered)."""

    reason = "REMATCH_UNAVAILABLE"


def rematch_ruleset(ruleset: rules.Ruleset) -> rules.Ruleset:
    """The finished game's ruleset with the first deal moved on to the next seat."""
    options = ruleset.options
    overrides = ruleset.overrides()
    overrides["first_dealer"] = (options.first_dealer_seat + 1) % options.players
    try:
        return rules.make_ruleset(ruleset.preset, overrides)
    except rules.InvalidOption as exc:  # a ruleset this release no longer accepts
        raise RematchUnavailable(f"this game's rules are no longer offered: {exc}") from None


def rematch_meta(game_id: str, meta: GameMeta, now_ms: int) -> GameMeta:
    """The rematch's meta (its log and deadline still to be set): the finished game's seats,
    clock, visibility, spectators' access and webhook, linked back to it."""
    if meta.waiting:
        raise RematchUnavailable("a seat of this game was never taken; create a new game")
    seats = tuple(SeatMeta(s.name, False, True, bot=s.bot, owner=s.owner) for s in meta.seats)
    return GameMeta(
        seats,
        turn_timeout_s=meta.turn_timeout_s,
        on_timeout=meta.on_timeout,
        forfeit_after=meta.forfeit_after,
        public=meta.public,
        created_ms=now_ms,
        timeout_bot=meta.timeout_bot,
        rematch_of=game_id,
        tokens_of=meta.tokens_of or game_id,
        webhook_url=meta.webhook_url,
        spectators_invite=meta.spectators_invite,
    )
