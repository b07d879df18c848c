"""Which webhook notifications a commit produces, and their payloads (pure: no I/O).

A commit's notices follow from the game before and after it and the events it logged: a seat
joined, a turn clock ran out, the game finished, and "your turn" for a person's seat that the
game now awaits (and did not await already from the same seat's previous action). A rematch
offer is built by :func:`rematch_offered` for the rematch use case to pass to the commit.

A payload holds only what every seat may see: the game id, the event type, the seat concerned,
the version, whose turn it is, the scores once finished, and timestamps; never a card, a token,
a name or an identity (docs/api.md, "Webhooks").
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final, NamedTuple

from scopa import rules

from ._due import awaited_seat
from ._eventlog import AppEvent, SeatJoined, TurnTimedOut
from ._meta import GameMeta

__all__ = [
    "EVENT_TYPES",
    "FINISHED",
    "REMATCH_OFFERED",
    "SEAT_JOINED",
    "TURN_TIMED_OUT",
    "YOUR_TURN",
    "Notice",
    "body",
    "notices",
    "outbox_payload",
    "rematch_offered",
    "target",
]

YOUR_TURN: Final = "game.your_turn"
SEAT_JOINED: Final = "game.seat_joined"
TURN_TIMED_OUT: Final = "game.turn_timed_out"
FINISHED: Final = "game.finished"
REMATCH_OFFERED: Final = "game.rematch_offered"
EVENT_TYPES: Final = (YOUR_TURN, SEAT_JOINED, TURN_TIMED_OUT, FINISHED, REMATCH_OFFERED)


class Notice(NamedTuple):
    """One notification: its type, the game version it is about and its data."""

    type: str
    game_id: str
    version: int
    data: Mapping[str, Any]


def _turn(state: rules.MatchState, meta: GameMeta) -> int | None:
    """The seat the game awaits (None: finished, or waiting for players)."""
    if state.finished or meta.waiting or not meta.seats:
        return None
    return awaited_seat(state)


def notices(
    game_id: str,
    version: int,
    actor: int,
    before: GameMeta,
    state: rules.MatchState,
    meta: GameMeta,
    events: Sequence[AppEvent],
) -> list[Notice]:
    """The notices of committing ``state`` and ``meta`` as ``version``, the change ``actor``
    (a seat) made to the game whose meta was ``before`` (``GameMeta(())`` for a creation),
    logging ``events``."""
    turn = _turn(state, meta)
    found: list[Notice] = []

    def add(kind: str, **data: Any) -> None:
        found.append(Notice(kind, game_id, version, {"turn": turn, **data}))

    for event in events:
        if isinstance(event, SeatJoined):
            add(SEAT_JOINED, seat=event.seat)
        elif isinstance(event, TurnTimedOut):
            add(TURN_TIMED_OUT, seat=event.seat, forfeited=event.forfeited)
    if state.finished:
        add(
            FINISHED,
            reason=state.finish_reason.value,
            winners=list(state.winners),
            scores=list(state.scores),
        )
    elif turn is not None and not meta.seats[turn].bot:
        started = not before.seats or before.waiting
        if started or turn != actor:
            add(YOUR_TURN, seat=turn)
    return found


def target(meta: GameMeta, deployment: bool, per_game: bool) -> str | None:
    """Where a game's notices go: its own URL (while per-game URLs are allowed), "" the
    deployment's URL, None nowhere (no webhook)."""
    if meta.webhook_url and per_game:
        return meta.webhook_url
    return "" if deployment else None


def rematch_offered(game_id: str, version: int, seat: int, rematch_game_id: str) -> Notice:
    """The notice of ``seat`` offering a rematch of a finished game (the rematch use case
    passes it to its commit): the new game's id, nothing about its seats' cards."""
    return Notice(
        REMATCH_OFFERED,
        game_id,
        version,
        {"turn": None, "seat": seat, "rematch_game_id": rematch_game_id},
    )


def body(notice: Notice, now_ms: int) -> str:
    """The JSON body sent for ``notice`` at ``now_ms`` (the Standard Webhooks payload shape:
    ``type``, ``timestamp``, ``data``)."""
    stamp = datetime.fromtimestamp(now_ms / 1000, UTC).isoformat(timespec="milliseconds")
    data = {"game_id": notice.game_id, "version": notice.version, **notice.data}
    return json.dumps(
        {"type": notice.type, "timestamp": stamp.replace("+00:00", "Z"), "data": data},
        separators=(",", ":"),
    )


def outbox_payload(url: str, notice: Notice, now_ms: int) -> bytes:
    """An outbox entry's payload: the target URL ("": the deployment's), a newline, the body."""
    return f"{url}\n{body(notice, now_ms)}".encode()
