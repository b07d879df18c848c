"""Service-level facts about a game that the rules do not know: seat names and invites."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from scopa.rules import InvalidState

__all__ = ["GameMeta", "SeatMeta"]


@dataclass(frozen=True, slots=True)
class SeatMeta:
    """One seat: its display name, and for an open seat the digest of its invite code."""

    name: str
    open: bool
    joined: bool
    invite_digest: str = ""


@dataclass(frozen=True, slots=True)
class GameMeta:
    """Everything about a game besides the match state."""

    seats: tuple[SeatMeta, ...]

    @property
    def waiting(self) -> bool:
        """Whether some open seat has not been claimed yet."""
        return any(s.open and not s.joined for s in self.seats)

    def with_joined(self, seat: int, name: str) -> GameMeta:
        """A copy with ``seat`` claimed under ``name``."""
        seats = list(self.seats)
        seats[seat] = replace(seats[seat], joined=True, name=name or seats[seat].name)
        return GameMeta(tuple(seats))

    def dump(self) -> bytes:
        """Serialise for the store."""
        rows = [[s.name, s.open, s.joined, s.invite_digest] for s in self.seats]
        return json.dumps(rows, separators=(",", ":")).encode()

    @classmethod
    def load(cls, blob: bytes) -> GameMeta:
        """Read what :meth:`dump` wrote."""
        try:
            return cls(tuple(SeatMeta(n, o, j, d) for n, o, j, d in json.loads(blob)))
        except (ValueError, TypeError) as exc:
            raise InvalidState("corrupt game meta") from exc
