"""Presence to messages: a view's seats (with ``connected`` / ``last_seen_time``), its spectator
fields, and a presence message's ``PresenceChanged`` list (constructor-argument dicts, filled
in place by upb as the rest of a view)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from scopa.app import GameSnapshot, PresenceChange
from scopa_client.v1 import scopa_pb2 as pb

__all__ = [
    "SEAT_NAMES",
    "SeatArgs",
    "presence_to_pb",
    "seat_args",
    "seat_fields",
    "seat_kwargs",
    "spectator_fields",
    "view_times",
]


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


SeatArgs = tuple[int, str, int, int, bool, bool, str, int, bool, bool, bool | None, int | None]
"""A seat's SeatInfo values, in :data:`SEAT_NAMES`' order (``connected`` None: no presence
read; ``last_seen_time`` None: not seen, else its milliseconds). Hashable: the wire writer keeps
a seat's bytes by it (:mod:`._view_wire`), so a field added here is in that key too."""

SEAT_NAMES: Final = (
    "seat",
    "display_name",
    "side",
    "hand_size",
    "open",
    "resigned",
    "bot",
    "timeouts",
    "out",
    "answering",
    "connected",
    "last_seen_time",
)
_PLAIN: Final = len(SEAT_NAMES) - 2
_PLAIN_NAMES: Final = SEAT_NAMES[:_PLAIN]
"""The fields before ``connected`` and ``last_seen_time`` (those are set only when known)."""


def seat_args(snapshot: GameSnapshot, i: int, answering: bool) -> SeatArgs:
    """Seat ``i``'s SeatInfo values, with its presence when the snapshot has it;
    ``answering``: it is to answer a claim."""
    view, meta = snapshot.view, snapshot.seats[i]
    connected: bool | None = None
    last_seen: int | None = None
    presence = snapshot.presence
    if presence is not None:
        seen = presence.seats.get(i)
        connected = seen is not None and seen.connected
        if seen is not None:
            last_seen = presence.now_ms if seen.connected else seen.last_seen_ms
    return (
        i,
        meta.name,
        view.side_of_seat[i],
        view.hand_sizes[i],
        meta.open and not meta.joined,
        snapshot.resigned == i,
        meta.bot,
        meta.timeouts,
        i in view.out,
        answering,
        connected,
        last_seen,
    )


def seat_kwargs(args: SeatArgs) -> dict[str, Any]:
    """The SeatInfo constructor arguments of ``args``."""
    seat: dict[str, Any] = dict(zip(_PLAIN_NAMES, args, strict=False))
    connected, last_seen = args[10], args[11]
    if connected is not None:
        seat["connected"] = connected
    if last_seen is not None:
        seat["last_seen_time"] = _time(last_seen)
    return seat


def seat_fields(snapshot: GameSnapshot, i: int, answering: bool) -> dict[str, Any]:
    """Seat ``i``'s SeatInfo constructor arguments (:func:`seat_args` as a dict)."""
    return seat_kwargs(seat_args(snapshot, i, answering))


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
