"""Service-level facts about a game that the rules do not know: seat names and invites."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from scopa.rules import InvalidState

from ._codec import is_keyed, pack, unpack

__all__ = ["GameMeta", "SeatMeta"]


@dataclass(frozen=True, slots=True)
class SeatMeta:
    """One seat: its display name, and for an open seat the digest of its invite code."""

    name: str
    open: bool
    joined: bool
    invite_digest: str = ""
    bot: str = ""
    """The bot level playing this seat (``scopa.bots.Level``), or empty for a person."""


@dataclass(frozen=True, slots=True)
class GameMeta:
    """Everything about a game besides the match state."""

    seats: tuple[SeatMeta, ...]
    resigned: int = -1
    """The seat that resigned, or -1."""
    last_events: bytes = b""
    """The full-truth event log entry of the latest version (filtered per seat when shown)."""

    @property
    def waiting(self) -> bool:
        """Whether some open seat has not been claimed yet."""
        return any(s.open and not s.joined for s in self.seats)

    def with_joined(self, seat: int, name: str) -> GameMeta:
        """A copy with ``seat`` claimed under ``name``."""
        seats = list(self.seats)
        seats[seat] = replace(seats[seat], joined=True, name=name or seats[seat].name)
        return replace(self, seats=tuple(seats))

    def dump(self) -> bytes:
        """Serialise for the store in the keyed format of :mod:`scopa.app._codec`."""
        seats = [
            {
                "name": s.name,
                "open": s.open,
                "joined": s.joined,
                "invite_digest": s.invite_digest,
                "bot": s.bot,
            }
            for s in self.seats
        ]
        return pack({"seats": seats, "resigned": self.resigned}, {"last_events": self.last_events})

    @classmethod
    def load(cls, blob: bytes) -> GameMeta:
        """Read what :meth:`dump` wrote, or a format-1 meta (positional JSON head)."""
        if not is_keyed(blob):
            return cls._load_format_1(blob)
        record, blobs = unpack(blob)
        try:
            seats = tuple(
                SeatMeta(s["name"], s["open"], s["joined"], s["invite_digest"], s.get("bot", ""))
                for s in record["seats"]
            )
            return cls(seats, record["resigned"], blobs["last_events"])
        except (KeyError, TypeError) as exc:
            raise InvalidState("corrupt game meta") from exc

    @classmethod
    def _load_format_1(cls, blob: bytes) -> GameMeta:
        try:
            size = int.from_bytes(blob[:4], "big")
            rows, resigned = json.loads(blob[4 : 4 + size])
            seats = tuple(SeatMeta(n, o, j, d) for n, o, j, d in rows)
            return cls(seats, resigned, bytes(blob[4 + size :]))
        except (ValueError, TypeError) as exc:
            raise InvalidState("corrupt game meta") from exc
