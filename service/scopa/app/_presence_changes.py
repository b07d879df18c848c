"""What a read of a game's presence changes in what a stream shows (pure): the seats whose
connected state differs between two reads, and the presence message they make."""

from __future__ import annotations

from dataclasses import replace

from scopa.storage import Presence

from ._commands import GameSnapshot, PlayResult, PresenceChange

__all__ = ["changes", "presence_message", "same_presence"]


def changes(before: Presence | None, after: Presence, players: int) -> tuple[PresenceChange, ...]:
    """The seats whose connected state differs between two reads (none without ``before``)."""
    if before is None:
        return ()
    out = []
    for seat in range(players):
        old, new = before.seats.get(seat), after.seats.get(seat)
        was = old is not None and old.connected
        now = new is not None and new.connected
        if was != now:
            out.append(PresenceChange(seat, now, new.last_seen_ms if new is not None else 0))
    return tuple(out)


def presence_message(
    shown: GameSnapshot, before: Presence | None, after: Presence
) -> PlayResult | None:
    """The presence message of a stream that last showed ``shown`` (read with ``before``),
    now that the game's presence is ``after``; None when nothing it shows changed."""
    changed = changes(before, after, len(shown.seats))
    if not changed:
        return None  # a new spectator count alone waits for the stream's next message
    return PlayResult((), replace(shown, presence=after), presence=changed)


def same_presence(kept: Presence | None, presence: Presence) -> bool:
    """Whether two reads show the same (their read times aside)."""
    return (
        kept is not None and kept.seats == presence.seats and kept.spectators == presence.spectators
    )
