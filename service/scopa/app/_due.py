"""What is due in a game, and when: the bot turns and the turn clocks (pure; times in ms).

A game awaits one seat's action (``state.turn``, whatever the phase). A bot's turn is due at
once; a person's when the turn clock runs out, then the timeout bot plays it or the seat
forfeits. The async shell (:mod:`._turns`) takes what these functions say is due.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from scopa import bots, rules

from ._checks import DEFAULT_FORFEIT_AFTER
from ._clock import TimeoutAction
from ._commands import CoreSettings
from ._eventlog import AppEvent, TurnTimedOut
from ._meta import GameMeta

__all__ = ["TimedOut", "awaited_seat", "deadline", "is_due", "time_out", "timeout_bot", "ttl"]


def awaited_seat(state: rules.MatchState) -> int:
    """The seat whose action the game awaits, in whatever phase it is.

    ``apply_action`` takes an action only from ``state.turn`` (the seat ``legal_actions``
    lists actions for), so the turn clock and the bots follow it, not a "current player"
    of the play phase: a phase that awaits another seat's answer hands ``turn`` to that seat.
    """
    return state.turn


def is_due(state: rules.MatchState, meta: GameMeta, now_ms: int) -> bool:
    """Whether the awaited action is due now: a bot's turn, or a person's run-out clock."""
    if state.finished or meta.waiting:
        return False
    if meta.seats[awaited_seat(state)].bot:
        return True
    return bool(meta.deadline_ms) and now_ms >= meta.deadline_ms


def deadline(state: rules.MatchState, meta: GameMeta, now_ms: int, settings: CoreSettings) -> int:
    """When the action awaited in ``state`` is due (0: never): a bot's turn after the grace
    (should its replica die before playing), a person's when the turn clock runs out."""
    if state.finished or meta.waiting:
        return 0
    if meta.seats[awaited_seat(state)].bot:
        wait = settings.bot_budget.seconds + settings.bot_grace_s
        return now_ms + round(wait * 1000)
    if meta.turn_timeout_s:
        return now_ms + meta.turn_timeout_s * 1000
    return 0


def ttl(state: rules.MatchState, meta: GameMeta, settings: CoreSettings) -> float:
    """How long the store keeps the game after this version (seconds)."""
    if state.finished:
        return settings.finished_ttl_s
    return settings.waiting_ttl_s if meta.waiting else settings.active_ttl_s


def timeout_bot(meta: GameMeta, settings: CoreSettings) -> bots.Level:
    """The bot that plays a timed-out person's turn: the game's own, else the server's."""
    return bots.Level(meta.timeout_bot) if meta.timeout_bot else settings.timeout_bot


class TimedOut(NamedTuple):
    """A person's run-out turn: the meta with the timeout counted, and either the forfeit
    (``forfeit``: the new state and events) or the bot to play the turn (``bot``)."""

    meta: GameMeta
    timeouts: int
    """The seat's timeouts so far, this one included."""
    forfeit: tuple[rules.MatchState, list[AppEvent]] | None
    bot: bots.Level


def time_out(
    state: rules.MatchState, meta: GameMeta, seat: int, settings: CoreSettings
) -> TimedOut:
    """What ``seat``'s run-out clock does: the timeout bot plays, or the seat forfeits."""
    meta = meta.with_timeout(seat)
    count = meta.seats[seat].timeouts
    limit = meta.forfeit_after or DEFAULT_FORFEIT_AFTER
    level = timeout_bot(meta, settings)
    if meta.on_timeout == TimeoutAction.FORFEIT and count >= limit:
        new_state, events = rules.resign(state, seat)
        logged: list[AppEvent] = [TurnTimedOut(seat, count, True, ""), *events]
        return TimedOut(replace(meta, resigned=seat), count, (new_state, logged), level)
    return TimedOut(meta, count, None, level)
