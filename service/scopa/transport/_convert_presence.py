"""Presence to messages: a view's seats (with ``connected`` / ``last_seen_time``), its spectator
fields, and a presence message's ``PresenceChanged`` list (constructor-argument dicts, filled
in place by upb as the rest of a view)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from scopa.app import GameSnapshot, PresenceChange
from scopa_client.v1 import scopa_pb2 as pb

__all__ = ["presence_to_pb", "seat_fields", "spectator_fields", "view_times"]


def _time(ms: int) -> dict[str, int]:
    """A Timestamp's constructor arguments for ``ms`` since the epoch."""
    seconds, millis = divmod(ms, 1000)
    return dict(seconds=seconds, nanos=millis * 1_000_000)


def view_times(snapshot: GameSnapshot) -> dict[str, Any]:
    """The view's timestamps (its turn's deadline, its creation) as constructor arguments; the
    same fields as ``_convert.with_view`` sets on the message (from milliseconds, as here)."""
    times: dict[str, Any] = {}
    if snapshot.deadline_ms:
        times["turn_deadline"] = _time(snapshot.deadline_ms)
    if snapshot.created_ms:
        times["create_time"] = _time(snapshot.created_ms)
    return times


def seat_fields(snapshot: GameSnapshot, i: int, answering: bool) -> dict[str, Any]:
    """Seat ``i``'s SeatInfo constructor arguments, with its presence (``connected``,
    ``last_seen_time``) when the snapshot has it; ``answering``: it is to answer a claim."""
    view, meta = snapshot.view, snapshot.seats[i]
    seat: dict[str, Any] = dict(
        seat=i,
        display_name=meta.name,
        side=view.side_of_seat[i],
        hand_size=view.hand_sizes[i],
        open=meta.open and not meta.joined,
        resigned=snapshot.resigned == i,
        bot=meta.bot,
        timeouts=meta.timeouts,
        out=i in view.out,
        answering=answering,
    )
    presence = snapshot.presence
    if presence is not None:
        seen = presence.seats.get(i)
        seat["connected"] = seen is not None and seen.connected
        if seen is not None:
            ms = presence.now_ms if seen.connected else seen.last_seen_ms
            seat["last_seen_time"] = _time(ms)
    return seat


def spectator_fields(snapshot: GameSnapshot) -> dict[str, Any]:
    """The view's spectator fields."""
    presence = snapshot.presence
    invite = snapshot.spectators_invite
    return dict(
        spectator_count=None if presence is None else presence.spectators,
        spectators=pb.SPECTATOR_ACCESS_INVITE_ONLY if invite else pb.SPECTATOR_ACCESS_PUBLIC,
        spectator_token=snapshot.spectator_token,
    )


def presence_to_pb(changes: Iterable[PresenceChange]) -> list[dict[str, Any]]:
    """A presence message's changes as PresenceChanged constructor arguments."""
    return [
        dict(seat=c.seat, connected=c.connected, last_seen_time=_time(c.last_seen_ms))
        for c in changes
    ]
