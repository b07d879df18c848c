"""What a caller sees of a game version: its seat's snapshot and a write's result (pure).

Built from the decoded state and meta only: never another seat's hand or the stock
(:func:`scopa.rules.observe`), and only the events the seat may see (:func:`._eventlog.visible`).
"""

from __future__ import annotations

from collections.abc import Sequence

from scopa import rules

from ._commands import GameSnapshot, GameStatus, PlayResult
from ._eventlog import AppEvent, VersionedEvent, decode_log, visible
from ._meta import GameMeta, SeatMeta

__all__ = ["result", "snapshot", "status"]


def status(state: rules.MatchState, meta: GameMeta) -> GameStatus:
    """Where the game stands."""
    if state.finished:
        return GameStatus.FINISHED
    if meta.waiting:
        return GameStatus.WAITING_FOR_PLAYERS
    return GameStatus.ACTIVE


def snapshot(
    game_id: str,
    version: int,
    state: rules.MatchState,
    meta: GameMeta,
    seat: int | None,
    timeout_bot: str,
    shown: tuple[VersionedEvent, ...] | None = None,
) -> GameSnapshot:
    """``seat``'s snapshot (None: a spectator's); ``shown``: meta.last_events already decoded
    for ``seat``; ``timeout_bot``: the level that plays a run-out turn of this game (shown
    only when the game has a turn clock)."""
    where = status(state, meta)
    view = rules.observe(state, seat)
    if where is GameStatus.WAITING_FOR_PLAYERS:
        view = view._replace(legal_moves=())
    public = tuple(
        SeatMeta(s.name, s.open, s.joined, bot=s.bot, timeouts=s.timeouts) for s in meta.seats
    )
    last: tuple[VersionedEvent, ...] = () if shown is None else shown
    if meta.last_events and shown is None:
        last = tuple(
            VersionedEvent(version, e) for e in visible(decode_log(meta.last_events), seat)
        )
    clocked = where is GameStatus.ACTIVE and meta.turn_timeout_s > 0
    return GameSnapshot(
        game_id,
        version,
        where,
        public,
        view,
        last,
        meta.resigned,
        deadline_ms=meta.deadline_ms if clocked else 0,
        turn_timeout_s=meta.turn_timeout_s,
        public=meta.public,
        created_ms=meta.created_ms,
        timeout_bot=timeout_bot if meta.turn_timeout_s else "",
        rematch_game_id=meta.rematch,
        previous_game_id=meta.rematch_of,
        spectators_invite=meta.spectators_invite,
    )


def result(
    game_id: str,
    seat: int,
    version: int,
    state: rules.MatchState,
    meta: GameMeta,
    events: Sequence[AppEvent],
    timeout_bot: str,
) -> PlayResult:
    """A write's result: the events it logged as ``seat`` may see them, and the snapshot."""
    # meta.last_events is the log entry of ``events``: no need to decode it again.
    shown = tuple(VersionedEvent(version, e) for e in visible(events, seat))
    return PlayResult(shown, snapshot(game_id, version, state, meta, seat, timeout_bot, shown))
