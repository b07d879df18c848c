"""Service-level facts about a game that the rules do not know: seat names and invites.

A key of the meta record (or of a seat's record, or a named blob) that this release does not
know was written by a newer one: it is kept as it was read and written back unchanged, so a
replica of an earlier release rewriting the meta during a rolling update drops nothing. A field
that such a replica must not carry over unchanged needs a new stored format instead
(docs/versioning.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Final

from scopa._frozen import frozen_init
from scopa.rules import InvalidState

from ._codec import is_keyed, pack, unpack

__all__ = ["GameMeta", "SeatMeta"]

Unknown = tuple[tuple[str, str], ...]
"""Keys a newer release wrote that this one does not know, each with its value's JSON text."""

_SEAT_KEYS: Final = frozenset(
    {"name", "open", "joined", "invite_digest", "bot", "timeouts", "owner"}
)
_META_KEYS: Final = frozenset(
    {
        "seats",
        "resigned",
        "clock",
        "deadline_ms",
        "public",
        "created_ms",
        "timeout_bot",
        "rematch",
        "rematch_of",
        "tokens_of",
        "webhook",
        "spectators_invite",
    }
)
_BLOBS: Final = frozenset({"last_events"})


def _unknown(record: dict[str, Any], known: frozenset[str]) -> Unknown:
    """The keys of ``record`` not in ``known``, in their order, with their values as JSON."""
    if record.keys() <= known:
        return ()
    return tuple([(k, json.dumps(v)) for k, v in record.items() if k not in known])


def _restore(record: dict[str, Any], unknown: Unknown) -> dict[str, Any]:
    """``record`` with the unknown keys it was read with put back."""
    for key, text in unknown:
        record[key] = json.loads(text)
    return record


@dataclass(frozen=True, slots=True)
class SeatMeta:
    """One seat: its display name, and for an open seat the digest of its invite code."""

    name: str
    open: bool
    joined: bool
    invite_digest: str = ""
    bot: str = ""
    """The bot level playing this seat (``scopa.bots.Level``), or empty for a person."""
    timeouts: int = 0
    """How many of this seat's turns ran out of time (turn clocks)."""
    owner: str = ""
    """The signed-in player holding the seat: the digest of its issuer and subject
    (``TokenAuthority.owner_digest``), never the subject itself; empty for a seat held by a
    seat token, a bot or nobody yet. Absent from metas stored before identity tokens."""
    unknown: Unknown = ()
    """This seat's keys written by a newer release, kept to be written back."""

    def __init__(  # compiled by mypyc, unlike the generated one (scopa._frozen)
        self,
        name: str,
        open: bool,
        joined: bool,
        invite_digest: str = "",
        bot: str = "",
        timeouts: int = 0,
        owner: str = "",
        unknown: Unknown = (),
    ) -> None:
        (
            self.name,  # type: ignore[misc]
            self.open,  # type: ignore[misc]
            self.joined,  # type: ignore[misc]
            self.invite_digest,  # type: ignore[misc]
            self.bot,  # type: ignore[misc]
            self.timeouts,  # type: ignore[misc]
            self.owner,  # type: ignore[misc]
            self.unknown,  # type: ignore[misc]
        ) = (name, open, joined, invite_digest, bot, timeouts, owner, unknown)


@dataclass(frozen=True, slots=True)
class GameMeta:
    """Everything about a game besides the match state."""

    seats: tuple[SeatMeta, ...]
    resigned: int = -1
    """The seat that resigned, or -1."""
    last_events: bytes = b""
    """The full-truth event log entry of the latest version (filtered per seat when shown)."""
    turn_timeout_s: int = 0
    """The turn clock: seconds a person's seat has for each action (0: no clock)."""
    on_timeout: str = "bot"
    """What a timeout does (``scopa.app.TimeoutAction``)."""
    forfeit_after: int = 0
    """With ``on_timeout`` "forfeit": the seat's timeout that resigns it."""
    deadline_ms: int = 0
    """When the awaited action is due, ms since the epoch by the store's clock (0: none)."""
    public: bool = False
    """Listed in the lobby while waiting for players."""
    created_ms: int = 0
    """When the game was created, ms since the epoch by the store's clock."""
    timeout_bot: str = ""
    """The bot level that plays a timed-out person's turn (empty: the server's default)."""
    rematch: str = ""
    """A finished game's rematch (its game id), once a seat asked for one (:mod:`._rematch`)."""
    rematch_of: str = ""
    """The finished game this one is the rematch of (its game id), or empty."""
    tokens_of: str = ""
    """A rematch's: the game whose seat tokens act for this game's seats (the first game of a
    chain of rematches), or empty (this game's own tokens)."""
    unknown: Unknown = ()
    """Keys of the meta record written by a newer release, kept to be written back."""
    unknown_blobs: tuple[tuple[str, bytes], ...] = ()
    """Named blobs written by a newer release, kept to be written back."""
    webhook_url: str = ""
    """The game's own webhook URL (CreateGame ``webhook``); never shown to anyone."""
    spectators_invite: bool = False
    """Spectators need the game's spectator token (CreateGame's ``spectators`` option)."""

    def __init__(  # compiled by mypyc, unlike the generated one (scopa._frozen)
        self,
        seats: tuple[SeatMeta, ...],
        resigned: int = -1,
        last_events: bytes = b"",
        turn_timeout_s: int = 0,
        on_timeout: str = "bot",
        forfeit_after: int = 0,
        deadline_ms: int = 0,
        public: bool = False,
        created_ms: int = 0,
        timeout_bot: str = "",
        rematch: str = "",
        rematch_of: str = "",
        tokens_of: str = "",
        unknown: Unknown = (),
        unknown_blobs: tuple[tuple[str, bytes], ...] = (),
        webhook_url: str = "",
        spectators_invite: bool = False,
    ) -> None:
        (
            self.seats,  # type: ignore[misc]
            self.resigned,  # type: ignore[misc]
            self.last_events,  # type: ignore[misc]
            self.turn_timeout_s,  # type: ignore[misc]
            self.on_timeout,  # type: ignore[misc]
            self.forfeit_after,  # type: ignore[misc]
            self.deadline_ms,  # type: ignore[misc]
            self.public,  # type: ignore[misc]
            self.created_ms,  # type: ignore[misc]
            self.timeout_bot,  # type: ignore[misc]
            self.rematch,  # type: ignore[misc]
            self.rematch_of,  # type: ignore[misc]
            self.tokens_of,  # type: ignore[misc]
            self.unknown,  # type: ignore[misc]
            self.unknown_blobs,  # type: ignore[misc]
            self.webhook_url,  # type: ignore[misc]
            self.spectators_invite,  # type: ignore[misc]
        ) = (
            seats,
            resigned,
            last_events,
            turn_timeout_s,
            on_timeout,
            forfeit_after,
            deadline_ms,
            public,
            created_ms,
            timeout_bot,
            rematch,
            rematch_of,
            tokens_of,
            unknown,
            unknown_blobs,
            webhook_url,
            spectators_invite,
        )

    @property
    def waiting(self) -> bool:
        """Whether some open seat has not been claimed yet."""
        return any(s.open and not s.joined for s in self.seats)

    def with_joined(self, seat: int, name: str, owner: str = "") -> GameMeta:
        """A copy with ``seat`` claimed under ``name`` (by the signed-in ``owner``, if any)."""
        seats = list(self.seats)
        seats[seat] = replace(seats[seat], joined=True, name=name or seats[seat].name, owner=owner)
        return replace(self, seats=tuple(seats))

    def owned_seat(self, owner: str, turn: int) -> int | None:
        """The seat ``owner`` acts for: ``turn`` if it holds that one, else its lowest (None:
        it holds none)."""
        held = [seat for seat, s in enumerate(self.seats) if owner and s.owner == owner]
        if not held:
            return None
        return turn if turn in held else held[0]

    def with_timeout(self, seat: int) -> GameMeta:
        """A copy counting one more timeout of ``seat``."""
        seats = list(self.seats)
        seats[seat] = replace(seats[seat], timeouts=seats[seat].timeouts + 1)
        return replace(self, seats=tuple(seats))

    def committed(self, last_events: bytes, deadline_ms: int) -> GameMeta:
        """A copy with a new version's event log entry and deadline: what every commit
        changes (``dataclasses.replace`` walks every field on each move; this does not)."""
        return GameMeta(
            self.seats,
            self.resigned,
            last_events,
            self.turn_timeout_s,
            self.on_timeout,
            self.forfeit_after,
            deadline_ms,
            self.public,
            self.created_ms,
            self.timeout_bot,
            self.rematch,
            self.rematch_of,
            self.tokens_of,
            self.unknown,
            self.unknown_blobs,
            self.webhook_url,
            self.spectators_invite,
        )

    def dump(self) -> bytes:
        """Serialise for the store in the keyed format of :mod:`scopa.app._codec`."""
        seats = [
            _restore(
                {
                    "name": s.name,
                    "open": s.open,
                    "joined": s.joined,
                    "invite_digest": s.invite_digest,
                    "bot": s.bot,
                    **({"timeouts": s.timeouts} if s.timeouts else {}),
                    **({"owner": s.owner} if s.owner else {}),
                },
                s.unknown,
            )
            for s in self.seats
        ]
        record: dict[str, object] = {"seats": seats, "resigned": self.resigned}
        if self.turn_timeout_s:
            record["clock"] = [self.turn_timeout_s, self.on_timeout, self.forfeit_after]
        if self.deadline_ms:
            record["deadline_ms"] = self.deadline_ms
        if self.public:
            record["public"] = True
        if self.created_ms:
            record["created_ms"] = self.created_ms
        if self.timeout_bot:
            record["timeout_bot"] = self.timeout_bot
        for key, value in (
            ("rematch", self.rematch),
            ("rematch_of", self.rematch_of),
            ("tokens_of", self.tokens_of),
        ):
            if value:
                record[key] = value
        if self.webhook_url:
            record["webhook"] = self.webhook_url
        if self.spectators_invite:
            record["spectators_invite"] = True
        _restore(record, self.unknown)
        return pack(record, {"last_events": self.last_events, **dict(self.unknown_blobs)})

    @classmethod
    def load(cls, blob: bytes) -> GameMeta:
        """Read what :meth:`dump` wrote, or a format-1 meta (positional JSON head)."""
        if not is_keyed(blob):
            return cls._load_format_1(blob)
        record, blobs = unpack(blob)
        try:
            seats = tuple(
                SeatMeta(
                    s["name"],
                    s["open"],
                    s["joined"],
                    s["invite_digest"],
                    s.get("bot", ""),
                    s.get("timeouts", 0),
                    s.get("owner", ""),
                    _unknown(s, _SEAT_KEYS),
                )
                for s in record["seats"]
            )
            timeout_s, on_timeout, forfeit_after = record.get("clock", (0, "bot", 0))
            return cls(
                seats,
                record["resigned"],
                blobs["last_events"],
                timeout_s,
                on_timeout,
                forfeit_after,
                record.get("deadline_ms", 0),
                record.get("public", False),
                record.get("created_ms", 0),
                record.get("timeout_bot", ""),
                record.get("rematch", ""),
                record.get("rematch_of", ""),
                record.get("tokens_of", ""),
                _unknown(record, _META_KEYS),
                tuple([(k, v) for k, v in blobs.items() if k not in _BLOBS]),
                webhook_url=record.get("webhook", ""),
                spectators_invite=record.get("spectators_invite", False),
            )
        except (KeyError, TypeError, AttributeError) as exc:
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


frozen_init(SeatMeta)
frozen_init(GameMeta)
