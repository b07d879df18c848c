"""Value types returned by game stores."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import NamedTuple

INITIAL_VERSION = 1
"""Version of a freshly created game; every commit adds one."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A game as loaded: opaque state and meta, its version, and a cached response if any."""

    state: bytes
    meta: bytes
    version: int
    cached_response: bytes | None = None
    cached_state: bytes | None = None
    """The state the game had when ``cached_response`` was recorded (None when that response
    was recorded by an earlier build: such responses carry their state themselves)."""


@dataclass(frozen=True, slots=True)
class CreateResult:
    """Outcome of a create: either a new game, or the response recorded by an earlier create."""

    version: int
    created: bool
    response: bytes | None = None


@dataclass(frozen=True, slots=True)
class Event:
    """One entry of a game's event log, tagged with the version that produced it."""

    version: int
    payload: bytes


def basis_digest(state: bytes, meta: bytes) -> str:
    """The digest of a stored game's state and meta that a commit's ``expected_digest`` names:
    the SHA-1 (hex) of ``<length of state>:<state><meta>`` (commit.lua computes the same with
    ``redis.sha1hex``; the length keeps the split between the two unambiguous)."""
    digest = hashlib.sha1(b"%d:" % len(state), usedforsecurity=False)
    digest.update(state)
    digest.update(meta)
    return digest.hexdigest()


class PublicGame(NamedTuple):
    """One lobby entry as a page lists it."""

    game_id: str
    created_ms: int
    summary: bytes
    """What the last ``list_public`` stored with the entry (opaque to the store; b"" none)."""


@dataclass(frozen=True, slots=True)
class SeatSeen:
    """One seat's presence: whether a stream of it is open now, and when it was last seen."""

    connected: bool
    last_seen_ms: int
    """The seat's last refresh while connected, else when its last stream closed or lapsed."""


@dataclass(frozen=True, slots=True)
class Presence:
    """Who watches a game now (see ``GameStore.presence``)."""

    now_ms: int
    """The store's clock when this was read (ms since the epoch)."""
    seats: dict[int, SeatSeen]
    """Every seat ever seen (seats never seen are absent)."""
    spectators: int
    """How many spectators' streams are open."""
